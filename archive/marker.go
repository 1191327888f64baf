package archive

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/logbook/logbook/archive/dsh"
)

// This file turns the payload of a quiet event (todo/write, sandbox/mode, command/run,
// turn/end…) into a Marker for the timeline. The payloads live only in the raw lines
// archived in blocks, so it also holds the reader that decodes just the blocks a page
// needs.

// rawLines returns the archived storage lines with the given line numbers (ascending,
// without duplicates) keyed by line number. Only the blocks holding those lines are
// decompressed, each at most once. A line that is not archived is left out.
func (s *Store) rawLines(ctx context.Context, q *sql.Tx, pk int64, lines []int64) (map[int64][]byte, error) {
	out := make(map[int64][]byte, len(lines))
	var plain []byte
	var first, last, cur int64 = 0, -1, 0
	pos := 0
	for _, ln := range lines {
		if ln < first || ln > last {
			var data []byte
			err := q.QueryRowContext(ctx, `
				SELECT first_line, last_line, data FROM blocks
				WHERE session_pk = ? AND first_line <= ?
				ORDER BY first_line DESC
				LIMIT 1`, pk, ln).Scan(&first, &last, &data)
			if errors.Is(err, sql.ErrNoRows) {
				first, last = 0, -1
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("read block of line %d: %w", ln, err)
			}
			if ln > last {
				continue // a gap: the line was never archived
			}
			if plain, err = s.zdec.DecodeAll(data, plain[:0]); err != nil {
				return nil, fmt.Errorf("archived block at line %d does not decompress: %w", first, err)
			}
			cur, pos = first, 0
		}
		for cur < ln {
			i := bytes.IndexByte(plain[pos:], '\n')
			if i < 0 {
				return nil, fmt.Errorf("archived block at line %d is not newline-terminated", first)
			}
			pos += i + 1
			cur++
		}
		i := bytes.IndexByte(plain[pos:], '\n')
		if i < 0 {
			return nil, fmt.Errorf("archived block at line %d is not newline-terminated", first)
		}
		out[ln] = bytes.Clone(plain[pos : pos+i])
	}
	return out, nil
}

// rawData returns the data member of a raw event line, or nil. Archived lines are
// valid JSON, which lets the fast member scanner skip the rest of the line.
func rawData(raw []byte) json.RawMessage {
	var data json.RawMessage
	dsh.Members(raw, func(k, v []byte) {
		if string(k) == "data" {
			data = v
		}
	})
	return data
}

// memberString returns a top-level string member of a JSON object (valid JSON), or "".
func memberString(data json.RawMessage, key string) string {
	var out string
	dsh.Members(data, func(k, v []byte) {
		if string(k) == key {
			out, _ = dsh.String(v)
		}
	})
	return out
}

// Marker text limits: a label is one short line, a detail a readable paragraph.
const (
	labelRunes  = 120
	detailRunes = 4000
	valueRunes  = 300
	maxFields   = 12
)

// markerInfo is what a marker label may need beyond the payload.
type markerInfo struct {
	seq        int64
	turn       *int64 // the events row's turn
	seedLength *int64 // the session's inherited prefix length, if seeded
}

// markerFor builds the Marker of a turn or quiet event from its data member. It never
// fails: an unexpected payload falls back to a generic marker labelled with the type.
func markerFor(typ string, data json.RawMessage, info markerInfo) *Marker {
	m := &Marker{}
	if !knownMarker(typ, data, info, m) {
		*m = genericMarker(typ, data)
	}
	m.Label = clip(m.Label, labelRunes)
	m.Detail = clipKeepLines(m.Detail, detailRunes)
	if m.Label == "" {
		m.Label = typ
	}
	return m
}

// fields gathers marker fields, skipping empty values.
type fields []MarkerField

func (f *fields) add(name, value string) {
	if value = clip(value, valueRunes); value != "" {
		*f = append(*f, MarkerField{Name: name, Value: value})
	}
}

func (f *fields) addInt(name string, v *int64) {
	if v != nil {
		f.add(name, strconv.FormatInt(*v, 10))
	}
}

// knownMarker fills m for the event types whose payload it knows. It returns false
// when the type is unknown or its payload does not have the documented shape.
func knownMarker(typ string, data json.RawMessage, info markerInfo, m *Marker) bool {
	var f fields
	defer func() {
		if len(f) > 0 {
			m.Fields = f
		}
	}()
	dec := func(v any) bool { return len(data) > 0 && json.Unmarshal(data, v) == nil }
	switch typ {
	case "turn/start":
		var d struct {
			Turn *int64 `json:"turn"`
		}
		_ = dec(&d)
		m.Label = turnLabel(d.Turn, info.turn)
		return true
	case "turn/end":
		var d struct {
			Turn   *int64          `json:"turn"`
			Reason json.RawMessage `json:"reason"`
		}
		_ = dec(&d)
		m.Label = turnLabel(d.Turn, info.turn)
		m.Status, m.Detail = turnEndReason(d.Reason, &f)
		return true
	case "todo/write":
		var d struct {
			Todos []TodoItem `json:"todos"`
		}
		if !dec(&d) || d.Todos == nil {
			return false
		}
		m.Todos = d.Todos
		m.Label = fmt.Sprintf("todo list (%s)", plural(len(d.Todos), "item"))
		counts := map[string]int{}
		var order []string
		for _, t := range d.Todos {
			if counts[t.Status] == 0 {
				order = append(order, t.Status)
			}
			counts[t.Status]++
		}
		for _, st := range order {
			f.add(strings.ReplaceAll(st, "_", " "), strconv.Itoa(counts[st]))
		}
		return true
	case "plan/mode":
		var d struct {
			Active *bool `json:"active"`
		}
		if !dec(&d) || d.Active == nil {
			return false
		}
		m.Label = "plan mode off"
		if *d.Active {
			m.Label = "plan mode on"
		}
		return true
	case "permission/preset":
		var d struct {
			Preset string `json:"preset"`
		}
		if !dec(&d) || d.Preset == "" {
			return false
		}
		m.Label = "permissions: " + d.Preset
		return true
	case "sandbox/mode":
		var d struct {
			Mode   string `json:"mode"`
			Source string `json:"source"`
		}
		if !dec(&d) || d.Mode == "" {
			return false
		}
		m.Label = "sandbox: " + d.Mode
		f.add("source", d.Source)
		return true
	case "approval/policy":
		var d struct {
			Policy string `json:"policy"`
			Source string `json:"source"`
		}
		if !dec(&d) || d.Policy == "" {
			return false
		}
		m.Label = "approval policy: " + d.Policy
		f.add("source", d.Source)
		return true
	case "model/selection":
		var d struct {
			Provider        string `json:"provider"`
			Model           string `json:"model"`
			ReasoningEffort string `json:"reasoningEffort"`
		}
		if !dec(&d) || d.Model == "" {
			return false
		}
		m.Label = "model: " + joinModel(d.Provider, d.Model)
		f.add("reasoning effort", d.ReasoningEffort)
		return true
	case "agent-preset/selected":
		var d struct {
			AgentPreset string `json:"agentPreset"`
		}
		if !dec(&d) || d.AgentPreset == "" {
			return false
		}
		m.Label = "agent preset: " + d.AgentPreset
		return true
	case "session/title":
		var d struct {
			Title  *string `json:"title"`
			Source struct {
				Kind     string          `json:"kind"`
				Provider string          `json:"provider"`
				Model    json.RawMessage `json:"model"`
			} `json:"source"`
		}
		if !dec(&d) || d.Title == nil {
			return false
		}
		m.Label = "title: " + *d.Title
		f.add("source", d.Source.Kind)
		f.add("provider", d.Source.Provider)
		var model struct{ Provider, Model string }
		if len(d.Source.Model) > 0 && json.Unmarshal(d.Source.Model, &model) == nil && model.Model != "" {
			f.add("model", joinModel(model.Provider, model.Model))
		}
		return true
	case "goal/change":
		return goalMarker(data, m, &f)
	case "command/run":
		var d struct {
			CommandID string `json:"commandId"`
			Name      string `json:"name"`
			Args      string `json:"args"`
			Source    struct {
				Kind string `json:"kind"`
			} `json:"source"`
		}
		if !dec(&d) || d.Name == "" {
			return false
		}
		line := "/" + d.Name
		if args := strings.TrimSpace(d.Args); args != "" {
			line += " " + args
		}
		m.Label = "command: " + line
		if utf8.RuneCountInString(m.Label) > labelRunes {
			m.Detail = line
		}
		f.add("command id", d.CommandID)
		f.add("source", d.Source.Kind)
		return true
	case "command/done":
		var d struct {
			CommandID      string `json:"commandId"`
			Kind           string `json:"kind"`
			Text           string `json:"text"`
			SourceEventSeq *int64 `json:"sourceEventSeq"`
		}
		if !dec(&d) || d.Kind == "" {
			return false
		}
		m.Label, m.Status = "command done", d.Kind
		if d.Kind == "error" {
			m.Label = "command failed"
		}
		if t := firstLine(d.Text); t != "" {
			m.Label += ": " + t
		}
		m.Detail = d.Text
		f.add("command id", d.CommandID)
		f.addInt("source event", d.SourceEventSeq)
		return true
	case "llm/retry":
		var d struct {
			RetryID    string      `json:"retryId"`
			Retry      *int64      `json:"retry"`
			MaxRetries *int64      `json:"maxRetries"`
			DelayMs    *int64      `json:"delayMs"`
			Mode       string      `json:"mode"`
			Provider   string      `json:"provider"`
			Failure    *llmFailure `json:"failure"`
		}
		if !dec(&d) || d.Retry == nil {
			return false
		}
		m.Label = "retry " + strconv.FormatInt(*d.Retry, 10)
		if d.MaxRetries != nil {
			m.Label += "/" + strconv.FormatInt(*d.MaxRetries, 10)
		}
		if d.DelayMs != nil {
			m.Label += " in " + durationText(*d.DelayMs)
		}
		if d.Failure != nil {
			if d.Failure.Code != "" {
				m.Label += " after " + d.Failure.Code
			}
			m.Detail = d.Failure.Message
			f.add("code", d.Failure.Code)
			f.addInt("status", d.Failure.Status)
		}
		f.add("provider", d.Provider)
		f.add("mode", d.Mode)
		f.add("retry id", d.RetryID)
		return true
	case "llm/retry-started":
		var d struct {
			RetryID string `json:"retryId"`
			Retry   *int64 `json:"retry"`
		}
		if !dec(&d) || d.Retry == nil {
			return false
		}
		m.Label = "retry " + strconv.FormatInt(*d.Retry, 10) + " started"
		f.add("retry id", d.RetryID)
		return true
	case "hook/invoked", "hook/result":
		var d struct {
			Point         string `json:"point"`
			HandlerID     string `json:"handlerId"`
			Dialect       string `json:"dialect"`
			Matcher       string `json:"matcher"`
			Decision      string `json:"decision"`
			DurationMs    *int64 `json:"durationMs"`
			ExitCode      *int64 `json:"exitCode"`
			StderrSummary string `json:"stderrSummary"`
		}
		if !dec(&d) || d.Point == "" {
			return false
		}
		if typ == "hook/invoked" {
			m.Label = "hook: " + d.Point
			f.add("handler", d.HandlerID)
			f.add("dialect", d.Dialect)
			f.add("matcher", d.Matcher)
			return true
		}
		m.Label, m.Status, m.Detail = "hook "+d.Point, d.Decision, d.StderrSummary
		if d.Decision != "" {
			m.Label += ": " + d.Decision
		}
		f.add("handler", d.HandlerID)
		if d.DurationMs != nil {
			f.add("duration", durationText(*d.DurationMs))
		}
		f.addInt("exit code", d.ExitCode)
		return true
	case "agent/inbox/spliced":
		return inboxMarker(data, m, &f)
	case "feedback/record":
		var d struct {
			Text *string `json:"text"`
		}
		if !dec(&d) || d.Text == nil {
			return false
		}
		m.Label, m.Detail = "feedback: "+firstLine(*d.Text), *d.Text
		return true
	case "schedule/change":
		return scheduleMarker(data, m, &f)
	case "session/end-seed":
		m.Label = "session resumed"
		if info.seedLength != nil && *info.seedLength == info.seq {
			m.Label = "forked from the parent session"
		}
		return true
	case "subagent/descriptor":
		var d struct {
			Mode                 string `json:"mode"`
			Label                string `json:"label"`
			Provider             string `json:"provider"`
			AgentProvider        string `json:"agentProvider"`
			AgentModel           string `json:"agentModel"`
			AgentReasoningEffort string `json:"agentReasoningEffort"`
			Persona              string `json:"persona"`
		}
		if !dec(&d) || d.Mode == "" {
			return false
		}
		m.Label = "subagent (" + d.Mode + ")"
		if d.Label != "" {
			m.Label = "subagent: " + d.Label
		}
		f.add("mode", d.Mode)
		f.add("provider", d.Provider)
		if d.AgentModel != "" {
			f.add("model", joinModel(d.AgentProvider, d.AgentModel))
		}
		f.add("reasoning effort", d.AgentReasoningEffort)
		f.add("persona", d.Persona)
		return true
	case "subagent/model-selection-policy":
		var d struct {
			AllowedModels []struct{ Provider, Model string } `json:"allowedModels"`
		}
		if !dec(&d) || d.AllowedModels == nil {
			return false
		}
		names := make([]string, 0, len(d.AllowedModels))
		for _, am := range d.AllowedModels {
			names = append(names, joinModel(am.Provider, am.Model))
		}
		m.Label = "subagent models: " + strings.Join(names, ", ")
		return true
	case "tool-workflow/run-start", "tool-workflow/run-end", "tool-workflow/agent-start", "tool-workflow/agent-end":
		var d struct {
			RunID      string `json:"runId"`
			Name       string `json:"name"`
			StopReason string `json:"stopReason"`
			ChildID    string `json:"childId"`
			Label      string `json:"label"`
			Phase      string `json:"phase"`
			Outcome    string `json:"outcome"`
		}
		if !dec(&d) || d.RunID == "" {
			return false
		}
		switch typ {
		case "tool-workflow/run-start":
			m.Label = "workflow started: " + d.Name
		case "tool-workflow/run-end":
			m.Label, m.Status = "workflow ended: "+d.StopReason, d.StopReason
		case "tool-workflow/agent-start":
			m.Label = "workflow agent: " + d.Label
			f.add("child session", d.ChildID)
			f.add("phase", d.Phase)
		default:
			m.Label, m.Status = "workflow agent "+d.Outcome, d.Outcome
		}
		f.add("run id", d.RunID)
		return true
	case "team/member":
		var d struct {
			TeamID string `json:"teamId"`
			Member struct {
				Name, Phase, Description, Provider, Context, Error string
			} `json:"member"`
		}
		if !dec(&d) || d.Member.Name == "" {
			return false
		}
		m.Label, m.Status, m.Detail = "team member "+d.Member.Name+": "+d.Member.Phase, d.Member.Phase, d.Member.Description
		f.add("provider", d.Member.Provider)
		f.add("context", d.Member.Context)
		f.add("error", d.Member.Error)
		f.add("team", d.TeamID)
		return true
	case "team/task":
		var d struct {
			TeamID string `json:"teamId"`
			Task   struct {
				Subject, Status, Description, OwnerID string
			} `json:"task"`
		}
		if !dec(&d) || d.Task.Subject == "" {
			return false
		}
		m.Label, m.Status, m.Detail = "team task: "+d.Task.Subject, d.Task.Status, d.Task.Description
		f.add("status", d.Task.Status)
		f.add("owner", d.Task.OwnerID)
		f.add("team", d.TeamID)
		return true
	case "team/message/queued":
		var d struct {
			TeamID  string `json:"teamId"`
			Message struct {
				SenderName string         `json:"senderName"`
				TargetID   string         `json:"targetId"`
				Delivery   string         `json:"delivery"`
				Content    []contentBlock `json:"content"`
			} `json:"message"`
		}
		if !dec(&d) || d.Message.SenderName == "" {
			return false
		}
		m.Label = "team message from " + d.Message.SenderName
		m.Detail = blockText(d.Message.Content, "text")
		f.add("to", d.Message.TargetID)
		f.add("delivery", d.Message.Delivery)
		f.add("team", d.TeamID)
		return true
	case "team/message/delivered":
		var d struct {
			TeamID    string `json:"teamId"`
			MessageID string `json:"messageId"`
			TargetID  string `json:"targetId"`
		}
		if !dec(&d) || d.MessageID == "" {
			return false
		}
		m.Label = "team message delivered"
		f.add("to", d.TargetID)
		f.add("message id", d.MessageID)
		f.add("team", d.TeamID)
		return true
	case "tool/code-dispatch-start", "tool/code-dispatch":
		var d struct {
			Name      string         `json:"name"`
			SubCallID string         `json:"subCallId"`
			RootCall  string         `json:"rootCallId"`
			IsError   *bool          `json:"isError"`
			Content   []contentBlock `json:"content"`
			Arguments any            `json:"arguments"`
		}
		if !dec(&d) || d.Name == "" {
			return false
		}
		m.Label = "code dispatch: " + d.Name
		if typ == "tool/code-dispatch" {
			m.Status = "ok"
			if d.IsError != nil && *d.IsError {
				m.Status = "error"
			}
			m.Label += " (" + m.Status + ")"
			m.Detail = blockText(d.Content, "text")
		} else if d.Arguments != nil {
			if b, err := json.Marshal(d.Arguments); err == nil {
				m.Detail = string(b)
			}
		}
		f.add("sub-call", d.SubCallID)
		f.add("root call", d.RootCall)
		return true
	case "approval/decided":
		// Only reached for a decision the approvals view no longer pairs with it.
		var d struct {
			ID      string `json:"id"`
			Outcome string `json:"outcome"`
		}
		if !dec(&d) || d.Outcome == "" {
			return false
		}
		m.Label, m.Status = "approval "+d.Outcome, d.Outcome
		f.add("approval id", d.ID)
		return true
	case "compaction/start", "compaction/summary", "compaction/end", "compaction/prune":
		// Only reached for a bracket event the compactions view no longer holds (an
		// id reused by a later bracket).
		var d struct {
			CompactionID string          `json:"compactionId"`
			Error        json.RawMessage `json:"error"`
		}
		_ = dec(&d)
		m.Label = strings.ReplaceAll(typ, "/", " ")
		f.add("compaction id", d.CompactionID)
		if len(d.Error) > 0 && string(d.Error) != "null" {
			m.Status, m.Detail = "failed", errorText(d.Error)
		}
		return true
	}
	return false
}

// llmFailure is the failure of an LLM call (llm/retry, turn/end error).
type llmFailure struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Status  *int64 `json:"status"`
}

func turnLabel(fromData, fromRow *int64) string {
	switch {
	case fromData != nil:
		return "Turn " + strconv.FormatInt(*fromData, 10)
	case fromRow != nil:
		return "Turn " + strconv.FormatInt(*fromRow, 10)
	}
	return "Turn"
}

// turnEndReason returns the status and detail of a turn/end reason: an object
// {kind, reason?, error?} in V0, a bare string in early (legacy) logs.
func turnEndReason(raw json.RawMessage, f *fields) (string, string) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, ""
	}
	var r struct {
		Kind   string          `json:"kind"`
		Reason json.RawMessage `json:"reason"`
		Error  *llmFailure     `json:"error"`
	}
	if json.Unmarshal(raw, &r) != nil {
		return "", ""
	}
	detail := ""
	if len(r.Reason) > 0 {
		var by struct {
			Kind   string `json:"kind"`
			Reason string `json:"reason"`
		}
		if json.Unmarshal(r.Reason, &by) == nil {
			f.add("by", by.Kind)
			detail = by.Reason
		} else if json.Unmarshal(r.Reason, &s) == nil {
			detail = s
		}
	}
	if r.Error != nil {
		detail = r.Error.Message
		f.add("code", r.Error.Code)
		f.addInt("status", r.Error.Status)
	}
	return r.Kind, detail
}

func goalMarker(data json.RawMessage, m *Marker, f *fields) bool {
	var d struct {
		Operation string `json:"operation"`
		Goal      *struct {
			ID            string          `json:"id"`
			Revision      *int64          `json:"revision"`
			Objective     string          `json:"objective"`
			Phase         string          `json:"phase"`
			BlockedReason json.RawMessage `json:"blockedReason"`
		} `json:"goal"`
		Cleared *struct {
			ID string `json:"id"`
		} `json:"cleared"`
	}
	if len(data) == 0 || json.Unmarshal(data, &d) != nil || d.Operation == "" {
		return false
	}
	verbs := map[string]string{"create": "created", "edit": "edited", "pause": "paused", "resume": "resumed",
		"complete": "completed", "block": "blocked", "clear": "cleared"}
	verb, ok := verbs[d.Operation]
	if !ok {
		verb = d.Operation
	}
	m.Label = "goal " + verb
	if d.Goal != nil {
		m.Detail, m.Status = d.Goal.Objective, d.Goal.Phase
		if t := firstLine(d.Goal.Objective); t != "" {
			m.Label += ": " + t
		}
		f.add("phase", d.Goal.Phase)
		f.addInt("revision", d.Goal.Revision)
		if len(d.Goal.BlockedReason) > 0 && string(d.Goal.BlockedReason) != "null" {
			f.add("blocked", errorText(d.Goal.BlockedReason))
		}
		f.add("goal id", d.Goal.ID)
	}
	if d.Cleared != nil {
		f.add("goal id", d.Cleared.ID)
	}
	return true
}

func inboxMarker(data json.RawMessage, m *Marker, f *fields) bool {
	var d struct {
		Target       string    `json:"target"`
		Inserted     []message `json:"inserted"`
		RemovedCount *int64    `json:"removedCount"`
		Outcome      string    `json:"outcome"`
	}
	if len(data) == 0 || json.Unmarshal(data, &d) != nil || d.Target == "" {
		return false
	}
	target := strings.ReplaceAll(d.Target, "-", " ")
	var parts []string
	if n := len(d.Inserted); n > 0 {
		parts = append(parts, plural(n, "message")+" queued for the "+target)
	}
	if d.RemovedCount != nil && *d.RemovedCount > 0 {
		parts = append(parts, plural(int(*d.RemovedCount), "message")+" removed")
	}
	if d.Outcome != "" {
		parts = append(parts, d.Outcome)
	}
	if len(parts) == 0 {
		parts = append(parts, "unchanged")
	}
	m.Label = "inbox: " + strings.Join(parts, ", ")
	m.Status = d.Outcome
	var texts []string
	for _, msg := range d.Inserted {
		if t := blockText(msg.Content, "text"); t != "" {
			texts = append(texts, t)
		}
		src := msg.Source.Kind
		if msg.Source.Plugin != "" {
			src += ": " + msg.Source.Plugin
		}
		f.add("source", src)
	}
	m.Detail = strings.Join(texts, "\n\n")
	f.add("target", d.Target)
	return true
}

func scheduleMarker(data json.RawMessage, m *Marker, f *fields) bool {
	var d struct {
		Operation string `json:"operation"`
		ID        string `json:"id"`
		Schedule  *struct {
			ID           string `json:"id"`
			Kind         string `json:"kind"`
			Prompt       string `json:"prompt"`
			ScheduledAt  string `json:"scheduledAt"`
			AfterSeconds *int64 `json:"afterSeconds"`
			EverySeconds *int64 `json:"everySeconds"`
		} `json:"schedule"`
		AcceptedAt string `json:"acceptedAt"`
	}
	if len(data) == 0 || json.Unmarshal(data, &d) != nil || d.Operation == "" {
		return false
	}
	switch d.Operation {
	case "create":
		if d.Schedule == nil {
			return false
		}
		sc := d.Schedule
		what := sc.Kind
		switch {
		case sc.Kind == "every" && sc.EverySeconds != nil:
			what = "every " + durationText(*sc.EverySeconds*1000)
		case sc.Kind == "after" && sc.AfterSeconds != nil:
			what = "in " + durationText(*sc.AfterSeconds*1000)
		case sc.Kind == "at" && sc.ScheduledAt != "":
			what = "at " + sc.ScheduledAt
		}
		m.Label = "reminder scheduled " + what
		if t := firstLine(sc.Prompt); t != "" {
			m.Label += ": " + t
		}
		m.Detail = sc.Prompt
		f.add("schedule id", sc.ID)
		f.add("kind", sc.Kind)
		f.add("scheduled at", sc.ScheduledAt)
	case "delete":
		m.Label = "reminder deleted: " + d.ID
		f.add("schedule id", d.ID)
	case "dispatch":
		m.Label = "reminder fired: " + d.ID
		f.add("schedule id", d.ID)
		f.add("accepted at", d.AcceptedAt)
	default:
		m.Label = "schedule " + d.Operation
		f.add("schedule id", d.ID)
	}
	return true
}

// genericMarker labels an unknown (or oddly shaped) event with its type and lists the
// top-level members of its data as fields.
func genericMarker(typ string, data json.RawMessage) Marker {
	m := Marker{Label: typ}
	var obj map[string]json.RawMessage
	if len(data) == 0 || json.Unmarshal(data, &obj) != nil {
		return m
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var f fields
	for _, k := range keys {
		v := obj[k]
		var s string
		switch {
		case json.Unmarshal(v, &s) == nil:
			if (k == "text" || k == "message") && m.Detail == "" {
				m.Detail = s
			}
		case string(v) == "null":
			continue
		default:
			var buf bytes.Buffer
			if json.Compact(&buf, v) != nil {
				continue
			}
			s = buf.String()
		}
		if len(f) < maxFields {
			f.add(k, s)
		}
	}
	if len(f) > 0 {
		m.Fields = f
	}
	return m
}

func joinModel(provider, model string) string {
	if provider == "" {
		return model
	}
	return provider + "/" + model
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// durationText renders milliseconds for people: 850ms, 2s, 1.5s, 5m, 1h30m.
func durationText(ms int64) string {
	switch {
	case ms < 1000:
		return strconv.FormatInt(ms, 10) + "ms"
	case ms < 60_000:
		return strconv.FormatFloat(float64(ms)/1000, 'f', -1, 64) + "s"
	case ms%3_600_000 == 0:
		return strconv.FormatInt(ms/3_600_000, 10) + "h"
	case ms < 3_600_000 && ms%60_000 == 0:
		return strconv.FormatInt(ms/60_000, 10) + "m"
	case ms < 3_600_000:
		return fmt.Sprintf("%dm%ds", ms/60_000, ms%60_000/1000)
	}
	return fmt.Sprintf("%dh%dm", ms/3_600_000, ms%3_600_000/60_000)
}

// firstLine returns the first non-blank line of s, trimmed.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}

// clip collapses whitespace runs to one space and cuts s to n runes with an ellipsis.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	return cutRunes(s, n)
}

// clipKeepLines cuts s to n runes with an ellipsis, keeping its line breaks.
func clipKeepLines(s string, n int) string {
	return cutRunes(strings.TrimSpace(s), n)
}

func cutRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for k := 0; k < n-1; k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i] + "…"
}
