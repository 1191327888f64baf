package archive

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/klauspost/compress/s2"

	"github.com/logbook/logbook/archive/format"
)

// projState is the per-session state the projection carries across incremental
// imports; it is stored as JSON in sessions.state.
type projState struct {
	Models      []string `json:"models"`
	Title       string   `json:"title"`
	TitleSource string   `json:"titleSource"`
	FirstTime   *int64   `json:"firstTime"`
	LastTime    int64    `json:"lastTime"`
	Records     int64    `json:"records"`
	Events      int64    `json:"events"`
	LastSeq     int64    `json:"lastSeq"`
	Turns       int64    `json:"turns"`
	Messages    int64    `json:"messages"`
	ToolCalls   int64    `json:"toolCalls"`
	Tokens      Tokens   `json:"tokens"`
	Policy      string   `json:"policy"`
	Sandbox     string   `json:"sandbox"`
	Preset      string   `json:"preset"`
	LastEndSeed *int64   `json:"lastEndSeed"`
	// OpenTurn is the turn between turn/start and turn/end: events whose data names
	// no turn (user/message, approval/asked, …) belong to it.
	OpenTurn *int64 `json:"openTurn,omitempty"`
}

// projector writes one session's records and the views derived from them inside the
// import transaction, with the store's prepared statements bound to it.
type projector struct {
	ctx    context.Context
	pk     int64
	st     projState
	tx     *sql.Tx
	s      *Store // whose statements, bound to tx, the projection runs (txStmt)
	events []any  // queued events rows, eventColumns values each
	blocks *blockWriter
	// Tool calls and approvals waiting for their other half (projectpairs.go).
	toolCalls, approvals pairedQueue
	// scheduleChanges counts the schedule changes stored, so an import can
	// skip re-folding schedules when there are none.
	scheduleChanges int
}

// projectorSQL holds every statement the projection runs, by name.
var projectorSQL = withPaired(map[string]string{
	"events": eventsInsert(eventBatch),
	"scheduleChange": `INSERT INTO schedule_changes (session_pk, seq, line, raw) VALUES (?, ?, ?, ?)
		ON CONFLICT (session_pk, seq) DO NOTHING`,
	"shadow": `UPDATE events SET surface = 'shadowed', shadowed_by = ?
		WHERE session_pk = ? AND seq = ?`,
	"message": `INSERT INTO messages (session_pk, seq, time, turn, step, role, kind, source_kind, plugin, message_id, text, reasoning, provider, model, interrupted, call_id)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (session_pk, seq) DO NOTHING`,
	"compactionStart": `INSERT INTO compactions (session_pk, compaction_id, kind, turn, start_seq, started_at, status)
		VALUES (?, ?, 'compaction', ?, ?, ?, 'open')
		ON CONFLICT (session_pk, compaction_id) DO UPDATE SET
			turn = excluded.turn, start_seq = excluded.start_seq, started_at = excluded.started_at`,
	"compactionSummary": `INSERT INTO compactions (session_pk, compaction_id, kind, summary_seq, summary, shadowed_start, shadowed_end, shadowed_seqs, shadowed_tokens, provider, model, status)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (session_pk, compaction_id) DO UPDATE SET
			summary_seq = excluded.summary_seq, summary = excluded.summary, shadowed_start = excluded.shadowed_start,
			shadowed_end = excluded.shadowed_end, shadowed_seqs = excluded.shadowed_seqs,
			shadowed_tokens = excluded.shadowed_tokens, provider = excluded.provider, model = excluded.model`,
	// A re-projection writes the same rows again: the usage a seq reported is replaced, not added.
	"usage": `INSERT INTO usage (session_pk, seq, time, turn, input, output, reasoning, cache_read)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (session_pk, seq) DO UPDATE SET
			time = excluded.time, turn = excluded.turn, input = excluded.input, output = excluded.output,
			reasoning = excluded.reasoning, cache_read = excluded.cache_read`,
	"compactionReplace": `UPDATE compactions SET replace_seq = ? WHERE session_pk = ? AND compaction_id = ?`,
	"compactionEnd": `INSERT INTO compactions (session_pk, compaction_id, kind, turn, end_seq, ended_at, error, status)
		VALUES (?, ?, 'compaction', ?, ?, ?, ?, ?)
		ON CONFLICT (session_pk, compaction_id) DO UPDATE SET
			end_seq = excluded.end_seq, ended_at = excluded.ended_at, error = excluded.error, status = excluded.status`,
})

// toolCalls: a tool call (a) and its result (b). A result alone (its call not
// seen yet) inserts the row with no name or arguments, placed at the result.
var toolCalls = pairedTable{name: "toolCalls", table: "tool_calls", key: "call_id",
	a: []string{"name", "arguments", "turn", "step", "call_seq", "call_time"},
	b: []string{"result_seq", "result_time", "output", "is_error", "error_name", "error_code"}}

// approvals: an approval asked (a) and decided (b).
var approvals = pairedTable{name: "approvals", table: "approvals", key: "approval_id",
	a: []string{"tool_name", "call_id", "reason", "turn", "asked_seq", "asked_at", "policy", "sandbox_mode", "permission_preset"},
	b: []string{"decided_seq", "decided_at", "outcome"}}

// withPaired adds the INSERTs of the paired tables to statements.
func withPaired(statements map[string]string) map[string]string {
	for _, t := range []pairedTable{toolCalls, approvals} {
		for name, q := range t.inserts() {
			statements[name] = q
		}
	}
	return statements
}

// eventsName names the INSERT of n events rows: eventBatch, or a power of two
// up to eventTail. The smaller ones write what is left of the queue at a
// session's end (Store.prepare prepares them): a small session's events are all
// left over.
func eventsName(n int) string {
	if n == eventBatch {
		return "events"
	}
	return "events" + strconv.Itoa(n)
}

// eventBatch is how many events rows one INSERT writes. Events are most of the rows
// an import writes, and per statement database/sql and the driver cost more than
// SQLite's own work for a row.
//
// And a statement of several rows inside a transaction keeps a statement
// journal (the foreign key to sessions may abort it halfway): a copy of each
// page it changes that existed when it began, in a temporary file past 64 KiB.
// An event's id is random, so each row of a statement changes a leaf of
// events_api_id of its own until the statement has touched them all: at 64
// rows a statement, a 5,000-event conversation journaled about a page a row
// (~20 MB); at 256, a third of that. A statement of 256 rows costs some 4 ms to
// prepare when the archive opens, so the statements that write what is left
// stop at eventTail.
const eventBatch = 256

// eventTail is the largest of the INSERTs that write what is left of the queue:
// one row. An INSERT of one row keeps no statement journal (SQLite aborts it
// before it writes anything), and in the transaction a batch of small files
// shares (writeBatch) the journal costs more than the statements it saves:
// once one statement's journal passes 64 KiB (four 16 KiB pages, a split of a
// leaf of events), SQLite keeps it in a file for the rest of the transaction,
// two writes a page. Written a row a statement, the dozen events of a small
// session cost a quarter less than in two statements of 8 and 4 rows.
const eventTail = 1

// eventColumns is the number of values of one events row.
const eventColumns = 13

// Positions of the values a queued events row may still change (see shadow).
const (
	eventSeqColumn        = 1
	eventSurfaceColumn    = 7
	eventShadowedByColumn = 9
)

// eventsInsert returns the INSERT of n events rows.
func eventsInsert(n int) string {
	row := "(" + strings.Repeat("?, ", eventColumns-1) + "?)"
	return `INSERT INTO events (session_pk, seq, line, type, time, turn, step, surface, source_seqs, shadowed_by, event_id, pos, file)
		VALUES ` + strings.Repeat(row+", ", n-1) + row + `
		ON CONFLICT (session_pk, seq) DO NOTHING`
}

// newProjector starts projecting into tx with the store's prepared statements (see
// Store.prepare), bound to the transaction.
func newProjector(ctx context.Context, tx *sql.Tx, s *Store, pk int64, st projState) *projector {
	// Statements run without the caller's cancellation: a cancellable context makes the
	// driver start a watcher per statement, which costs more than the insert. The
	// import loop checks for cancellation between records instead.
	ctx = context.WithoutCancel(ctx)
	p := &projector{ctx: ctx, pk: pk, st: st, tx: tx, s: s,
		toolCalls: pairedQueue{t: &toolCalls}, approvals: pairedQueue{t: &approvals}}
	p.blocks = newBlockWriter(ctx, s.txStmt(ctx, tx, blockInsertName), pk, s.zenc, &s.blockBufs, s.workers.run)
	return p
}

// flush stores the lines gathered so far and waits for them; call it before
// committing. The projector cannot take more records afterwards.
func (p *projector) flush() error {
	if err := p.flushEvents(); err != nil {
		return err
	}
	return p.blocks.wait()
}

// addEvent queues one events row, writing the queue when a batch is full.
func (p *projector) addEvent(args ...any) error {
	p.events = append(p.events, args...)
	if len(p.events) < eventBatch*eventColumns {
		return nil
	}
	err := p.exec("events", p.events...)
	p.events = p.events[:0]
	return err
}

// flushEvents writes the queued events rows, and the tool calls and approvals
// still waiting for their other half.
func (p *projector) flushEvents() error {
	if err := p.toolCalls.flush(p); err != nil {
		return err
	}
	if err := p.approvals.flush(p); err != nil {
		return err
	}
	for rows := len(p.events) / eventColumns; rows > 0; {
		n := eventTail
		for n > rows {
			n /= 2
		}
		if err := p.exec(eventsName(n), p.events[len(p.events)-rows*eventColumns:][:n*eventColumns]...); err != nil {
			return err
		}
		rows -= n
	}
	p.events = p.events[:0]
	return nil
}

func (p *projector) close() {
	p.blocks.close()
}

func (p *projector) exec(name string, args ...any) error {
	if _, err := p.s.txStmt(p.ctx, p.tx, name).ExecContext(p.ctx, args...); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// record stores one record and writes its events row and view items.
func (p *projector) record(rec *format.Record) error {
	if bytes.IndexByte(rec.Raw, '\n') >= 0 {
		// Blocks frame records by newlines: such a record would come back as two.
		return fmt.Errorf("record at line %d holds a newline, which the archive cannot keep", rec.Line)
	}
	if err := p.blocks.add(rec.Line, rec.FirstSeq, rec.LastSeq, rec.Raw); err != nil {
		return err
	}
	p.st.Records++
	p.st.Events += rec.Events
	p.st.LastSeq = rec.LastSeq
	p.times(rec.FirstTime, rec.LastTime)
	ev := rec.Event
	if ev == nil {
		return nil // kept in the blocks only
	}
	turn, step := intArg(ev.Turn), intArg(ev.Step)
	switch {
	case ev.NextTurn:
		// Numbered by the turns started before it (TurnStartItem counts them).
		t := p.st.Turns + 1
		p.st.OpenTurn, turn = &t, t
	case ev.TurnStarts && ev.Turn != nil:
		t := *ev.Turn
		p.st.OpenTurn = &t
	case ev.Turn == nil && p.st.OpenTurn != nil && !ev.NamesTurn:
		turn = *p.st.OpenTurn
	}
	if ev.TurnEnds {
		p.st.OpenTurn = nil
	}
	var sourceSeqs any
	if ev.HasSourceSeqs {
		sourceSeqs = ev.SourceSeqs
	}
	// The events API's key (migration 0006): NULL pos keeps a row out of its indexes.
	var id, pos, file any
	if k := ev.Key; k != nil {
		id, pos, file = k.ID, eventPos(k.Time, ev.Seq), nullStr(k.File)
	}
	if err := p.addEvent(p.pk, ev.Seq, rec.Line, ev.Type, ev.Time, turn, step, ev.Surface, sourceSeqs, nil, id, pos, file); err != nil {
		return err
	}
	at := eventAt{seq: ev.Seq, time: ev.Time, line: rec.Line, raw: rec.Raw, turn: turn, step: step}
	for _, it := range rec.Items {
		if err := p.item(at, it); err != nil {
			return err
		}
	}
	return nil
}

// intArg is an optional integer as a statement argument: nil or its value.
func intArg(v *int64) any {
	if v == nil {
		return nil
	}
	return *v
}

// times folds the times of a record's events into the session's first and last
// time: first is the time of its first event, latest the latest of them all.
func (p *projector) times(first, latest int64) {
	if p.st.FirstTime == nil {
		p.st.FirstTime = &first
	}
	p.st.LastTime = max(p.st.LastTime, latest)
}

// shadow marks a surface node as replaced.
func (p *projector) shadow(sp format.Shadow) error {
	for i := 0; i < len(p.events); i += eventColumns {
		if p.events[i+eventSeqColumn] == any(sp.Seq) { // not written yet: mark it in the queue
			p.events[i+eventSurfaceColumn], p.events[i+eventShadowedByColumn] = "shadowed", sp.By
			return nil
		}
	}
	return p.exec("shadow", sp.By, p.pk, sp.Seq)
}

// eventAt is the event a view item comes from: its seq and time, its archived line
// and the turn and step the events row places it in (nil when none).
type eventAt struct {
	seq, time, line int64
	raw             []byte
	turn, step      any
}

// item writes one view item a format derived from an event into the derived views
// and the session's totals.
func (p *projector) item(at eventAt, it format.Item) error {
	seq, t, turn, step := at.seq, at.time, at.turn, at.step
	switch it := it.(type) {
	case format.MessageItem:
		if it.Role != "tool" {
			p.st.Messages++
		}
		return p.exec("message", p.pk, seq, t, turn, step, it.Role, it.Kind, it.SourceKind, nullStr(it.Plugin),
			nullStr(it.ID), p.pack(it.Text), p.pack(it.Reasoning), nullStr(it.Provider), nullStr(it.Model),
			boolInt(it.Interrupted), nullStr(it.CallID))
	case format.UsageItem:
		p.st.Tokens.Input += it.Input
		p.st.Tokens.Output += it.Output
		p.st.Tokens.Reasoning += it.Reasoning
		p.st.Tokens.CacheRead += it.CacheRead
		return p.exec("usage", p.pk, seq, t, turn, it.Input, it.Output, it.Reasoning, it.CacheRead)
	case format.ModelItem:
		p.addModel(it.Provider, it.Model)
	case format.ToolCallItem:
		p.st.ToolCalls++
		return p.toolCalls.setA(p, it.CallID, []any{it.Name, it.Arguments, turn, step, seq, t},
			[]any{nil, nil, nil, 0, nil, nil})
	case format.ToolResultItem:
		return p.toolCalls.setB(p, it.CallID, []any{seq, t, nil, boolInt(it.IsError), nullStr(it.ErrorName), nullStr(it.ErrorCode)},
			[]any{"", "", turn, step, seq, t})
	case format.SettingItem:
		switch it.Setting {
		case format.SettingApprovalPolicy:
			p.st.Policy = it.Value
		case format.SettingSandboxMode:
			p.st.Sandbox = it.Value
		case format.SettingPermissionPreset:
			p.st.Preset = it.Value
		}
	case format.ApprovalAskedItem:
		return p.approvals.setA(p, it.ID, []any{it.ToolName, nullStr(it.CallID), nullStr(it.Reason), turn, seq, t,
			nullStr(p.st.Policy), nullStr(p.st.Sandbox), nullStr(p.st.Preset)}, []any{nil, nil, nil})
	case format.ApprovalDecidedItem:
		return p.approvals.setB(p, it.ID, []any{seq, t, it.Outcome}, make([]any, len(approvals.a)))
	case format.CompactionStartItem:
		return p.exec("compactionStart", p.pk, it.ID, turn, seq, t)
	case format.CompactionSummaryItem:
		seqs, _ := json.Marshal(orEmpty(it.ShadowedSeqs))
		kind, status := "compaction", "open"
		if it.Prune {
			kind, status = "prune", "ok" // a prune is complete at once
		}
		return p.exec("compactionSummary", p.pk, it.ID, kind, seq, it.Summary, it.ShadowedStart, it.ShadowedEnd,
			string(seqs), it.ShadowedTokens, nullStr(it.Provider), nullStr(it.Model), status)
	case format.CompactionReplaceItem:
		return p.exec("compactionReplace", seq, p.pk, it.ID)
	case format.CompactionEndItem:
		status, errText := "ok", any(nil)
		if it.Failed {
			status, errText = "failed", it.Error
		}
		return p.exec("compactionEnd", p.pk, it.ID, turn, seq, t, errText, status)
	case format.TitleItem:
		p.st.Title = it.Title
		if it.Source != nil {
			p.st.TitleSource = *it.Source
		}
	case format.ScheduleChangeItem:
		p.scheduleChanges++
		return p.exec("scheduleChange", p.pk, seq, at.line, string(at.raw))
	case format.TurnStartItem:
		p.st.Turns++
	case format.EndSeedItem:
		s := seq
		p.st.LastEndSeed = &s
	}
	return nil
}

func (p *projector) addModel(provider, model string) {
	if model == "" {
		return
	}
	name := model
	if provider != "" {
		name = provider + "/" + model
	}
	if !slices.Contains(p.st.Models, name) {
		p.st.Models = append(p.st.Models, name)
	}
}

// packAbove is the text length from which derived text is stored zstd-compressed.
const packAbove = 512

// pack returns text for a TEXT column, or its S2 compression as a BLOB when it is
// long enough to be worth it: derived text would otherwise be most of the archive.
// SQLite keeps the two apart by type, so unpackText needs no marker. S2 rather than
// zstd because an import packs every message: on texts of a few KiB S2 is four times
// faster, for a ratio some 15% worse (the blocks keep every byte at zstd's ratio).
func (p *projector) pack(text string) any {
	if len(text) < packAbove {
		return text
	}
	return s2.Encode(nil, []byte(text))
}

func nullStr(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func orEmpty(s []int64) []int64 {
	if s == nil {
		return []int64{}
	}
	return s
}
