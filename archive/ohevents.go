package archive

import (
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/logbook/logbook/archive/format"
	"github.com/logbook/logbook/archive/openhands"
)

// The OpenHands-compatible events API's storage side (app/eventsapi.go is the
// HTTP side): an archived conversation's events, filtered by kind and time,
// sorted by time and fetched by id on the indexed event keys of migration 0006,
// and returned as their original bytes: an event file's kept bytes, or the
// archived record of an event that has no file of its own (a JSONL line).

// eventsAPIFormat is the format whose sessions the events API serves.
const eventsAPIFormat = "openhands"

// ErrBadPageID is returned for a page id that is not one this archive gave out,
// or that was given out for the other sort order.
var ErrBadPageID = errors.New("archive: not a page id of these events")

// EventLog is one archived OpenHands conversation's events, as the events API
// serves them. Get one with Store.EventLog.
type EventLog struct {
	s  *Store
	pk int64
	// ID is the conversation's id as the archive keeps it (dashed).
	ID string
}

// EventQuery selects and orders the events of a search or a count.
type EventQuery struct {
	// Kind keeps the events of this kind ("MessageEvent"); "" keeps every kind.
	Kind string
	// Since keeps events at or after it, Before those before it; the zero time
	// does not bound. An event's time as written has no zone and is read as UTC.
	Since, Before time.Time
	// Desc sorts the newest first; otherwise the oldest first. Events of the same
	// time keep their conversation order (reversed by Desc).
	Desc bool
	// PageID is where the page starts: a page's NextPageID, "" for the first page.
	PageID string
	// Limit is the page's size (1 or more).
	Limit int
}

// EventPage is one page of a search.
type EventPage struct {
	// Items are the events, each its original JSON bytes.
	Items []json.RawMessage
	// NextPageID is where the next page starts, "" after the last page.
	NextPageID string
}

// EventLog returns the OpenHands conversation id (dashed, or 32 hex digits)
// names, or ErrNotFound: an unknown id, or a session of another agent. Events
// archived before their keys were kept get them now (a write, once).
func (s *Store) EventLog(ctx context.Context, id string) (*EventLog, error) {
	id = dashedID(id)
	if isUUID(id) {
		id = strings.ToLower(id)
	}
	l := &EventLog{s: s, ID: id}
	var f string
	err := s.read.QueryRowContext(ctx, `SELECT pk, format FROM sessions WHERE id = ?`, id).Scan(&l.pk, &f)
	if errors.Is(err, sql.ErrNoRows) || err == nil && f != eventsAPIFormat {
		return nil, fmt.Errorf("conversation %q: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("find conversation %q: %w", id, err)
	}
	if err := l.backfill(ctx); err != nil {
		return nil, fmt.Errorf("key the events of conversation %s: %w", id, err)
	}
	return l, nil
}

// isUUID reports whether id has a dashed UUID's shape.
func isUUID(id string) bool {
	if len(id) != 36 {
		return false
	}
	for i, c := range id {
		switch {
		case i == 8 || i == 13 || i == 18 || i == 23:
			if c != '-' {
				return false
			}
		case !strings.ContainsRune("0123456789abcdefABCDEF", c):
			return false
		}
	}
	return true
}

// filter is q's WHERE clause after the session's, and its arguments.
func (q EventQuery) filter() (string, []any) {
	var where strings.Builder
	var args []any
	if q.Kind != "" {
		where.WriteString(" AND e.type = ?")
		args = append(args, q.Kind)
	}
	// An event's pos starts with its time key: every pos of an event at or
	// after t is >= TimeKey(t), every one before t is < it.
	if !q.Since.IsZero() {
		where.WriteString(" AND e.pos >= ?")
		args = append(args, format.TimeKey(q.Since))
	}
	if !q.Before.IsZero() {
		where.WriteString(" AND e.pos < ?")
		args = append(args, format.TimeKey(q.Before))
	}
	return where.String(), args
}

// Search returns the page of events q selects.
func (l *EventLog) Search(ctx context.Context, q EventQuery) (EventPage, error) {
	query, args, err := q.search(l.pk)
	if err != nil {
		return EventPage{}, err
	}
	limit := max(q.Limit, 1)
	tx, err := l.s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return EventPage{}, err
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return EventPage{}, fmt.Errorf("search events: %w", err)
	}
	var found []keyedEvent
	for rows.Next() {
		var k keyedEvent
		if err := rows.Scan(&k.seq, &k.pos, &k.line, &k.packed, &k.layout); err != nil {
			rows.Close()
			return EventPage{}, err
		}
		found = append(found, k)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return EventPage{}, fmt.Errorf("search events: %w", err)
	}
	var page EventPage
	if len(found) > limit {
		page.NextPageID = encodePageID(found[limit].pos, q.Desc)
		found = found[:limit]
	}
	if page.Items, err = l.s.eventBytes(ctx, tx, l.pk, found); err != nil {
		return EventPage{}, err
	}
	return page, nil
}

// search is the query of q's page of the session pk's events and its
// arguments: the events q keeps from its page id on, in order, with their
// files' kept bytes, one more than the limit (where the next page starts). It
// walks events_api_ts (for a kind, events_api_kind) in order and stops at the
// limit: a page costs the same at any depth of any conversation.
func (q EventQuery) search(pk int64) (string, []any, error) {
	where, args := q.filter()
	args = append([]any{pk}, args...)
	order, cmp := "e.pos", ">="
	if q.Desc {
		order, cmp = "e.pos DESC", "<="
	}
	if q.PageID != "" {
		at, err := decodePageID(q.PageID, q.Desc)
		if err != nil {
			return "", nil, err
		}
		where += " AND e.pos " + cmp + " ?"
		args = append(args, at)
	}
	args = append(args, max(q.Limit, 1)+1)
	// The index is named, so that the plan never depends on statistics.
	index := "events_api_ts"
	if q.Kind != "" {
		index = "events_api_kind"
	}
	return `
		SELECT e.seq, e.pos, e.line, CASE WHEN sf.line IS NULL THEN sf.data END, CASE WHEN sf.line IS NOT NULL THEN sf.data END
		FROM events e INDEXED BY ` + index + `
		LEFT JOIN source_files sf ON sf.session_pk = e.session_pk AND sf.name = e.file AND sf.superseded_at IS NULL
		WHERE e.session_pk = ? AND e.pos IS NOT NULL` + where + `
		ORDER BY ` + order + `
		LIMIT ?`, args, nil
}

// Count returns how many events q's kind and times select (its order, page and
// limit do not matter).
func (l *EventLog) Count(ctx context.Context, q EventQuery) (int64, error) {
	where, args := q.filter()
	var n int64
	err := l.s.read.QueryRowContext(ctx, `
		SELECT COUNT(*) FROM events e
		WHERE e.session_pk = ? AND e.pos IS NOT NULL`+where, append([]any{l.pk}, args...)...).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count events: %w", err)
	}
	return n, nil
}

// Get returns the events with the given ids, in the order asked, nil for an id
// the conversation has no event of. An id is matched as written, and a UUID
// also in its dashed lowercase form.
func (l *EventLog) Get(ctx context.Context, ids []string) ([]json.RawMessage, error) {
	out := make([]json.RawMessage, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	var args []any
	args = append(args, l.pk)
	for _, id := range ids {
		args = append(args, id)
		if c := dashedID(id); isUUID(c) {
			args = append(args, strings.ToLower(c))
		}
	}
	tx, err := l.s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `
		SELECT e.seq, e.pos, e.line, CASE WHEN sf.line IS NULL THEN sf.data END, CASE WHEN sf.line IS NOT NULL THEN sf.data END,
			e.event_id FROM events e
		LEFT JOIN source_files sf ON sf.session_pk = e.session_pk AND sf.name = e.file AND sf.superseded_at IS NULL
		WHERE e.session_pk = ? AND e.pos IS NOT NULL AND e.event_id IN (?`+strings.Repeat(", ?", len(args)-2)+`)
		ORDER BY e.seq`, args...)
	if err != nil {
		return nil, fmt.Errorf("get events: %w", err)
	}
	var found []keyedEvent
	var eventIDs []string
	for rows.Next() {
		var k keyedEvent
		var id string
		if err := rows.Scan(&k.seq, &k.pos, &k.line, &k.packed, &k.layout, &id); err != nil {
			rows.Close()
			return nil, err
		}
		found, eventIDs = append(found, k), append(eventIDs, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("get events: %w", err)
	}
	raws, err := l.s.eventBytes(ctx, tx, l.pk, found)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]json.RawMessage, len(raws))
	for i, id := range eventIDs {
		if _, dup := byID[id]; !dup {
			byID[id] = raws[i]
		}
	}
	for i, id := range ids {
		if raw, ok := byID[id]; ok {
			out[i] = raw
		} else if c := dashedID(id); isUUID(c) {
			out[i] = byID[strings.ToLower(c)]
		}
	}
	return out, nil
}

// PageIDAt returns the page id of a page that starts at the event with id
// eventID (the agent server's page ids are event ids), or ErrBadPageID when the
// conversation has no such event.
func (l *EventLog) PageIDAt(ctx context.Context, eventID string, desc bool) (string, error) {
	var p string
	err := l.s.read.QueryRowContext(ctx, `
		SELECT e.pos FROM events e
		WHERE e.session_pk = ? AND e.pos IS NOT NULL AND e.event_id = ?
		ORDER BY e.seq LIMIT 1`, l.pk, eventID).Scan(&p)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("event %q: %w", eventID, ErrBadPageID)
	}
	if err != nil {
		return "", err
	}
	return encodePageID(p, desc), nil
}

// IsKind reports whether kind names a kind of event: a kind OpenHands defines,
// or one an event of the conversation has (a kind of a later release).
func (l *EventLog) IsKind(ctx context.Context, kind string) (bool, error) {
	if openhands.KnownKind(kind) {
		return true, nil
	}
	var n int
	err := l.s.read.QueryRowContext(ctx, `
		SELECT COUNT(*) FROM (SELECT 1 FROM events e
		WHERE e.session_pk = ? AND e.pos IS NOT NULL AND e.type = ? LIMIT 1)`, l.pk, kind).Scan(&n)
	return n > 0, err
}

// eventPos is the events.pos of an event: its time key (format.TimeKey, ""
// when it has none), a space, and its seq in 12 digits. Sorted as strings, pos
// is time order, then conversation order; an event of no time comes first (a
// space sorts before a digit). One column holding both keeps every bound of a
// search a bound on one indexed column, which SQLite's planner always walks in
// order (beside a (ts, seq) row value, a bound on ts alone made it sort).
func eventPos(timeKey string, seq int64) string {
	return fmt.Sprintf("%s %012d", timeKey, seq)
}

// keyedEvent is an event a query found: its seq and pos, its archived line,
// and its file's kept bytes (nil when it has no file of its own, or its file is
// kept as its archived line), or the layout of its file kept as that line
// (see fileLayout; nil or empty when the file is the line's bytes).
type keyedEvent struct {
	seq    int64
	pos    string
	line   int64
	packed []byte
	layout []byte
}

// eventBytes returns each found event's original bytes: its file's (kept on
// its own, or as its archived record with the file's layout), else its
// archived record's.
func (s *Store) eventBytes(ctx context.Context, tx *sql.Tx, pk int64, found []keyedEvent) ([]json.RawMessage, error) {
	out := make([]json.RawMessage, len(found))
	var lines []int64
	for i, k := range found {
		if k.packed == nil {
			lines = append(lines, k.line)
			continue
		}
		raw, err := s.zdec.DecodeAll(k.packed, nil)
		if err != nil {
			return nil, fmt.Errorf("kept file of event %d does not decompress: %w", k.seq, err)
		}
		out[i] = raw
	}
	if len(lines) == 0 {
		return out, nil
	}
	sorted := slices.Clone(lines)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	raws, err := s.rawLines(ctx, tx, pk, sorted)
	if err != nil {
		return nil, err
	}
	for i, k := range found {
		if k.packed == nil {
			raw, ok := raws[k.line]
			if !ok {
				return nil, fmt.Errorf("event %d: archived line %d is missing", k.seq, k.line)
			}
			file, err := withLayout(s.zdec, raw, k.layout)
			if err != nil {
				return nil, fmt.Errorf("kept file of event %d: %w", k.seq, err)
			}
			out[i] = file
		}
	}
	return out, nil
}

// pageIDPrefix starts every page id this archive gives out, so that it is never
// taken for an event id (which the agent server's page ids are).
const pageIDPrefix = "lb1."

// encodePageID is the opaque page id of a page starting at the event at pos in
// the order desc says. It holds the event's place, not a count of events
// before it, so it stays valid as the conversation grows.
func encodePageID(pos string, desc bool) string {
	dir := "a"
	if desc {
		dir = "d"
	}
	return pageIDPrefix + base64.RawURLEncoding.EncodeToString([]byte(dir+pos))
}

// IsPageID reports whether id has the form of a page id this archive gives out
// (and so is not an event id).
func IsPageID(id string) bool { return strings.HasPrefix(id, pageIDPrefix) }

// CheckPageID returns ErrBadPageID when id is not a page id this archive gave
// out for the order desc says, and nil when it is.
func CheckPageID(id string, desc bool) error {
	_, err := decodePageID(id, desc)
	return err
}

// decodePageID reads a page id encodePageID gave for the order desc says.
func decodePageID(id string, desc bool) (string, error) {
	bad := fmt.Errorf("page id %q: %w", id, ErrBadPageID)
	rest, ok := strings.CutPrefix(id, pageIDPrefix)
	if !ok {
		return "", bad
	}
	b, err := base64.RawURLEncoding.DecodeString(rest)
	if err != nil || len(b) < 2 {
		return "", bad
	}
	if want := map[bool]byte{false: 'a', true: 'd'}[desc]; b[0] != want {
		return "", fmt.Errorf("page id %q was given for the other sort order: %w", id, ErrBadPageID)
	}
	pos := string(b[1:])
	key, seq, ok := strings.Cut(pos, " ")
	n, err := strconv.ParseInt(seq, 10, 64)
	if !ok || err != nil || n < 0 || len(seq) != 12 || key != "" && len(key) != len("2006-01-02T15:04:05.000000000") {
		return "", bad
	}
	return pos, nil
}

// backfill keys the conversation's events archived before their keys were kept
// (migration 0006: pos NULL), from their archived records and their kept event
// files, in one write. It costs one indexed row read when there is nothing to do.
func (l *EventLog) backfill(ctx context.Context) error {
	var missing bool
	err := l.s.read.QueryRowContext(ctx, `SELECT pos IS NULL FROM events WHERE session_pk = ? ORDER BY seq LIMIT 1`, l.pk).Scan(&missing)
	if errors.Is(err, sql.ErrNoRows) || err == nil && !missing {
		return nil
	}
	if err != nil {
		return err
	}
	if l.s.readOnly {
		return fmt.Errorf("events archived by an earlier version get their keys on the first request, which a read-only archive cannot write: %w", ErrReadOnly)
	}
	f := formatNamed(eventsAPIFormat)
	tx, err := l.s.write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	// The kept file of each event id (a folder layout's event files).
	fileOf := map[string]string{}
	// A file kept as its record's bytes (migration 0009) is that record's.
	fileAt := map[int64]string{}
	rows, err := tx.QueryContext(ctx, `SELECT name, data, line FROM source_files
		WHERE session_pk = ? AND role = 'event' AND superseded_at IS NULL`, l.pk)
	if err != nil {
		return err
	}
	var plain []byte
	for rows.Next() {
		var name string
		var packed []byte
		var line sql.NullInt64
		if err := rows.Scan(&name, &packed, &line); err != nil {
			rows.Close()
			return err
		}
		if line.Valid {
			fileAt[line.Int64] = name
			continue
		}
		if plain, err = l.s.zdec.DecodeAll(packed, plain[:0]); err != nil {
			rows.Close()
			return fmt.Errorf("kept file %s does not decompress: %w", name, err)
		}
		if rec, ok := f.Record(0, plain); ok && rec.Event != nil && rec.Event.Key != nil {
			if _, dup := fileOf[rec.Event.Key.ID]; !dup {
				fileOf[rec.Event.Key.ID] = name
			}
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	type keyed struct {
		seq int64
		key format.EventKey
	}
	var keys []keyed
	err = eachLine(ctx, tx, l.s.zdec, l.pk, 0, -1, func(line int64, raw []byte) error {
		if rec, ok := f.Record(line, raw); ok && rec.Event != nil && rec.Event.Key != nil {
			k := *rec.Event.Key
			k.File = fileOf[k.ID]
			if name, ok := fileAt[line]; ok {
				k.File = name
			}
			keys = append(keys, keyed{rec.Event.Seq, k})
		}
		return nil
	})
	if err != nil {
		return err
	}
	upd, err := tx.PrepareContext(ctx, `UPDATE events SET event_id = ?, pos = ?, file = ?
		WHERE session_pk = ? AND seq = ? AND pos IS NULL`)
	if err != nil {
		return err
	}
	defer upd.Close()
	for _, k := range keys {
		if _, err := upd.ExecContext(ctx, k.key.ID, eventPos(k.key.Time, k.seq), nullStr(k.key.File), l.pk, k.seq); err != nil {
			return err
		}
	}
	// A record that no longer decodes has no id to be asked by; it is still
	// served by kind and time, as an event of no time.
	if _, err := tx.ExecContext(ctx, `UPDATE events SET pos = printf(' %012d', seq) WHERE session_pk = ? AND pos IS NULL`, l.pk); err != nil {
		return err
	}
	return tx.Commit()
}
