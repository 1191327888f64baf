package dsh

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/logbook/logbook/archive/format"
)

// The marker builders of the event families with richer payloads (goals, the
// inbox, schedules, unknown types) and the text helpers every marker uses.

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

func goalMarker(data json.RawMessage, m *format.Marker, f *fields) bool {
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

// queuedMessage is a message an inbox event queued. Only their count is shown, but a
// list whose messages do not have a message's shape gets the generic marker.
type queuedMessage struct {
	ID      string         `json:"id"`
	Role    string         `json:"role"`
	Content []messageBlock `json:"content"`
	Source  struct {
		Kind, Plugin, Provider, Model string
		CallID                        string `json:"callId"`
		CompactionID                  string `json:"compactionId"`
	} `json:"source"`
}

func inboxMarker(data json.RawMessage, m *format.Marker, f *fields) bool {
	var d struct {
		Target       string          `json:"target"`
		Inserted     []queuedMessage `json:"inserted"`
		RemovedCount *int64          `json:"removedCount"`
		Outcome      string          `json:"outcome"`
	}
	if len(data) == 0 || json.Unmarshal(data, &d) != nil || d.Target == "" {
		return false
	}
	target := strings.ReplaceAll(d.Target, "-", " ")
	var parts []string
	if n := len(d.Inserted); n > 0 {
		parts = append(parts, countOf(n, "message")+" queued for the "+target)
	}
	if d.RemovedCount != nil && *d.RemovedCount > 0 {
		parts = append(parts, countOf(int(*d.RemovedCount), "message")+" removed")
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

func scheduleMarker(data json.RawMessage, m *format.Marker, f *fields) bool {
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
func genericMarker(typ string, data json.RawMessage) format.Marker {
	m := format.Marker{Label: typ}
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

func countOf(n int, word string) string {
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
func clipText(s string, n int) string {
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
