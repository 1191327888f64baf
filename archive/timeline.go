package archive

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/logbook/logbook/archive/format"
)

// The timeline of a session is built from the events table, one row per logical event
// except stream chunks. An event is an item unless its type is plumbing (skipped) or
// it is folded into another item: a tool result into its tool call, an approval
// decision into its request, a compaction summary or end into the first event of its
// bracket. Which types are which is each format's to say (format.TimelineTypes; the
// rules below use dsh's names). That rule is one SQL predicate
// (timelineItemWhere), so a page walks the (session_pk, seq) primary key and stops
// after the page. The total counts the same items another way (timelineTotal):
// non-skipped events minus the folded ones, each counted from its derived table, which
// reads every event row once instead of probing three tables per tool result.
//
// The folding rules, stated on the derived rows so both queries agree exactly:
//   - a tool/result is folded when the tool_calls row of its call id has it as
//     result_seq and a tool/call wrote the row (a name, and call_seq <> result_seq:
//     a result seen first inserts the row nameless with its own seq as call_seq);
//   - an approval/decided is folded when its approvals row has an asked_seq;
//   - a compaction/summary or compaction/end is folded when it is not the first
//     event of its compactions row (COALESCE(start_seq, summary_seq, end_seq)).

// timelineTypes say what each event type is to the timeline: those of every format,
// merged (their type names never meet).
var timelineTypes = mergeTimelineTypes(formats())

func mergeTimelineTypes(fs []format.Format) format.TimelineTypes {
	var t format.TimelineTypes
	for _, f := range fs {
		ft := f.Timeline()
		t.Skipped = append(t.Skipped, ft.Skipped...)
		t.Messages = append(t.Messages, ft.Messages...)
		t.ToolResults = append(t.ToolResults, ft.ToolResults...)
		t.ToolCalls = append(t.ToolCalls, ft.ToolCalls...)
		t.Asked = append(t.Asked, ft.Asked...)
		t.Decided = append(t.Decided, ft.Decided...)
		t.Compactions = append(t.Compactions, ft.Compactions...)
		t.CompactionParts = append(t.CompactionParts, ft.CompactionParts...)
		t.Turns = append(t.Turns, ft.Turns...)
	}
	return t
}

// sqlList is an SQL list of string literals: ('a', 'b').
func sqlList(vals []string) string {
	quoted := make([]string, len(vals))
	for i, v := range vals {
		quoted[i] = "'" + strings.ReplaceAll(v, "'", "''") + "'"
	}
	return "(" + strings.Join(quoted, ", ") + ")"
}

var skippedList = sqlList(timelineTypes.Skipped)

// compactionAnchorSQL is the seq a compactions row (alias k) is shown at.
const compactionAnchorSQL = `COALESCE(k.start_seq, k.summary_seq, k.end_seq)`

// timelineItemWhere selects the events (alias e) of session ? that are timeline items.
var timelineItemWhere = `e.session_pk = ?
	AND e.type NOT IN ` + skippedList + `
	AND NOT CASE
		WHEN e.type IN ` + sqlList(timelineTypes.ToolResults) + ` THEN EXISTS (
			SELECT 1 FROM messages m
			JOIN tool_calls t ON t.session_pk = m.session_pk AND t.call_id = COALESCE(m.call_id, '')
			WHERE m.session_pk = e.session_pk AND m.seq = e.seq
			  AND t.result_seq = e.seq AND t.call_seq <> t.result_seq AND t.name <> '')
		WHEN e.type IN ` + sqlList(timelineTypes.Decided) + ` THEN EXISTS (
			SELECT 1 FROM approvals a
			WHERE a.session_pk = e.session_pk AND a.decided_seq = e.seq AND a.asked_seq IS NOT NULL)
		WHEN e.type IN ` + sqlList(timelineTypes.CompactionParts) + ` THEN EXISTS (
			SELECT 1 FROM compactions k
			WHERE k.session_pk = e.session_pk AND (k.summary_seq = e.seq OR k.end_seq = e.seq)
			  AND ` + compactionAnchorSQL + ` <> e.seq)
		ELSE 0
	END`

// timelineTotal counts the timeline items of session ?1 (see the rules above).
var timelineTotal = `SELECT
	(SELECT COUNT(*) FROM events e WHERE e.session_pk = ?1 AND e.type NOT IN ` + skippedList + `)
	- (SELECT COUNT(*) FROM tool_calls t
	   WHERE t.session_pk = ?1 AND t.result_seq IS NOT NULL AND t.call_seq <> t.result_seq AND t.name <> '')
	- (SELECT COUNT(*) FROM approvals a
	   WHERE a.session_pk = ?1 AND a.decided_seq IS NOT NULL AND a.asked_seq IS NOT NULL)
	- (SELECT COALESCE(SUM((k.summary_seq IS NOT NULL AND k.summary_seq <> ` + compactionAnchorSQL + `)
	                     + (k.end_seq IS NOT NULL AND k.end_seq <> ` + compactionAnchorSQL + `)), 0)
	   FROM compactions k WHERE k.session_pk = ?1)`

// itemRow is an events row that is a timeline item, before its payload is attached.
type itemRow struct {
	seq, line, time int64
	typ, surface    string
	turn, step, by  sql.NullInt64
}

// timelineSession is the resolved session a timeline is read from.
type timelineSession struct {
	pk         int64
	id         string
	seedLength *int64
	format     string // sessions.format
}

// resolveSession finds a session by id or unambiguous id prefix, as Store.Session does.
func resolveSession(ctx context.Context, tx *sql.Tx, id string) (timelineSession, error) {
	var ts timelineSession
	if id == "" {
		return ts, fmt.Errorf("session %q: %w", id, ErrNotFound)
	}
	var seed sql.NullInt64
	err := tx.QueryRowContext(ctx, `SELECT pk, id, seed_length, format FROM sessions WHERE id = ?`, dashedID(id)).Scan(&ts.pk, &ts.id, &seed, &ts.format)
	if errors.Is(err, sql.ErrNoRows) {
		var n int
		var pk sql.NullInt64
		var full sql.NullString
		err = tx.QueryRowContext(ctx, `
			SELECT MIN(pk), MIN(id), COUNT(*) FROM sessions
			WHERE substr(id, 1, ?) = ?`, len(id), id).Scan(&pk, &full, &n)
		if err != nil {
			return ts, fmt.Errorf("find session %q: %w", id, err)
		}
		if n != 1 {
			return ts, fmt.Errorf("session %q: %w", id, ErrNotFound)
		}
		err = tx.QueryRowContext(ctx, `SELECT pk, id, seed_length, format FROM sessions WHERE pk = ?`, pk.Int64).Scan(&ts.pk, &ts.id, &seed, &ts.format)
	}
	if err != nil {
		return ts, fmt.Errorf("find session %q: %w", id, err)
	}
	ts.seedLength = intPtr(seed)
	return ts, nil
}

// selectItems returns up to limit item rows with lo < seq < hi, oldest first (newest
// first when desc).
func selectItems(ctx context.Context, tx *sql.Tx, pk, lo, hi int64, desc bool, limit int) ([]itemRow, error) {
	order := "ASC"
	if desc {
		order = "DESC"
	}
	rows, err := tx.QueryContext(ctx, `
		SELECT e.seq, e.line, e.type, e.time, e.turn, e.step, e.surface, e.shadowed_by
		FROM events e
		WHERE `+timelineItemWhere+`
		  AND e.seq > ? AND e.seq < ?
		ORDER BY e.seq `+order+`
		LIMIT ?`, pk, lo, hi, limit)
	if err != nil {
		return nil, fmt.Errorf("timeline items: %w", err)
	}
	defer rows.Close()
	var out []itemRow
	for rows.Next() {
		var r itemRow
		if err := rows.Scan(&r.seq, &r.line, &r.typ, &r.time, &r.turn, &r.step, &r.surface, &r.by); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// itemBefore reports whether an item has seq < hi; itemAfter whether one has seq > lo.
// Each walks from the bound outwards, so it stops at the nearest item.
func itemBefore(ctx context.Context, tx *sql.Tx, pk, hi int64) (bool, error) {
	r, err := selectItems(ctx, tx, pk, -1, hi, true, 1)
	return len(r) > 0, err
}

func itemAfter(ctx context.Context, tx *sql.Tx, pk, lo int64) (bool, error) {
	r, err := selectItems(ctx, tx, pk, lo, math.MaxInt64, false, 1)
	return len(r) > 0, err
}

// containerSeq returns the seq of the item that holds seq: seq itself when it is an
// item, the tool/call of a paired tool/result, the approval/asked of a decision, the
// first event of a compaction bracket. ok is false when no item holds seq.
func containerSeq(ctx context.Context, tx *sql.Tx, pk, seq int64) (int64, bool, error) {
	if r, err := selectItems(ctx, tx, pk, seq-1, seq+1, false, 1); err != nil || len(r) > 0 {
		return seq, len(r) > 0, err
	}
	var typ string
	err := tx.QueryRowContext(ctx, `SELECT type FROM events WHERE session_pk = ? AND seq = ?`, pk, seq).Scan(&typ)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	var q string
	args := []any{pk, seq}
	switch {
	case slices.Contains(timelineTypes.ToolResults, typ):
		q = `SELECT t.call_seq FROM messages m
			JOIN tool_calls t ON t.session_pk = m.session_pk AND t.call_id = COALESCE(m.call_id, '')
			WHERE m.session_pk = ? AND m.seq = ? AND t.result_seq = m.seq AND t.call_seq <> t.result_seq AND t.name <> ''`
	case slices.Contains(timelineTypes.Decided, typ):
		q = `SELECT asked_seq FROM approvals WHERE session_pk = ? AND decided_seq = ? AND asked_seq IS NOT NULL`
	case slices.Contains(timelineTypes.CompactionParts, typ):
		q = `SELECT ` + compactionAnchorSQL + ` FROM compactions k
			WHERE k.session_pk = ? AND (k.summary_seq = ?2 OR k.end_seq = ?2)`
	default:
		return 0, false, nil
	}
	var holder int64
	err = tx.QueryRowContext(ctx, q, args...).Scan(&holder)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	return holder, true, nil
}

// Timeline returns one page of a session's conversation. sessionID may be an
// unambiguous prefix. Items come in seq order: messages, tool calls paired with
// their results, approvals with their decisions, compactions, turn boundaries and
// markers for quiet state changes (see TimelineItem). With q.Around the page holds
// the item at (or holding) that seq roughly in its middle; otherwise it starts after
// q.After, ends before q.Before, or starts at the beginning.
func (s *Store) Timeline(ctx context.Context, sessionID string, q TimelineQuery) (TimelinePage, error) {
	page := TimelinePage{Items: []TimelineItem{}}
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultTimelineLimit
	}
	limit = min(limit, MaxTimelineLimit)

	// One read transaction: the page, its flags and the total are one snapshot even
	// while an import appends to the session.
	tx, err := s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return page, err
	}
	defer tx.Rollback()
	sess, err := resolveSession(ctx, tx, sessionID)
	if err != nil {
		return page, err
	}
	page.SessionID = sess.id
	pk := sess.pk
	if err := tx.QueryRowContext(ctx, timelineTotal, pk).Scan(&page.Total); err != nil {
		return page, fmt.Errorf("count timeline: %w", err)
	}
	if formatOf(sess).Timeline().PromptTurns {
		// Each turn adds the turn start shown before its prompt (withPromptTurns).
		var turns int64
		if err := tx.QueryRowContext(ctx, `SELECT turn_count FROM sessions WHERE pk = ?`, pk).Scan(&turns); err != nil {
			return page, fmt.Errorf("count timeline: %w", err)
		}
		page.Total += turns
	}

	var rows []itemRow
	if q.Around != nil {
		rows, page.HasBefore, page.HasAfter, err = aroundRows(ctx, tx, pk, *q.Around, limit)
	} else {
		rows, page.HasBefore, page.HasAfter, err = rangeRows(ctx, tx, pk, q, limit)
	}
	if err != nil {
		return page, err
	}
	if page.Items, err = s.hydrate(ctx, tx, sess, rows); err != nil {
		return page, err
	}
	return page, nil
}

// rangeRows returns the page of up to limit item rows after q.After (oldest first),
// or, with only q.Before, the newest ones before it; and whether items exist before
// and after the page.
func rangeRows(ctx context.Context, tx *sql.Tx, pk int64, q TimelineQuery, limit int) ([]itemRow, bool, bool, error) {
	lo, hi := int64(-1), int64(math.MaxInt64)
	if q.After != nil {
		lo = max(*q.After, -1)
	}
	if q.Before != nil {
		hi = *q.Before
	}
	backward := q.Before != nil && q.After == nil
	rows, err := selectItems(ctx, tx, pk, lo, hi, backward, limit+1)
	if err != nil {
		return nil, false, false, err
	}
	more := len(rows) > limit
	rows = rows[:min(len(rows), limit)]
	if backward {
		slices.Reverse(rows)
	}
	var before, after bool
	switch {
	case len(rows) == 0:
		// An empty range: say whether anything lies beyond its bounds.
		if lo >= 0 {
			before, err = itemBefore(ctx, tx, pk, lo+1)
		}
		if err == nil && hi < math.MaxInt64 {
			after, err = itemAfter(ctx, tx, pk, hi-1)
		}
	case backward:
		before = more
		after, err = itemAfter(ctx, tx, pk, rows[len(rows)-1].seq)
	default:
		after = more
		if !after && hi < math.MaxInt64 {
			after, err = itemAfter(ctx, tx, pk, rows[len(rows)-1].seq)
		}
		if err == nil {
			before, err = itemBefore(ctx, tx, pk, rows[0].seq)
		}
	}
	return rows, before, after, err
}

// aroundRows returns a page of up to limit item rows with the item holding target
// roughly in the middle, and whether items exist before and after it.
func aroundRows(ctx context.Context, tx *sql.Tx, pk, target int64, limit int) ([]itemRow, bool, bool, error) {
	center, ok, err := containerSeq(ctx, tx, pk, target)
	if err != nil {
		return nil, false, false, err
	}
	if !ok {
		// Not an item and held by none (a step boundary, a stream chunk, a seq past
		// the end): centre on the next item, or the last one.
		next, err := selectItems(ctx, tx, pk, target, math.MaxInt64, false, 1)
		if err != nil {
			return nil, false, false, err
		}
		if len(next) == 0 {
			if next, err = selectItems(ctx, tx, pk, -1, math.MaxInt64, true, 1); err != nil {
				return nil, false, false, err
			}
		}
		if len(next) == 0 {
			return nil, false, false, nil
		}
		center = next[0].seq
	}
	// The centre and the items after it fill limit-half places, the items before it
	// half; near either end the other side fills the page. One more row than a side
	// needs tells whether the timeline goes on past the page.
	half := (limit - 1) / 2
	after, err := selectItems(ctx, tx, pk, center-1, math.MaxInt64, false, limit-half+1)
	if err != nil {
		return nil, false, false, err
	}
	wantBefore := half
	if len(after) < limit-half {
		wantBefore = limit - len(after)
	}
	before, err := selectItems(ctx, tx, pk, -1, center, true, wantBefore+1)
	if err != nil {
		return nil, false, false, err
	}
	nb := min(len(before), wantBefore)
	if len(after) > limit-half && nb < half {
		// Near the start: the items after the centre fill the rest.
		if after, err = selectItems(ctx, tx, pk, center-1, math.MaxInt64, false, limit-nb+1); err != nil {
			return nil, false, false, err
		}
	}
	na := min(len(after), limit-nb)
	rows := make([]itemRow, 0, nb+na)
	for i := nb - 1; i >= 0; i-- {
		rows = append(rows, before[i])
	}
	rows = append(rows, after[:na]...)
	return rows, len(before) > nb, len(after) > na, nil
}

// hydrate attaches each item row's payload: messages from the messages view, tool
// calls, approvals and compactions from theirs, and markers from the raw lines of the
// few blocks that hold them.
func (s *Store) hydrate(ctx context.Context, tx *sql.Tx, sess timelineSession, rows []itemRow) ([]TimelineItem, error) {
	items := make([]TimelineItem, len(rows))
	if len(rows) == 0 {
		return items, nil
	}
	tt := &timelineTypes
	var msgSeqs, callSeqs []int64
	for _, r := range rows {
		switch {
		case slices.Contains(tt.Messages, r.typ):
			msgSeqs = append(msgSeqs, r.seq)
		case slices.Contains(tt.ToolCalls, r.typ):
			callSeqs = append(callSeqs, r.seq)
		}
	}
	msgs, err := s.messagesBySeq(ctx, tx, sess, msgSeqs)
	if err != nil {
		return nil, err
	}
	// An event can be a message and a tool call at once (an OpenHands ActionEvent
	// carries the thought and reasoning before its call): its item shows both.
	thoughts, err := s.messagesBySeq(ctx, tx, sess, callSeqs)
	if err != nil {
		return nil, err
	}
	// Everything else needs its raw line: the ids to look the derived rows up by, or
	// the payload of a marker.
	var lines []int64
	for _, r := range rows {
		if _, ok := msgs[r.seq]; !ok {
			lines = append(lines, r.line)
		}
	}
	raw, err := s.rawLines(ctx, tx, sess.pk, lines)
	if err != nil {
		return nil, err
	}
	// The view items each event's record gave at import link it to its derived rows
	// (the call, approval or compaction id); a tool call or approval request whose
	// row a later event took is shown from its own item.
	f := formatOf(sess)
	links := make(map[int64]link, len(lines))
	var callIDs, approvalIDs, compactionIDs []string
	for _, r := range rows {
		if _, ok := msgs[r.seq]; ok {
			continue
		}
		rec, _ := f.Record(r.line, raw[r.line])
		l := linkOf(rec.Items)
		links[r.seq] = l
		switch {
		case slices.Contains(tt.ToolCalls, r.typ):
			callIDs = append(callIDs, l.call.CallID)
		case slices.Contains(tt.Asked, r.typ):
			approvalIDs = append(approvalIDs, l.asked.ID)
		case slices.Contains(tt.Decided, r.typ):
			approvalIDs = append(approvalIDs, l.decidedID)
		case slices.Contains(tt.Compactions, r.typ):
			compactionIDs = append(compactionIDs, l.compactionID)
		}
	}
	calls, err := s.toolCallsByID(ctx, tx, sess, callIDs)
	if err != nil {
		return nil, err
	}
	approvals, err := approvalsByID(ctx, tx, sess, approvalIDs)
	if err != nil {
		return nil, err
	}
	comps, err := compactionsByID(ctx, tx, sess, compactionIDs)
	if err != nil {
		return nil, err
	}

	for i, r := range rows {
		it := TimelineItem{Seq: r.seq, Type: r.typ, Time: msTime(r.time), Turn: intPtr(r.turn), Step: intPtr(r.step),
			Surface: r.surface, ShadowedBy: intPtr(r.by), Kind: ItemMarker}
		it.Inherited = sess.seedLength != nil && r.seq < *sess.seedLength
		l := links[r.seq]
		switch {
		case slices.Contains(tt.Messages, r.typ):
			if m, ok := msgs[r.seq]; ok {
				m.Surface, m.ShadowedBy = r.surface, it.ShadowedBy
				it.Kind, it.Message = ItemMessage, m
			}
		case slices.Contains(tt.ToolCalls, r.typ):
			if c, ok := calls[l.call.CallID]; ok && c.call.CallSeq == r.seq {
				it.Tool = c.call
				if c.surface != "" {
					// The result is the surface node: a compaction that replaced it
					// replaced the call's output.
					it.Surface, it.ShadowedBy = c.surface, intPtr(c.by)
				}
			} else {
				// The call id was reused by a later call, which took the row: show this
				// one as written, without a result.
				it.Tool = &ToolCall{SessionID: sess.id, CallID: l.call.CallID, Name: l.call.Name, Arguments: l.call.Arguments,
					Turn: intPtr(r.turn), Step: intPtr(r.step), CallSeq: r.seq, CallTime: msTime(r.time)}
			}
			it.Kind = ItemTool
			if m, ok := thoughts[r.seq]; ok {
				m.Surface, m.ShadowedBy = it.Surface, it.ShadowedBy
				it.Message = m
			}
		case slices.Contains(tt.Asked, r.typ):
			if a, ok := approvals[l.asked.ID]; ok && a.AskedSeq != nil && *a.AskedSeq == r.seq {
				it.Approval = a
			} else {
				seq, at := r.seq, msTime(r.time)
				it.Approval = &Approval{SessionID: sess.id, ID: l.asked.ID, ToolName: l.asked.ToolName, CallID: l.asked.CallID,
					Reason: l.asked.Reason, Turn: intPtr(r.turn), AskedSeq: &seq, AskedAt: &at}
			}
			it.Kind = ItemApproval
		case slices.Contains(tt.Decided, r.typ):
			// A decision whose request is not in the log.
			if a, ok := approvals[l.decidedID]; ok && a.DecidedSeq != nil && *a.DecidedSeq == r.seq {
				it.Kind, it.Approval = ItemApproval, a
			}
		case slices.Contains(tt.Compactions, r.typ):
			if c, ok := comps[l.compactionID]; ok && compactionAnchor(c) == r.seq {
				it.Kind, it.Compaction = ItemCompaction, c
			}
		case slices.Contains(tt.Turns, r.typ):
			it.Kind = ItemTurn
		}
		switch {
		case it.Kind == ItemMarker && slices.Contains(tt.Messages, r.typ):
			// A message event the projection could not read (no message in its data).
			it.Marker = &Marker{Label: strings.ReplaceAll(r.typ, "/", " ")}
		case it.Kind == ItemMarker || it.Kind == ItemTurn:
			it.Marker = f.Marker(r.typ, raw[r.line], format.MarkerInfo{Seq: r.seq, Turn: it.Turn, SeedLength: sess.seedLength})
		}
		items[i] = it
	}
	if f.Timeline().PromptTurns {
		items = withPromptTurns(items)
	}
	return items, nil
}

// withPromptTurns puts a turn start before each prompt that starts a turn, for a
// format whose log names no turns: the projection started a turn there
// (format.Event.NextTurn), and the reader sees it as a dsh log's turn/start. The
// item shares its prompt's seq, is Synthetic, and has an empty marker: it adds no
// text to search or redact.
func withPromptTurns(items []TimelineItem) []TimelineItem {
	var out []TimelineItem
	for i, it := range items {
		if m := it.Message; it.Kind == ItemMessage && m != nil && it.Turn != nil && format.IsPrompt(m.Role, m.Kind) {
			if out == nil {
				out = append(make([]TimelineItem, 0, len(items)+8), items[:i]...)
			}
			out = append(out, TimelineItem{Seq: it.Seq, Type: "turn/start", Kind: ItemTurn, Time: it.Time, Turn: it.Turn,
				Surface: it.Surface, ShadowedBy: it.ShadowedBy, Inherited: it.Inherited, Synthetic: true, Marker: &Marker{}})
		}
		if out != nil {
			out = append(out, it)
		}
	}
	if out == nil {
		return items
	}
	return out
}

// link is what ties an event to its derived rows, from the view items its record
// gave: the zero link when it gave none.
type link struct {
	call         format.ToolCallItem
	asked        format.ApprovalAskedItem
	decidedID    string
	compactionID string
}

func linkOf(items []format.Item) link {
	var l link
	for _, it := range items {
		switch it := it.(type) {
		case format.ToolCallItem:
			l.call = it
		case format.ApprovalAskedItem:
			l.asked = it
		case format.ApprovalDecidedItem:
			l.decidedID = it.ID
		case format.CompactionStartItem:
			l.compactionID = it.ID
		case format.CompactionSummaryItem:
			l.compactionID = it.ID
		case format.CompactionEndItem:
			l.compactionID = it.ID
		}
	}
	return l
}

// compactionAnchor is the seq of the item a compaction is shown at: the first event
// of its bracket.
func compactionAnchor(c *Compaction) int64 {
	for _, p := range []*int64{c.StartSeq, c.SummarySeq, c.EndSeq} {
		if p != nil {
			return *p
		}
	}
	return -1
}

// inArgs returns the placeholders "?, ?, …" of an IN list of vals, and the query
// arguments: pk, then vals.
func inArgs[T any](pk int64, vals []T) (string, []any) {
	args := make([]any, 0, len(vals)+1)
	args = append(args, pk)
	for _, v := range vals {
		args = append(args, v)
	}
	return strings.TrimSuffix(strings.Repeat("?, ", len(vals)), ", "), args
}

// messagesBySeq loads the messages at seqs, keyed by seq.
func (s *Store) messagesBySeq(ctx context.Context, tx *sql.Tx, sess timelineSession, seqs []int64) (map[int64]*Message, error) {
	out := map[int64]*Message{}
	if len(seqs) == 0 {
		return out, nil
	}
	in, args := inArgs(sess.pk, seqs)
	rows, err := tx.QueryContext(ctx, `
		SELECT m.seq, m.time, m.turn, m.step, m.role, m.kind, COALESCE(m.source_kind, ''), COALESCE(m.plugin, ''),
		       m.text, m.reasoning, COALESCE(m.model, ''), m.interrupted
		FROM messages m
		WHERE m.session_pk = ? AND m.seq IN (`+in+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("timeline messages: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		m := &Message{SessionID: sess.id}
		var t int64
		var turn, step sql.NullInt64
		var text, reasoning any
		if err := rows.Scan(&m.Seq, &t, &turn, &step, &m.Role, &m.Kind, &m.SourceKind, &m.Plugin, &text,
			&reasoning, &m.Model, &m.Interrupted); err != nil {
			return nil, err
		}
		if m.Text, err = s.unpackText(text); err != nil {
			return nil, err
		}
		if m.Reasoning, err = s.unpackText(reasoning); err != nil {
			return nil, err
		}
		m.Time, m.Turn, m.Step = msTime(t), intPtr(turn), intPtr(step)
		out[m.Seq] = m
	}
	return out, rows.Err()
}

// toolRow is a tool call with the surface state of its result event.
type toolRow struct {
	call    *ToolCall
	surface string // "" without a result
	by      sql.NullInt64
}

// toolCallsByID loads tool calls with their results, keyed by call id.
func (s *Store) toolCallsByID(ctx context.Context, tx *sql.Tx, sess timelineSession, ids []string) (map[string]toolRow, error) {
	out := map[string]toolRow{}
	if len(ids) == 0 {
		return out, nil
	}
	in, args := inArgs(sess.pk, ids)
	rows, err := tx.QueryContext(ctx, `
		SELECT t.call_id, t.name, t.arguments, t.turn, t.step, t.call_seq, t.call_time, t.result_seq, t.result_time,
		       CASE WHEN t.result_seq IS NULL THEN NULL ELSE COALESCE(m.text, '') END, t.is_error,
		       COALESCE(t.error_name, ''), COALESCE(t.error_code, ''), COALESCE(r.surface, ''), r.shadowed_by
		FROM tool_calls t
		LEFT JOIN messages m ON m.session_pk = t.session_pk AND m.seq = t.result_seq
		LEFT JOIN events r ON r.session_pk = t.session_pk AND r.seq = t.result_seq
		WHERE t.session_pk = ? AND t.call_id IN (`+in+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("timeline tool calls: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		c := &ToolCall{SessionID: sess.id}
		tr := toolRow{call: c}
		var ct int64
		var turn, step, rseq, rtime sql.NullInt64
		var output any
		if err := rows.Scan(&c.CallID, &c.Name, &c.Arguments, &turn, &step, &c.CallSeq, &ct, &rseq, &rtime, &output,
			&c.IsError, &c.ErrorName, &c.ErrorCode, &tr.surface, &tr.by); err != nil {
			return nil, err
		}
		if output != nil {
			text, err := s.unpackText(output)
			if err != nil {
				return nil, err
			}
			c.Output = &text
		}
		c.CallTime, c.Turn, c.Step = msTime(ct), intPtr(turn), intPtr(step)
		c.ResultSeq, c.ResultTime = intPtr(rseq), msPtr(rtime)
		out[c.CallID] = tr
	}
	return out, rows.Err()
}

// approvalsByID loads approvals with their decisions, keyed by id.
func approvalsByID(ctx context.Context, tx *sql.Tx, sess timelineSession, ids []string) (map[string]*Approval, error) {
	out := map[string]*Approval{}
	if len(ids) == 0 {
		return out, nil
	}
	in, args := inArgs(sess.pk, ids)
	rows, err := tx.QueryContext(ctx, `
		SELECT a.approval_id, COALESCE(a.tool_name, ''), COALESCE(a.call_id, ''), COALESCE(a.reason, ''), a.turn,
		       a.asked_seq, a.asked_at, a.decided_seq, a.decided_at, a.outcome,
		       COALESCE(a.policy, ''), COALESCE(a.sandbox_mode, ''), COALESCE(a.permission_preset, '')
		FROM approvals a
		WHERE a.session_pk = ? AND a.approval_id IN (`+in+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("timeline approvals: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		a := &Approval{SessionID: sess.id}
		var turn, aseq, aat, dseq, dat sql.NullInt64
		var outcome sql.NullString
		if err := rows.Scan(&a.ID, &a.ToolName, &a.CallID, &a.Reason, &turn, &aseq, &aat, &dseq, &dat,
			&outcome, &a.Policy, &a.SandboxMode, &a.PermissionPreset); err != nil {
			return nil, err
		}
		a.Turn, a.AskedSeq, a.AskedAt, a.DecidedSeq, a.DecidedAt = intPtr(turn), intPtr(aseq), msPtr(aat), intPtr(dseq), msPtr(dat)
		if outcome.Valid {
			a.Outcome = &outcome.String
		}
		out[a.ID] = a
	}
	return out, rows.Err()
}

// compactionsByID loads compactions (and prunes), keyed by id.
func compactionsByID(ctx context.Context, tx *sql.Tx, sess timelineSession, ids []string) (map[string]*Compaction, error) {
	out := map[string]*Compaction{}
	if len(ids) == 0 {
		return out, nil
	}
	in, args := inArgs(sess.pk, ids)
	rows, err := tx.QueryContext(ctx, `
		SELECT `+compactionColumns+`
		FROM compactions c
		`+compactionPruneJoin+`
		WHERE c.session_pk = ? AND c.compaction_id IN (`+in+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("timeline compactions: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		c := &Compaction{SessionID: sess.id}
		if err := scanCompaction(rows, c); err != nil {
			return nil, err
		}
		out[c.CompactionID] = c
	}
	return out, rows.Err()
}
