package dsh

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/logbook/logbook/archive/format"
)

// This file turns the payload of a quiet event (todo/write, sandbox/mode, command/run,
// turn/end…) into a format.Marker for the timeline. The payloads live only in the raw
// lines the archive keeps in blocks, which it reads back for just the events a page
// needs; the richer families are in marker_kinds.go.

// Marker text limits: a label is one short line, a detail a readable paragraph.
const (
	labelRunes  = 120
	detailRunes = 4000
	valueRunes  = 300
	maxFields   = 12
)

// Marker describes a quiet event (a state change, a turn boundary…) for the timeline
// from its archived line (format.Format).
func (Format) Marker(typ string, raw []byte, info format.MarkerInfo) *format.Marker {
	var data json.RawMessage
	Members(raw, func(k, v []byte) {
		if string(k) == "data" {
			data = v
		}
	})
	return markerFor(typ, data, info)
}

// markerFor builds the Marker of a turn or quiet event from its data member. It never
// fails: an unexpected payload falls back to a generic marker labelled with the type.
func markerFor(typ string, data json.RawMessage, info format.MarkerInfo) *format.Marker {
	m := &format.Marker{}
	if !knownMarker(typ, data, info, m) {
		*m = genericMarker(typ, data)
	}
	m.Label = clipText(m.Label, labelRunes)
	m.Detail = clipKeepLines(m.Detail, detailRunes)
	if m.Label == "" {
		m.Label = typ
	}
	return m
}

// fields gathers marker fields, skipping empty values.
type fields []format.MarkerField

func (f *fields) add(name, value string) {
	if value = clipText(value, valueRunes); value != "" {
		*f = append(*f, format.MarkerField{Name: name, Value: value})
	}
}

func (f *fields) addInt(name string, v *int64) {
	if v != nil {
		f.add(name, strconv.FormatInt(*v, 10))
	}
}

// knownMarker fills m for the event types whose payload it knows. It returns false
// when the type is unknown or its payload does not have the documented shape.
func knownMarker(typ string, data json.RawMessage, info format.MarkerInfo, m *format.Marker) bool {
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
		m.Label = turnLabel(d.Turn, info.Turn)
		return true
	case "turn/end":
		var d struct {
			Turn   *int64          `json:"turn"`
			Reason json.RawMessage `json:"reason"`
		}
		_ = dec(&d)
		m.Label = turnLabel(d.Turn, info.Turn)
		m.Status, m.Detail = turnEndReason(d.Reason, &f)
		return true
	case "todo/write":
		var d struct {
			Todos []format.TodoItem `json:"todos"`
		}
		if !dec(&d) || d.Todos == nil {
			return false
		}
		m.Todos = d.Todos
		m.Label = fmt.Sprintf("todo list (%s)", countOf(len(d.Todos), "item"))
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
		if info.SeedLength != nil && *info.SeedLength == info.Seq {
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
				Content    []messageBlock `json:"content"`
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
			Content   []messageBlock `json:"content"`
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
