package openhands

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/logbook/logbook/archive/format"
)

// Format is OpenHands as an archive format (format.Format and
// format.SourceReader): a session source is one conversation, a folder of event
// files or a single file, as Discover finds it. Each event becomes one record
// whose bytes are the event's JSON with its insignificant whitespace removed (one
// line, as the archive's blocks frame records); the files themselves, byte for
// byte, are what ReadSource hands the store to keep (format.Read.Files).
type Format struct{}

var (
	_ format.Format       = Format{}
	_ format.SourceReader = Format{}
	_ format.AddedReader  = Format{}

	_ format.FolderSourcer = Format{}
)

// Name is "openhands".
func (Format) Name() string { return "openhands" }

// Roots are DefaultRoots for this user and environment.
func (Format) Roots() []string {
	home, _ := os.UserHomeDir()
	return DefaultRoots(home, os.Getenv)
}

// IsSourceFolder is IsSource for a folder whose entries the walk has read
// (format.FolderSourcer).
func (Format) IsSourceFolder(path string, entries []fs.DirEntry) bool {
	_, ok := classify(path, entries)
	return ok
}

// IsSource reports whether a walked entry is a conversation: a folder of one of
// the folder layouts, or a file of a single-file layout.
func (Format) IsSource(path string, e fs.DirEntry) bool {
	if !e.IsDir() && strings.HasPrefix(e.Name(), "session.") {
		return false // a dsh session folder's files (session.jsonl, session.v1.jsonl…)
	}
	_, ok := unitOf(path, e.IsDir())
	return ok
}

// unitOf classifies path (a folder when dir) as a conversation.
func unitOf(path string, dir bool) (Unit, bool) {
	if dir {
		entries, err := os.ReadDir(path)
		if err != nil {
			return Unit{}, false
		}
		if l, ok := classify(path, entries); ok {
			return Unit{Path: path, Layout: l, SessionID: sessionID(path, l)}, true
		}
		return Unit{}, false
	}
	d := &discoverer{ctx: context.Background(), seen: map[string]bool{}}
	d.file(filepath.Dir(path), filepath.Base(path))
	if len(d.units) == 1 {
		return d.units[0], true
	}
	return Unit{}, false
}

// stamp is what the archive keeps of a conversation between imports (the
// format.Read.Stamp): the snapshot ReadSince compares with, and what the records
// so far said that a later record's items depend on.
type stamp struct {
	Snapshot Snapshot `json:"snapshot"`
	Usage    Usage    `json:"usage"`
	Model    string   `json:"model,omitempty"`
	Title    string   `json:"title,omitempty"`
	// Titled is the title a full read found and where from, which a resumed read
	// (a delta after a partial stamp) gives when its records do not say better.
	Titled     string           `json:"titled,omitempty"`
	TitledFrom string           `json:"titledFrom,omitempty"`
	Verdict    format.Verdict   `json:"verdict"`
	Problem    *format.Problem  `json:"problem,omitempty"`
	Warnings   []format.Problem `json:"warnings,omitempty"`
}

// ReadSource reads a conversation, or what changed in it since stamp
// (format.SourceReader).
func (Format) ReadSource(ctx context.Context, path string, raw []byte) (*format.Read, error) {
	prev, raw := parseStamp(path, raw)
	r := NewReader()
	var conv *Conversation
	var next Snapshot
	var rewritten []string
	reset := raw == nil
	if raw == nil {
		fi, err := os.Stat(path)
		if err != nil {
			return nil, err
		}
		u, ok := unitOf(path, fi.IsDir())
		if !ok {
			u = Unit{Path: path, Layout: LayoutSDK, SessionID: folderID(path)}
			if !fi.IsDir() {
				u.Layout = LayoutJSONL
			}
		}
		if conv, err = r.Read(ctx, u); err != nil {
			return nil, err
		}
		next = conv.Snapshot()
	} else {
		d, err := r.ReadSince(ctx, prev.Snapshot)
		if err != nil {
			return nil, err
		}
		if d.Unchanged {
			return &format.Read{Layout: string(prev.Snapshot.Unit.Layout), Unchanged: true, Stamp: raw}, nil
		}
		conv, next, reset, rewritten = d.Conversation, d.Next, d.Reset, d.Rewritten
		if !reset && len(conv.Records) == 0 && len(conv.Files) == 0 && len(conv.Problems) == 0 {
			// A stat moved (or a folder the layout may hold is missing) but no
			// byte did: nothing to store.
			return &format.Read{Layout: string(prev.Snapshot.Unit.Layout), Unchanged: true, Stamp: raw}, nil
		}
	}
	return build(prev, conv, next, reset, rewritten)
}

// parseStamp reads a stamp of the source at path; raw is nil when there is none,
// it is unreadable, or it is of a source that was elsewhere (read in full then).
func parseStamp(path string, raw []byte) (stamp, []byte) {
	var prev stamp
	if raw != nil {
		if err := json.Unmarshal(raw, &prev); err != nil || prev.Snapshot.Unit.Path != path {
			return stamp{}, nil
		}
	}
	return prev, raw
}

// ReadAdded is ReadSource for a folder conversation whose writer says which
// files it added or replaced since stamp (format.AddedReader): it reads those
// alone (Reader.ReadAdded), and reads as ReadSource does without a usable stamp
// or for a layout it does not serve.
func (f Format) ReadAdded(ctx context.Context, path string, raw []byte, added []string) (*format.Read, error) {
	prev, raw := parseStamp(path, raw)
	if raw == nil {
		return f.ReadSource(ctx, path, nil)
	}
	d, ok, err := NewReader().ReadAdded(ctx, prev.Snapshot, added)
	if err != nil {
		return nil, err
	}
	if !ok {
		return f.ReadSource(ctx, path, raw)
	}
	conv := d.Conversation
	if len(conv.Records) == 0 && len(conv.Files) == 0 && len(conv.Problems) == 0 {
		return &format.Read{Layout: string(prev.Snapshot.Unit.Layout), Unchanged: true, Stamp: raw}, nil
	}
	return build(prev, conv, d.Next, false, nil)
}

// build is the archive's read of what a read of a conversation found: conv,
// the whole conversation (reset) or what is new since prev, and next, the
// snapshot to keep.
func build(prev stamp, conv *Conversation, next Snapshot, reset bool, rewritten []string) (*format.Read, error) {
	// A file this machine could not read (permission, I/O error, vanished) is a
	// fault to report and retry, never a damaged conversation to archive as such.
	if err := conv.Fault(); err != nil {
		return nil, err
	}
	st := prev
	if reset {
		st = stamp{}
	}
	st.Snapshot = next
	out := &format.Read{Layout: string(conv.Unit.Layout), Reset: reset, Rewritten: rewritten,
		Events: int64(len(next.EventIDs))}
	out.Session = facts(conv)
	// Forgotten events are named by id; a delta's may be in the snapshot only.
	seqOf := make(map[string]int64, len(next.EventIDs))
	for i, id := range next.EventIDs {
		if _, dup := seqOf[id]; !dup {
			seqOf[id] = int64(i)
		}
	}
	// For a partial stamp (StampAt): the conversation record each archive record
	// is, and the usage counted before it.
	var from []int
	var usageAt []Usage
	for i, p := range projectAll(conv.Records, seqOf, !conv.Unit.Layout.SingleFile()) {
		rec, u := p.rec, p.usage
		if !p.ok {
			continue
		}
		from, usageAt = append(from, i), append(usageAt, st.Usage)
		if len(out.Records) == 0 && st.Model == "" && conv.Meta.Model != "" {
			st.Model = conv.Meta.Model
			rec.Items = append(rec.Items, format.ModelItem{Model: conv.Meta.Model})
		}
		rec.Items = addUsage(rec.Items, u, &st.Usage)
		out.Records = append(out.Records, rec)
	}
	if len(out.Records) == 0 && st.Model == "" && conv.Meta.Model != "" {
		// A side file alone changed and names the model: no record carries it.
		st.Model = conv.Meta.Model
		out.Model = &format.ModelItem{Model: conv.Meta.Model}
	}
	// A delta's metadata is of what it read: a title from its first user
	// message is not the conversation's when one is archived already.
	title, titleFrom := conv.Meta.Title, conv.Meta.TitleFrom
	if reset {
		st.Titled, st.TitledFrom = title, titleFrom
	} else if titleFrom == "first-user-message" || title == "" {
		title, titleFrom = st.Titled, st.TitledFrom
		if st.Title != "" {
			title = "" // the archived title stands
		}
	}
	if n := len(out.Records); title != "" && title != st.Title {
		st.Title = title
		it := format.TitleItem{Title: title, Source: &titleFrom}
		if n > 0 {
			out.Records[n-1].Items = append(out.Records[n-1].Items, it)
		} else {
			out.Title = &it // a side file alone changed: a title of its own
		}
	}
	if n := len(out.Records); n > 0 && conv.Meta.Usage.PromptTokens+conv.Meta.Usage.CompletionTokens > 0 {
		// The side files' totals (base_state stats, meta.json) are the latest
		// cumulative figures: what the events' own stats did not reach is added.
		out.Records[n-1].Items = addUsage(out.Records[n-1].Items, &conv.Meta.Usage, &st.Usage)
	}
	verdict, problem, warnings := problems(conv)
	if reset {
		st.Verdict, st.Problem, st.Warnings = verdict, problem, warnings
	} else {
		// A torn tail is where the last read stopped, and this read began there:
		// it says again whether the tail is still torn. A line finished since is
		// no damage, and must not stay a "recovered" verdict for good.
		st.Warnings = slices.DeleteFunc(st.Warnings, func(p format.Problem) bool { return p.Kind == format.Kind(ProblemTornTail) })
		if st.Problem != nil && st.Problem.Kind == format.Kind(ProblemTornTail) {
			st.Verdict, st.Problem = format.VerdictOK, nil
		}
		st.Warnings = append(st.Warnings, warnings...)
		if worse(verdict, st.Verdict) {
			st.Verdict, st.Problem = verdict, problem
		}
	}
	if st.Verdict == "" {
		st.Verdict = format.VerdictOK
	}
	out.Verdict, out.Problem, out.Warnings = st.Verdict, st.Problem, st.Warnings
	for _, f := range conv.Files {
		out.Files = append(out.Files, format.File{Name: f.Name, Role: string(f.Role), Size: f.Size,
			ModTime: f.ModTime.UnixNano(), Hash: f.Hash, Data: f.Data,
			Append: !reset && conv.Unit.Layout == LayoutJSONL})
		out.Bytes += f.Size
		out.FilesRead++
	}
	b, err := json.Marshal(st)
	if err != nil {
		return nil, err
	}
	out.Stamp = b
	if reset && !conv.Unit.Layout.SingleFile() {
		out.StampAt = func(n int) []byte { return partialStamp(conv, next, st, from, usageAt, n) }
	}
	return out, nil
}

// partialStamp is the stamp of a folder conversation read in full as far as its
// first n archive records: its side files, the event files of those records, and
// their ids. ReadSince from it reads the remaining event files as new.
func partialStamp(c *Conversation, next Snapshot, st stamp, from []int, usageAt []Usage, n int) []byte {
	if n <= 0 || n > len(from) {
		return nil
	}
	last := from[n-1]
	files := map[string]bool{}
	for _, r := range c.Records[:last+1] {
		files[r.File] = true
	}
	part := stamp{Snapshot: Snapshot{Unit: next.Unit, EventIDs: next.EventIDs[:last+1]},
		Model: st.Model, Verdict: format.VerdictOK, Titled: st.Titled, TitledFrom: st.TitledFrom}
	if n < len(usageAt) {
		part.Usage = usageAt[n]
	} else {
		part.Usage = st.Usage
	}
	for _, f := range next.Files {
		if f.Role != RoleEvent || files[f.Name] {
			part.Snapshot.Files = append(part.Snapshot.Files, f)
		}
	}
	for _, w := range st.Warnings {
		if name, _, ok := strings.Cut(w.Message, ": "); !ok || !strings.HasPrefix(name, "events/") && !strings.HasPrefix(name, "event-") || files[name] {
			part.Warnings = append(part.Warnings, w)
		}
	}
	b, _ := json.Marshal(part)
	return b
}

// projected is one record's projection (see project).
type projected struct {
	rec   format.Record
	usage *Usage
	ok    bool
}

// projectAll projects records on every core: decoding each event's JSON again
// is most of an import's work. ownFiles is true when each record is a file of
// its own (a folder layout).
func projectAll(records []Record, seqOf map[string]int64, ownFiles bool) []projected {
	out := make([]projected, len(records))
	workers := min(runtime.GOMAXPROCS(0), max(1, len(records)/64))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(records); i += workers {
				p := &out[i]
				p.rec, p.usage, p.ok = project(records[i], seqOf, ownFiles)
			}
		}()
	}
	wg.Wait()
	return out
}

// addUsage adds to items the increase of the cumulative totals cur (nil when
// the event reports none) over seen, which they then raise.
func addUsage(items []format.Item, cur, seen *Usage) []format.Item {
	if cur == nil {
		return items
	}
	d := format.UsageItem{
		Input:     max(0, cur.PromptTokens-seen.PromptTokens),
		Output:    max(0, cur.CompletionTokens-seen.CompletionTokens),
		Reasoning: max(0, cur.ReasoningTokens-seen.ReasoningTokens),
		CacheRead: max(0, cur.CacheReadTokens-seen.CacheReadTokens),
	}
	seen.max(*cur)
	if d != (format.UsageItem{}) {
		items = append(items, d)
	}
	return items
}

// facts are the session facts of a conversation.
func facts(c *Conversation) format.SessionFacts {
	f := format.SessionFacts{ID: NormalizeID(firstNonEmpty(c.Meta.ConversationID, c.Unit.SessionID)),
		Parent: firstNonEmpty(c.Meta.ParentID, c.Meta.ForkedFrom)}
	if c.Unit.SessionID != "" {
		f.ID = NormalizeID(c.Unit.SessionID)
	}
	if t, ok := ParseTime(c.Meta.CreatedAt, time.UTC); ok {
		f.CreatedAt = t.UnixMilli()
	}
	head := struct {
		Format   string   `json:"format"`
		Layout   Layout   `json:"layout"`
		Path     string   `json:"path"`
		Metadata Metadata `json:"metadata"`
	}{"openhands", c.Unit.Layout, c.Unit.Path, c.Meta}
	f.Raw, _ = json.Marshal(head)
	return f
}

// problems maps a read's problems onto the archive's: errors make the verdict
// and its problem, and everything else (warnings, and notes such as unknown
// event kinds or skipped pickles) is a warning of an ok conversation.
func problems(c *Conversation) (format.Verdict, *format.Problem, []format.Problem) {
	v := format.Verdict(c.Verdict)
	if v == "" {
		v = format.VerdictOK
	}
	var warnings []format.Problem
	// A problem about an event file that is a record is placed at the record's
	// line; one about a JSONL line keeps that line.
	lineOf := map[string]int64{}
	for _, r := range c.Records {
		if r.Line == 0 {
			lineOf[r.File] = int64(r.Index) + 2
		}
	}
	for _, p := range c.Problems {
		fp := format.Problem{Kind: format.Kind(p.Kind), Line: int64(p.Line), Offset: p.Offset, Message: p.Message}
		if fp.Line == 0 {
			fp.Line = lineOf[p.File]
		}
		if p.File != "" {
			fp.Message = p.File + ": " + p.Message
		}
		warnings = append(warnings, fp)
	}
	// The problem that made the verdict: the first error, or for a recovered
	// conversation the first warning.
	if v != format.VerdictOK {
		if i := firstOf(c.Problems, SeverityError, SeverityWarning); i >= 0 {
			problem := warnings[i]
			rest := make([]format.Problem, 0, len(warnings)-1)
			rest = append(append(rest, warnings[:i]...), warnings[i+1:]...)
			return v, &problem, rest
		}
	}
	return v, nil, warnings
}

// firstOf is the index of the first problem of the first severity any problem
// has, in the order given, or -1.
func firstOf(ps []Problem, sevs ...Severity) int {
	for _, sev := range sevs {
		for i, p := range ps {
			if p.Severity == sev {
				return i
			}
		}
	}
	return -1
}

func worse(a, b format.Verdict) bool {
	rank := map[format.Verdict]int{format.VerdictOK: 0, format.VerdictRecovered: 1, format.VerdictCorrupt: 2, format.VerdictUnsupported: 3}
	return rank[a] > rank[b]
}

// eventType is the archive's type of an event: the V1 kind ("ActionEvent"), or
// for V0 "action/<type>" and "observation/<type>".
func eventType(ev Event) string {
	if ev.Dialect == DialectV0 {
		if ev.Action != "" {
			return "action/" + ev.Action
		}
		return "observation/" + ev.Observation
	}
	return ev.Kind
}

// project turns one event into its archive record at line seq+2 (the archive's
// line 1 is a session's header, here a summary of its side files): the event's JSON on one line,
// its events row, and the items the neutral projection gives it alone (tool
// results pair with their calls in the store, by the action's event id). ownFile
// is true when r.File holds r's bytes and nothing else (a folder layout's file).
func project(r Record, seqOf map[string]int64, ownFile bool) (format.Record, *Usage, bool) {
	// An event already on one line (the EventLog's compact JSON) is kept as
	// written; a pretty-printed one loses only its insignificant whitespace (its
	// file keeps every byte).
	raw := r.Raw
	if bytes.IndexByte(raw, '\n') >= 0 {
		var line bytes.Buffer
		if json.Compact(&line, raw) != nil {
			return format.Record{}, nil, false
		}
		raw = line.Bytes()
	}
	seq := int64(r.Index)
	t := int64(0)
	key := &format.EventKey{ID: r.Event.ID}
	if tm, ok := ParseTime(r.Event.Timestamp, time.UTC); ok {
		t, key.Time = tm.UnixMilli(), format.TimeKey(tm)
	}
	if ownFile {
		key.File = r.File
	}
	out := format.Record{Line: seq + 2, Raw: raw, FirstSeq: seq, LastSeq: seq, Events: 1,
		FirstTime: t, LastTime: t,
		Event: &format.Event{Seq: seq, Time: t, Type: eventType(r.Event), Surface: "current", Key: key}}
	var usage *Usage
	out.Items, usage = items(r, seqOf)
	// The log names no turns: a person's prompt starts the next one.
	for _, it := range out.Items {
		if m, ok := it.(format.MessageItem); ok && format.IsPrompt(m.Role, m.Kind) {
			out.Event.NextTurn = true
			out.Items = append(out.Items, format.TurnStartItem{})
			break
		}
	}
	return out, usage, true
}

// items are what the views derive from one event, and the cumulative usage it
// reports, if any.
func items(r Record, seqOf map[string]int64) ([]format.Item, *Usage) {
	p := Project([]Record{r})
	var out []format.Item
	var reasoning []string
	for _, x := range p.Reasoning {
		reasoning = append(reasoning, x.Text)
	}
	for _, m := range p.System {
		out = append(out, format.MessageItem{Role: "user", Kind: "injected", SourceKind: "system", Plugin: "system-prompt", Text: m.Text})
	}
	for _, m := range p.Messages {
		it := format.MessageItem{Role: "user", Kind: "human", SourceKind: m.Role, ID: m.ResponseID, Text: m.Text}
		if m.Role != "user" {
			it.Role, it.Kind, it.Reasoning = "assistant", "assistant", strings.Join(reasoning, "\n\n")
			reasoning = nil
		}
		out = append(out, it)
	}
	for _, c := range p.ToolCalls {
		if c.Thought != "" || len(reasoning) > 0 {
			out = append(out, format.MessageItem{Role: "assistant", Kind: "assistant", SourceKind: "agent",
				ID: c.ResponseID, Text: c.Thought, Reasoning: strings.Join(reasoning, "\n\n")})
			reasoning = nil
		}
		out = append(out, format.ToolCallItem{CallID: callID(c.ActionKind, c.EventID, c.ToolCallID), Name: c.Name, Arguments: string(c.Arguments)})
		if c.Result != nil { // an ACP call carries its own output
			out = append(out, resultItems(*c.Result, callID(c.ActionKind, c.EventID, c.ToolCallID))...)
		}
	}
	if len(reasoning) > 0 {
		out = append(out, format.MessageItem{Role: "assistant", Kind: "assistant", SourceKind: "agent", Reasoning: strings.Join(reasoning, "\n\n")})
	}
	for _, res := range p.Orphans {
		id := res.ActionID
		if id == "" {
			id = "acp:" + res.ToolCallID
		}
		out = append(out, resultItems(res, id)...)
	}
	for _, c := range p.Compactions {
		sum := format.CompactionSummaryItem{ID: c.EventID, Summary: c.Summary, ShadowedStart: c.RangeStart, ShadowedEnd: c.RangeEnd}
		for _, id := range c.Forgotten {
			if s, ok := seqOf[id]; ok {
				sum.ShadowedSeqs = append(sum.ShadowedSeqs, s)
			}
		}
		out = append(out, format.CompactionStartItem{ID: c.EventID}, sum, format.CompactionEndItem{ID: c.EventID})
	}
	tool := ""
	if len(p.ToolCalls) > 0 {
		tool = p.ToolCalls[0].Name
	}
	for _, a := range p.Approvals {
		id := firstNonEmpty(a.ActionID, a.EventID)
		switch a.Decision {
		case ApprovalRequested:
			out = append(out, format.ApprovalAskedItem{ID: id, CallID: a.ActionID, Reason: "waiting for confirmation"})
		case ApprovalRisk:
			// The action's risk rating, keyed by the action: a rejection of it
			// (UserRejectObservation names the action) is its decision.
			out = append(out, format.ApprovalAskedItem{ID: id, ToolName: tool, CallID: a.ActionID, Reason: "security risk: " + a.Risk})
		case ApprovalRejected, ApprovalBlocked:
			out = append(out, format.ApprovalDecidedItem{ID: id, Outcome: string(a.Decision)})
		case ApprovalPolicy:
			out = append(out, format.SettingItem{Setting: format.SettingApprovalPolicy, Value: a.By})
		}
	}
	var usage *Usage
	for _, s := range p.States {
		if s.Usage != nil {
			usage = s.Usage
		}
	}
	return out, usage
}

// callID is the id pairing a call with its result: the action's event id (an
// observation names it as action_id, V0 as cause), or the ACP tool call id.
func callID(actionKind, eventID, toolCallID string) string {
	if actionKind == "ACPToolCallEvent" && toolCallID != "" {
		return "acp:" + toolCallID
	}
	return eventID
}

func resultItems(res ToolResult, id string) []format.Item {
	r := format.ToolResultItem{CallID: id, IsError: res.IsError || res.Kind != ResultObservation}
	if res.Kind != ResultObservation {
		r.ErrorName = string(res.Kind)
	}
	if res.ExitCode != nil && *res.ExitCode != 0 {
		r.ErrorCode = fmt.Sprint(*res.ExitCode)
	}
	return []format.Item{r, format.MessageItem{Role: "tool", Kind: "tool_result", SourceKind: res.ObservationKind, Text: res.Text, CallID: id}}
}

// Record projects an archived record again (format.Format). Compactions name
// their forgotten events by id, which one record cannot place: the timeline
// reads only the IDs linking an event to its rows.
func (Format) Record(line int64, raw []byte) (format.Record, bool) {
	ev, body, err := decodeEvent(raw)
	if err != nil {
		return format.Record{}, false
	}
	rec, _, ok := project(Record{Index: int(line - 2), Raw: raw, Event: ev, body: body}, nil, false)
	return rec, ok
}

// Timeline says what OpenHands event types are to the timeline (format.Format).
func (Format) Timeline() format.TimelineTypes {
	return format.TimelineTypes{
		Skipped:         []string{"CondensationRequest", "TokenEvent"},
		Messages:        []string{"MessageEvent", "SystemPromptEvent", "ObservationEvent", "UserRejectObservation", "AgentErrorEvent", "action/message"},
		ToolResults:     []string{"ObservationEvent", "UserRejectObservation", "AgentErrorEvent"},
		ToolCalls:       []string{"ActionEvent"},
		Compactions:     []string{"Condensation", "CondensationSummaryEvent", "action/condensation"},
		CompactionParts: []string{},
		PromptTurns:     true,
	}
}

// Marker describes an event the timeline shows as a marker: its type, and for a
// state update the key and value it set (format.Format).
func (Format) Marker(typ string, raw []byte, _ format.MarkerInfo) *format.Marker {
	m := &format.Marker{Label: typ}
	var st struct {
		Key   string          `json:"key"`
		Value json.RawMessage `json:"value"`
	}
	if typ == "ConversationStateUpdateEvent" && json.Unmarshal(raw, &st) == nil && st.Key != "" {
		m.Label = "state: " + st.Key
		if s := stringOf(st.Value); s != "" {
			m.Label += " = " + s
			m.Status = s
		}
	}
	return m
}

// StateTypes: OpenHands state updates each set one key, not a part of the state
// as a whole, so none replaces the last of its type (format.Format).
func (Format) StateTypes() []string { return nil }

// ScheduleFold: OpenHands has no scheduled prompts (format.Format).
func (Format) ScheduleFold() format.ScheduleFold { return noSchedules{} }

type noSchedules struct{}

func (noSchedules) Apply(int64, []byte) *format.Problem { return nil }
func (noSchedules) Schedules() []format.Schedule        { return nil }
