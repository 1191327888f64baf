package dsh

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/logbook/logbook/archive/format"
)

// This file is the projection of dsh's event names into the archive's neutral view
// items (format.Item): which events the views read, the shapes of their data
// (decoded in extract.go), and the items each gives. The store writes the items.

// Data shapes the projection reads. Only the fields views need are decoded.
type (
	msgSource struct {
		Kind         string `json:"kind"`
		Plugin       string `json:"plugin"`
		Provider     string `json:"provider"`
		Model        string `json:"model"`
		CallID       string `json:"callId"`
		CompactionID string `json:"compactionId"`
	}
	message struct {
		ID      string         `json:"id"`
		Role    string         `json:"role"`
		Content []messageBlock `json:"content"`
		Source  msgSource      `json:"source"`
	}
	usage struct {
		InputTokens     int64 `json:"inputTokens"`
		OutputTokens    int64 `json:"outputTokens"`
		CacheReadTokens int64 `json:"cacheReadTokens"`
		ReasoningTokens int64 `json:"reasoningTokens"`
	}
	eventData struct {
		Message     *message        `json:"message"`
		Usage       *usage          `json:"usage"`
		Interrupted bool            `json:"interrupted"`
		Error       json.RawMessage `json:"error"`

		CallID    string `json:"callId"`
		Name      string `json:"name"`
		Arguments string `json:"arguments"`

		Policy   string `json:"policy"`
		Mode     string `json:"mode"`
		Preset   string `json:"preset"`
		ID       string `json:"id"`
		ToolName string `json:"toolName"`
		Reason   string `json:"reason"`
		Outcome  string `json:"outcome"`

		CompactionID   string         `json:"compactionId"`
		Summary        []messageBlock `json:"summary"`
		ShadowedRange  *struct{ Start, End int64 }
		ShadowedSeqs   []int64 `json:"shadowedSeqs"`
		ShadowedTokens *int64  `json:"shadowedTokenCount"`
		Provider       string  `json:"provider"`
		Model          string  `json:"model"`

		Title string `json:"title"`
		// TitleSource is a session/title's source, read by decodeEventData from the
		// title's own shape ({kind, provider?, model?:{provider, model}}); other types
		// spell `source` differently (a string on approval/policy and sandbox/mode).
		TitleSource *titleSource `json:"-"`
	}
	titleSource struct {
		Kind     string          `json:"kind"`
		Provider string          `json:"provider"`
		Model    json.RawMessage `json:"model"`
	}
)

// projectedTypes are the event types whose data the views need.
var projectedTypes = map[string]bool{
	"user/message": true, "assistant/message": true, "tool/call": true, "tool/result": true,
	"approval/policy": true, "sandbox/mode": true, "permission/preset": true,
	"approval/asked": true, "approval/decided": true,
	"compaction/start": true, "compaction/summary": true, "compaction/end": true, "compaction/prune": true,
	"session/title": true, "request/context": true, "turn/start": true, "session/end-seed": true,
}

// Project is what the archive keeps of one record (format.Record): its bytes, its
// events row and the view items its data gives, derived on the import's reading
// goroutine. Data of an unexpected shape is never passed over in silence: what could
// be read is projected, and the problem (a KindUndecodableEvent warning naming the
// line, seq and field) goes into the file's report; data that is not an object at
// all gives no items and the warning.
func Project(rec *Record) (format.Record, *Problem) {
	out := format.Record{Line: rec.Line, Raw: rec.Raw, FirstSeq: rec.FirstSeq(), LastSeq: rec.LastSeq(), Events: rec.NumEvents()}
	timed := false
	if row := rec.Row; row != nil {
		out.FirstTime, out.LastTime, timed = row.Time0, row.MaxTime, true
	}
	for i := range rec.Events {
		if t := rec.Events[i].Time; !timed {
			out.FirstTime, out.LastTime, timed = t, t, true
		} else {
			out.LastTime = max(out.LastTime, t)
		}
	}
	if rec.Packed != "" || rec.Events[0].Type == "assistant/chunk" {
		// Stream chunks (packed or loose) are log-only token deltas that dsh itself
		// never renders; the assembled assistant/message is what views use. Their
		// bytes are kept, and skipping a row for each keeps imports fast.
		return out, nil
	}
	ev := &rec.Events[0]
	out.Event = eventRow(ev)
	if ev.Type == "schedule/change" {
		out.Items = []format.Item{format.ScheduleChangeItem{}} // folded from the archived line
		return out, nil
	}
	if !projectedTypes[ev.Type] {
		return out, nil
	}
	d := new(eventData)
	ok, problem := decodeEventData(ev.Type, ev.Data, d)
	var p *Problem
	if problem != "" {
		p = &Problem{Kind: KindUndecodableEvent, Line: rec.Line, Offset: rec.Offset, Seq: ev.Seq,
			Message: fmt.Sprintf("%s at seq %d: %s; the event is archived as written, but views may miss this part of it", ev.Type, ev.Seq, problem)}
	}
	if ok {
		out.Items = items(ev, d)
	}
	return out, p
}

// eventRow is the archive's events row of a plain event.
func eventRow(ev *Event) *format.Event {
	e := &format.Event{Seq: ev.Seq, Time: ev.Time, Type: ev.Type, Surface: "log-only",
		TurnStarts: ev.Type == "turn/start", TurnEnds: ev.Type == "turn/end",
		// (A "turn": null, as on a manual compaction, is kept as written.)
		NamesTurn: bytes.Contains(ev.Data, []byte(`"turn"`))}
	if t, ok, s, ok2 := TurnStep(ev.Data); ok || ok2 {
		if ok {
			e.Turn = &t
		}
		if ok2 {
			e.Step = &s
		}
	}
	if IsSurfaceType(ev.Type) {
		e.Surface = "current"
	}
	if ev.HasSourceSeqs {
		// The canonical range encoding expands to exactly the same list and keeps an
		// assistant/message citing hundreds of chunk seqs to a few bytes.
		e.SourceSeqs, e.HasSourceSeqs = string(EncodeSeqRanges(ev.SourceEventSeqs)), true
	}
	return e
}

// items are the view items of one plain event with its decoded data.
func items(ev *Event, d *eventData) []format.Item {
	switch ev.Type {
	case "user/message":
		m := d.Message
		kind := "injected"
		if m.Source.Kind == "user" {
			kind = "human"
		}
		msg := format.MessageItem{Role: "user", Kind: kind, SourceKind: m.Source.Kind, Plugin: m.Source.Plugin,
			ID: m.ID, Text: blockText(m.Content, "text")}
		if m.Source.Plugin == "compact" && m.Source.CompactionID != "" {
			return []format.Item{format.CompactionReplaceItem{ID: m.Source.CompactionID}, msg}
		}
		return []format.Item{msg}
	case "assistant/message":
		if d.Message == nil {
			return nil
		}
		m := d.Message
		var out []format.Item
		if u := d.Usage; u != nil {
			out = append(out, format.UsageItem{Input: u.InputTokens, Output: u.OutputTokens,
				Reasoning: u.ReasoningTokens, CacheRead: u.CacheReadTokens})
		}
		return append(out, format.ModelItem{Provider: m.Source.Provider, Model: m.Source.Model},
			format.MessageItem{Role: "assistant", Kind: "assistant", SourceKind: m.Source.Kind, ID: m.ID,
				Text: blockText(m.Content, "text"), Reasoning: blockText(m.Content, "reasoning"),
				Provider: m.Source.Provider, Model: m.Source.Model, Interrupted: d.Interrupted})
	case "tool/call":
		return []format.Item{format.ToolCallItem{CallID: d.CallID, Name: d.Name, Arguments: d.Arguments}}
	case "tool/result":
		if d.Message == nil {
			return nil
		}
		m := d.Message
		res := format.ToolResultItem{CallID: m.Source.CallID}
		var output strings.Builder
		for _, b := range m.Content {
			if b.Type == "tool-result" {
				if res.CallID == "" {
					res.CallID = b.ToolCallID
				}
				output.WriteString(blockText(b.Content, "text"))
				res.IsError = res.IsError || b.IsError
			}
		}
		if len(d.Error) > 0 && string(d.Error) != "null" {
			var e struct {
				Name string `json:"name"`
				Code any    `json:"code"`
			}
			_ = json.Unmarshal(d.Error, &e)
			res.ErrorName, res.ErrorCode, res.IsError = e.Name, fmt.Sprint(e.Code), true
		}
		// The output text lives once, on the tool_result message; tool_calls joins it.
		return []format.Item{res, format.MessageItem{Role: "tool", Kind: "tool_result", SourceKind: "tool", ID: m.ID,
			Text: output.String(), CallID: res.CallID}}
	case "approval/policy":
		return []format.Item{format.SettingItem{Setting: format.SettingApprovalPolicy, Value: d.Policy}}
	case "sandbox/mode":
		return []format.Item{format.SettingItem{Setting: format.SettingSandboxMode, Value: d.Mode}}
	case "permission/preset":
		return []format.Item{format.SettingItem{Setting: format.SettingPermissionPreset, Value: d.Preset}}
	case "approval/asked":
		return []format.Item{format.ApprovalAskedItem{ID: d.ID, ToolName: d.ToolName, CallID: d.CallID, Reason: d.Reason}}
	case "approval/decided":
		return []format.Item{format.ApprovalDecidedItem{ID: d.ID, Outcome: d.Outcome}}
	case "compaction/start":
		return []format.Item{format.CompactionStartItem{ID: d.CompactionID}}
	case "compaction/summary":
		return []format.Item{format.ModelItem{Provider: d.Provider, Model: d.Model}, shadowed(d, format.CompactionSummaryItem{
			ID: d.CompactionID, Summary: blockText(d.Summary, "text"), Provider: d.Provider, Model: d.Model})}
	case "compaction/prune":
		return []format.Item{shadowed(d, format.CompactionSummaryItem{ID: fmt.Sprintf("prune-%d", ev.Seq), Prune: true})}
	case "compaction/end":
		end := format.CompactionEndItem{ID: d.CompactionID}
		if len(d.Error) > 0 && string(d.Error) != "null" {
			end.Failed, end.Error = true, errorText(d.Error)
		}
		return []format.Item{end}
	case "session/title":
		t := format.TitleItem{Title: d.Title}
		if d.TitleSource != nil {
			t.Source = &d.TitleSource.Kind
		}
		return []format.Item{t}
	case "request/context":
		return []format.Item{format.ModelItem{Provider: d.Provider, Model: d.Model}}
	case "turn/start":
		return []format.Item{format.TurnStartItem{}}
	case "session/end-seed":
		return []format.Item{format.EndSeedItem{}}
	}
	return nil
}

// shadowed fills what a compaction summary or prune says it replaced.
func shadowed(d *eventData, c format.CompactionSummaryItem) format.CompactionSummaryItem {
	c.ShadowedSeqs, c.ShadowedTokens = d.ShadowedSeqs, d.ShadowedTokens
	if r := d.ShadowedRange; r != nil {
		c.ShadowedStart, c.ShadowedEnd = &r.Start, &r.End
	}
	return c
}
