package archive

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/logbook/logbook/archive/format"
)

// importJob carries one source file's import through its transactions: the
// store's half of a format.Stream (see format.StreamReader).
type importJob struct {
	store      *Store
	format     format.Format // the format of the file, which folds its schedules
	path       string
	file       *os.File
	id         identity
	row        *fileRow
	stream     format.Stream
	facts      *format.SessionFacts // the stream's session, nil when refused
	layout     string
	compressed bool
	opts       ImportOptions
	action     string

	pk      int64
	maxLine int64

	// report is the file's report as saveFile last stored it, so a run need not
	// read it back.
	report FileReport
	// scheduleChanges counts the schedule changes this run stored.
	scheduleChanges int
	// read is the reader of a full read's bytes, nil on an append.
	read *progressReader
	// saved is set once this run has saved the file's row (see fileUpsert.fresh).
	saved bool
	// sums are the prefix sums saved last, of the file's first sumsOff bytes.
	sums    []byte
	sumsOff int64
	// undecodable holds the warnings for records the projection could not read in
	// full, from this run and (on an append) the runs before it.
	undecodable []Problem

	// bytes is how many bytes of the file the stream reads (from its stamp on, on
	// an append).
	bytes int64
	// The reading (see readAhead and readAll), once started: next gives the next
	// record, the last item carrying io.EOF or an error. readDone fires when the
	// whole file is read (or the reading stopped), which lets Import begin the next
	// file.
	next     func() readItem
	stop     func()
	readDone *signal
}

// signal is a channel closed once, by whichever of its firers comes first.
type signal struct {
	once sync.Once
	c    chan struct{}
}

func newSignal() *signal { return &signal{c: make(chan struct{})} }

// fire closes the channel; a nil signal ignores it.
func (s *signal) fire() {
	if s != nil {
		s.once.Do(func() { close(s.c) })
	}
}

// newJob is the job of reading the file f through st.
func (s *Store) newJob(fm format.Format, f *os.File, id identity, st format.Stream, opts ImportOptions, action string, readDone *signal) *importJob {
	j := &importJob{store: s, format: fm, path: f.Name(), file: f, id: id, stream: st, facts: st.Session(),
		opts: opts, action: action, readDone: readDone, bytes: id.size}
	j.layout, j.compressed = st.Layout()
	return j
}

// startReading starts reading the file's records on their own goroutines, or
// reads a small file's at once (see readAll). A full read can start before the
// session is opened (its checks start empty); an append must wait for the
// stream's replay of the archived records.
func (j *importJob) startReading() {
	records := recordsIn(j.bytes, j.compressed)
	if j.bytes <= readAllBytes {
		j.next, j.stop = readAll(j.stream, j.prepare, j.readDone.fire, records)
		return
	}
	items, stop := readAhead(j.stream, j.prepare, j.readDone.fire, records)
	j.next, j.stop = func() readItem { return <-items }, stop
}

// prepare is the work done on a record on the preparing goroutine (see readAhead).
func (j *importJob) prepare(rec *format.StreamRecord) {
	if rec.Record.Line <= j.maxLine {
		return // archived and observed already (replayed from the archive)
	}
	j.stream.Prepare(rec)
}

// run imports the records the reader yields. prev is the stored row when resuming
// after a cursor (append), nil for a full read.
func (j *importJob) run(cctx context.Context, prev *fileRow) error {
	s := j.store
	// Statements run without the caller's cancellation (cctx): a statement
	// interrupted inside a transaction makes SQLite roll back the whole transaction,
	// which in a batch holds other files' work, and a cancellable context makes the
	// driver start a watcher per statement. The loop checks cctx between records.
	ctx := context.WithoutCancel(cctx)
	defer func() {
		if j.stop != nil {
			j.stop()
		}
	}()
	if prev == nil && j.next == nil {
		j.startReading()
	}
	ftx, err := s.beginFile(cctx)
	if err != nil {
		return err
	}
	defer func() { ftx.rollback() }()
	tx := ftx.Tx

	st, dup, err := j.openSession(ctx, tx, prev)
	if err != nil {
		return err
	}
	if dup != "" {
		return j.saveDuplicate(ctx, ftx, dup)
	}
	proj := newProjector(ctx, tx, s, j.pk, st)
	batch := j.opts.BatchRecords
	if batch <= 0 {
		batch = 20000
	}
	n := 0
	// The reader decodes ahead on its own goroutine while this one projects and
	// writes: on two cores that overlaps the two halves of the work.
	if j.next == nil {
		j.startReading()
	}
	for {
		it := j.next()
		if errors.Is(it.err, io.EOF) {
			break
		}
		if it.err != nil {
			proj.close()
			return it.err
		}
		rec := &it.rec.Record
		if rec.Line%4096 == 0 && cctx.Err() != nil && ftx.stoppable() {
			proj.close()
			return cctx.Err()
		}
		if rec.Line <= j.maxLine {
			// Already archived (the recovered part of a torn frame): it must not have
			// changed, or the file was rewritten behind the cursor.
			if err := j.verifyStored(ctx, tx, rec.Line, rec.Raw); err != nil {
				proj.close()
				return err
			}
			continue
		}
		if it.rec.Warning != nil {
			j.undecodable = append(j.undecodable, *it.rec.Warning)
		}
		if err := proj.record(rec); err != nil {
			proj.close()
			return fmt.Errorf("line %d: %w", rec.Line, err)
		}
		for _, sp := range it.rec.Shadows {
			if err := proj.shadow(sp); err != nil {
				proj.close()
				return fmt.Errorf("line %d: %w", rec.Line, err)
			}
		}
		n++
		if at := it.rec.At; n >= batch && at.Line == rec.Line {
			// Commit a durable prefix so a crash or a huge file never holds one giant
			// transaction; the cursor saved with it is where a later run resumes.
			n = 0
			if err := proj.flush(); err != nil {
				proj.close()
				return err
			}
			if err := j.saveProgress(ctx, tx, proj.st, at, j.stream.Stamp(&it.rec)); err != nil {
				proj.close()
				return err
			}
			j.scheduleChanges += proj.scheduleChanges
			proj.close()
			if err := ftx.durable(cctx); err != nil {
				return err
			}
			if j.opts.Committed != nil {
				j.opts.Committed(j.path, at.Line)
			}
			if err := cctx.Err(); err != nil {
				return err // what is committed stays; the next import resumes there
			}
			tx = ftx.Tx
			proj = newProjector(ctx, tx, s, j.pk, proj.st)
		}
	}
	defer proj.close()
	// The last block compresses on its own goroutine while the session's totals are
	// saved: with small sessions that block is most of the compression, and waiting
	// for it first left a core idle at every file's end.
	if err := proj.flushEvents(); err != nil {
		return err
	}
	proj.blocks.flush()
	res := j.stream.Result()
	if res.Records == 0 && j.action == "appended" && res.Verdict == VerdictOK {
		j.action = "unchanged"
	}
	warnings := append([]Problem{}, res.Warnings...)
	warnings = append(warnings, j.stream.Finish()...)
	warnings = append(warnings, j.undecodable...)
	// A full read starts from no schedule changes (a new session, or a rewritten one
	// whose old ones were deleted); without any in the file, the fold has nothing to
	// read, report or store.
	if prev != nil || j.scheduleChanges+proj.scheduleChanges > 0 {
		folded, err := j.foldSchedules(ctx, tx)
		if err != nil {
			return err
		}
		warnings = append(warnings, folded...)
	}
	if s.importFault != nil {
		if err := s.importFault(j.path); err != nil {
			return err
		}
	}
	if err := j.saveSession(ctx, tx, proj.st, res.Verdict); err != nil {
		return err
	}
	if err := j.saveFile(ctx, tx, res, proj.st, warnings); err != nil {
		return err
	}
	if err := proj.blocks.wait(); err != nil {
		return err
	}
	return ftx.commit()
}

// openSession finds or creates the session row and, on an append, catches the
// stream's checks up on the archived records. It returns the owner path when
// another live file already archives this session.
func (j *importJob) openSession(ctx context.Context, tx *sql.Tx, prev *fileRow) (projState, string, error) {
	var st projState
	st.LastSeq = -1
	if prev != nil { // append: continue the stored session
		j.pk = prev.sessionPK.Int64
		if err := j.loadState(ctx, tx, &st); err != nil {
			return st, "", err
		}
		if err := j.loadUndecodable(ctx, tx, prev.id); err != nil {
			return st, "", err
		}
		return st, "", j.replay(ctx, tx)
	}
	h := j.facts
	// Most sessions are new: the row is made first, and looked up only when it
	// exists (a query less per new session).
	pk, created, err := j.store.insertSession(ctx, tx, createNewSessionName, j.format, h)
	if err != nil || created {
		j.pk = pk
		return st, "", err
	}
	if err := j.store.txStmt(ctx, tx, findSessionName).QueryRowContext(ctx, h.ID).Scan(&j.pk); err != nil {
		return st, "", fmt.Errorf("find session %s: %w", h.ID, err)
	}
	if owner, err := j.liveOwner(ctx, tx); err != nil || owner != "" && !j.opts.TakeOver {
		return st, owner, err
	} else if owner != "" {
		if err := releaseOthers(ctx, tx, j.pk, j.path); err != nil {
			return st, "", fmt.Errorf("take %s over from %s: %w", h.ID, owner, err)
		}
	}
	// Rewritten upstream, or moved here from a path that is gone: keep what was
	// archived as superseded lines, then read the file afresh.
	j.action = "rewritten"
	return st, "", j.store.resetSession(ctx, tx, j.pk, h)
}

// createSession creates the session a source of format f describes.
func (s *Store) createSession(ctx context.Context, tx *sql.Tx, f format.Format, h *format.SessionFacts) (int64, error) {
	pk, _, err := s.insertSession(ctx, tx, createSessionName, f, h)
	return pk, err
}

// insertSession runs the session INSERT name (createSessionName, or
// createNewSessionName, which does nothing when the session exists): created
// reports whether it made the row, pk the new row's.
func (s *Store) insertSession(ctx context.Context, tx *sql.Tx, name string, f format.Format, h *format.SessionFacts) (pk int64, created bool, err error) {
	// The new pk is the last inserted rowid, not a RETURNING clause: SQLite runs
	// RETURNING as a trigger, which makes the statement one that may abort half
	// way, so it first copied every page it touched (16 KiB each) into the
	// statement journal, a temporary file: that was most of a small session's
	// cost of creating its row.
	res, err := s.txStmt(ctx, tx, name).ExecContext(ctx, h.ID, f.Name(), f.Name(), string(h.Raw), h.Version, h.CreatedAt, nullStr(h.Cwd), h.Cwd,
		nullStr(h.Parent), seedArg(h), nullStr(h.Origin), h.DelegationDepth, nullStr(h.AgentPreset),
		s.Now().UnixMilli())
	if err != nil {
		return 0, false, fmt.Errorf("create session %s: %w", h.ID, err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return 0, false, err
	}
	if pk, err = res.LastInsertId(); err != nil {
		return 0, false, fmt.Errorf("create session %s: %w", h.ID, err)
	}
	return pk, true, nil
}

// resetSession keeps a session's archived lines as superseded, and its row takes
// the facts of the source that is read again in full.
func (s *Store) resetSession(ctx context.Context, tx *sql.Tx, pk int64, h *format.SessionFacts) error {
	if err := supersede(ctx, tx, pk, s.Now().UnixMilli()); err != nil {
		return fmt.Errorf("supersede %s: %w", h.ID, err)
	}
	_, err := tx.ExecContext(ctx, `UPDATE sessions SET header_raw = ?, created_at = ?, cwd = ?, project = ?,
		parent_session = ?, seed_length = ?, origin = ?, delegation_depth = ?, agent_preset = ?, state = NULL
		WHERE pk = ?`,
		string(h.Raw), h.CreatedAt, nullStr(h.Cwd), h.Cwd, nullStr(h.Parent), seedArg(h), nullStr(h.Origin),
		h.DelegationDepth, nullStr(h.AgentPreset), pk)
	return err
}

// supersede keeps a session's archived lines as superseded and deletes the views
// derived from them, before its source is read again in full.
func supersede(ctx context.Context, tx *sql.Tx, pk, now int64) error {
	stmts := []string{
		`INSERT INTO superseded_blocks (session_pk, first_line, last_line, raw_size, data, superseded_at)
		 SELECT session_pk, first_line, last_line, raw_size, data, ? FROM blocks WHERE session_pk = ?`,
		`DELETE FROM blocks WHERE session_pk = ?`,
		`DELETE FROM events WHERE session_pk = ?`,
		`DELETE FROM schedule_changes WHERE session_pk = ?`,
		`DELETE FROM messages WHERE session_pk = ?`,
		`DELETE FROM tool_calls WHERE session_pk = ?`,
		`DELETE FROM approvals WHERE session_pk = ?`,
		`DELETE FROM compactions WHERE session_pk = ?`,
		`DELETE FROM schedules WHERE session_pk = ?`,
		`DELETE FROM usage WHERE session_pk = ?`,
	}
	for i, q := range stmts {
		args := []any{pk}
		if i == 0 {
			args = []any{now, pk}
		}
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return err
		}
	}
	return nil
}

// liveOwner returns another file that archives the session and still exists, if
// any. Files of the session that no longer exist are marked gone and lose their
// cursor: this file takes the session over, and should one of them come back it
// is a duplicate, not an append.
func (j *importJob) liveOwner(ctx context.Context, tx *sql.Tx) (string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT id, path FROM files WHERE session_pk = ? AND path != ? AND gone = 0 ORDER BY id`, j.pk, j.path)
	if err != nil {
		return "", fmt.Errorf("find files of session %s: %w", j.facts.ID, err)
	}
	var stale []int64
	owner := ""
	for rows.Next() {
		var id int64
		var path string
		if err := rows.Scan(&id, &path); err != nil {
			rows.Close()
			return "", err
		}
		if _, statErr := os.Stat(path); statErr == nil {
			owner = path
			break
		}
		stale = append(stale, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil || owner != "" {
		return owner, err
	}
	for _, id := range stale {
		if _, err := tx.ExecContext(ctx, `UPDATE files SET gone = 1, cursor = NULL WHERE id = ?`, id); err != nil {
			return "", err
		}
	}
	return "", nil
}

// releaseOthers detaches every file of session pk but path from it (ImportOptions.
// TakeOver): they keep their row, identity and cursor, so one imported again
// unchanged stays unchanged, and one that changed finds the session archived from
// path, a duplicate.
func releaseOthers(ctx context.Context, tx *sql.Tx, pk int64, path string) error {
	_, err := tx.ExecContext(ctx, `UPDATE files SET session_pk = NULL WHERE session_pk = ? AND path != ?`, pk, path)
	return err
}

// seedArg is sessions.seed_length: NULL for a session that is no fork.
func seedArg(h *format.SessionFacts) any {
	if h.Seeded {
		return h.SeedLength
	}
	return nil
}

func (j *importJob) loadState(ctx context.Context, tx *sql.Tx, st *projState) error {
	var raw sql.NullString
	if err := tx.QueryRowContext(ctx, `SELECT state FROM sessions WHERE pk = ?`, j.pk).Scan(&raw); err != nil {
		return fmt.Errorf("load session state: %w", err)
	}
	if raw.Valid {
		if err := json.Unmarshal([]byte(raw.String), st); err != nil {
			return fmt.Errorf("session state: %w", err)
		}
	}
	return tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(last_line), 1) FROM blocks WHERE session_pk = ?`, j.pk).Scan(&j.maxLine)
}

// loadUndecodable keeps the undecodable-event warnings of the lines an append does
// not read again: the file's problems are saved anew at its end.
func (j *importJob) loadUndecodable(ctx context.Context, tx *sql.Tx, fileID int64) error {
	rows, err := tx.QueryContext(ctx, `
		SELECT COALESCE(line, 0), COALESCE(offset, -1), COALESCE(seq, 0), message
		FROM problems
		WHERE file_id = ? AND severity = 'warning' AND kind = ?
		ORDER BY rowid`, fileID, string(KindUndecodableEvent))
	if err != nil {
		return fmt.Errorf("load warnings: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		p := Problem{Kind: KindUndecodableEvent}
		if err := rows.Scan(&p.Line, &p.Offset, &p.Seq, &p.Message); err != nil {
			return err
		}
		j.undecodable = append(j.undecodable, p)
	}
	return rows.Err()
}

// replay catches the stream's checks up on the archived records (format.Replayer),
// so checks on appended records see the whole session without re-reading the file.
func (j *importJob) replay(ctx context.Context, tx *sql.Tx) error {
	r, ok := j.stream.(format.Replayer)
	if !ok {
		return nil
	}
	return eachLine(ctx, tx, j.store.zdec, j.pk, 1, -1, r.Replay)
}

// verifyStored checks a re-read line against the archived copy.
func (j *importJob) verifyStored(ctx context.Context, tx *sql.Tx, line int64, raw []byte) error {
	same := false
	err := eachLine(ctx, tx, j.store.zdec, j.pk, line, line, func(_ int64, archived []byte) error {
		same = bytes.Equal(archived, raw)
		return nil
	})
	if err != nil || !same {
		return fmt.Errorf("line %d differs from the archived copy: the file was rewritten behind its cursor; re-import it after `logbook import` detects the rewrite", line)
	}
	return nil
}

// Names of the statements that fold schedules and save a session's totals, among
// the store's prepared statements.
const (
	scheduleChangesName  = "scheduleChanges"
	deleteSchedulesName  = "deleteSchedules"
	insertScheduleName   = "insertSchedule"
	saveSessionName      = "saveSession"
	findSessionName      = "findSession"
	createSessionName    = "createSession"
	createNewSessionName = "createNewSession"
)

// insertSessionSQL makes a session's row.
const insertSessionSQL = `
		INSERT INTO sessions (id, agent, format, header_raw, version, created_at, cwd, project, parent_session,
			seed_length, origin, delegation_depth, agent_preset, health, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'ok', ?)`

// sessionSQL holds the statements every imported session runs to find or create
// its row and at its end, by name
// (see fileSQL).
var sessionSQL = map[string]string{
	findSessionName:   `SELECT pk FROM sessions WHERE id = ?`,
	createSessionName: insertSessionSQL,
	createNewSessionName: insertSessionSQL + `
		ON CONFLICT (id) DO NOTHING`,
	scheduleChangesName: `
		SELECT line, raw FROM schedule_changes
		WHERE session_pk = ? AND seq >= ?
		ORDER BY seq`,
	deleteSchedulesName: `DELETE FROM schedules WHERE session_pk = ?`,
	insertScheduleName: `
		INSERT INTO schedules (session_pk, schedule_id, kind, prompt, after_seconds, every_seconds, scheduled_at,
			status, created_seq, created_at, ended_seq, dispatch_count, last_accepted_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
	saveSessionName: `
		UPDATE sessions SET title = ?, title_source = ?, models = ?, first_time = ?, last_time = ?,
			record_count = ?, event_count = ?, turn_count = ?, message_count = ?, tool_call_count = ?,
			input_tokens = ?, output_tokens = ?, reasoning_tokens = ?, cached_tokens = ?,
			health = ?, last_end_seed = ?, policy = ?, sandbox_mode = ?, permission_preset = ?,
			state = ?, updated_at = ?, revision = revision + 1
		WHERE pk = ?`,
}

// foldSchedules re-folds the session's own schedule/change events (from seedLength
// on; a fork never adopts its parent's reminders) into the schedules table.
func (j *importJob) foldSchedules(ctx context.Context, tx *sql.Tx) ([]Problem, error) {
	sel := j.store.txStmt(ctx, tx, scheduleChangesName)
	rows, err := sel.QueryContext(ctx, j.pk, j.facts.SeedLength)
	if err != nil {
		return nil, err
	}
	fold := j.format.ScheduleFold()
	var problems []Problem
	found := false
	for rows.Next() {
		found = true
		var line int64
		var raw []byte
		if err := rows.Scan(&line, &raw); err != nil {
			rows.Close()
			return nil, err
		}
		if p := fold.Apply(line, raw); p != nil {
			problems = append(problems, *p)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	del := j.store.txStmt(ctx, tx, deleteSchedulesName)
	if _, err := del.ExecContext(ctx, j.pk); err != nil {
		return nil, err
	}
	if !found {
		return nil, nil
	}
	ins := j.store.txStmt(ctx, tx, insertScheduleName)
	for _, sc := range fold.Schedules() {
		var after, every, ended, accepted any
		if sc.Kind == "after" {
			after = sc.AfterSeconds
		}
		if sc.Kind == "every" {
			every = sc.EverySeconds
		}
		if sc.EndedSeq != 0 || sc.Status != ScheduleActive {
			ended = sc.EndedSeq
		}
		if !sc.LastAcceptedAt.IsZero() {
			accepted = sc.LastAcceptedAt.UnixMilli()
		}
		if _, err := ins.ExecContext(ctx,
			j.pk, sc.ID, sc.Kind, sc.Prompt, after, every, sc.ScheduledAt.UnixMilli(), sc.Status,
			sc.CreatedSeq, sc.CreatedAt, ended, sc.DispatchCount, accepted); err != nil {
			return nil, fmt.Errorf("save schedule %s: %w", sc.ID, err)
		}
	}
	return problems, nil
}

// saveSession writes the projection's totals onto the session row.
func (j *importJob) saveSession(ctx context.Context, tx *sql.Tx, st projState, v Verdict) error {
	state, _ := json.Marshal(st)
	models, _ := json.Marshal(append([]string{}, st.Models...))
	stmt := j.store.txStmt(ctx, tx, saveSessionName)
	_, err := stmt.ExecContext(ctx,
		nullStr(st.Title), nullStr(st.TitleSource), string(models), st.FirstTime, nullZero(st.LastTime),
		st.Records, st.Events, st.Turns, st.Messages, st.ToolCalls,
		st.Tokens.Input, st.Tokens.Output, st.Tokens.Reasoning, st.Tokens.CacheRead,
		string(v), st.LastEndSeed, nullStr(st.Policy), nullStr(st.Sandbox), nullStr(st.Preset),
		string(state), j.store.Now().UnixMilli(), j.pk)
	if err != nil {
		return fmt.Errorf("save session: %w", err)
	}
	return nil
}

func nullZero(n int64) any {
	if n == 0 {
		return nil
	}
	return n
}

// saveProgress records a durable intermediate point: the session totals and the
// stamp of a position, with the file's size left unknown so the next run resumes
// rather than skips.
func (j *importJob) saveProgress(ctx context.Context, tx *sql.Tx, st projState, at format.Position, stamp []byte) error {
	if err := j.saveSession(ctx, tx, st, VerdictOK); err != nil {
		return err
	}
	res := format.StreamResult{Verdict: VerdictOK, At: at, Stamp: stamp, LastSeq: st.LastSeq}
	saved := j.id
	j.id.size = -1
	defer func() { j.id = saved }()
	return j.saveFile(ctx, tx, res, st, nil)
}

// saveFile upserts the file row, its problems and any bytes that were not imported.
func (j *importJob) saveFile(ctx context.Context, tx *sql.Tx, res format.StreamResult, st projState, warnings []Problem) error {
	off := res.At.Offset
	// The sums of the bytes read before (the stored row's, or an earlier batch's of
	// this run) are reused: only what this run read is summed.
	if j.sums == nil && j.row != nil && j.row.resumable && j.action != "new" && j.action != "rewritten" {
		j.sums, j.sumsOff = j.row.sums, j.row.offset
	}
	sums, ok := j.readSums(off)
	if !ok {
		var err error
		if sums, err = prefixSums(j.file, off, j.sums, j.sumsOff); err != nil {
			return err
		}
	}
	j.sums, j.sumsOff = sums, off
	var pk any
	if j.pk != 0 {
		pk = j.pk
	}
	fresh := j.row == nil && !j.saved
	fileID, err := j.store.upsertFile(ctx, tx, fileUpsert{
		path: j.path, format: j.format.Name() + "/" + j.layout, compressed: j.compressed, sessionPK: pk, id: j.id,
		sums: sums, cursor: string(res.Stamp), verdict: res.Verdict, problem: res.Problem,
		records: st.Records, events: st.Events, lastSeq: st.LastSeq, now: j.store.Now().UnixMilli(),
		rewritten: j.action == "rewritten", fresh: fresh,
	})
	if err != nil {
		return err
	}
	j.saved = true
	saveProblems := j.store.saveProblems
	if fresh {
		saveProblems = j.store.addProblems // a new row has none to replace
	}
	if err := saveProblems(ctx, tx, fileID, res.Problem, warnings); err != nil {
		return err
	}
	j.report = storedFileReport(j.path, j.facts, j.pk, res, st, warnings)
	j.report.Agent, j.report.Format = j.format.Name(), j.layout
	if !res.Dropped {
		return nil
	}
	kind, from := "tail", off
	if res.Verdict != VerdictRecovered {
		kind, from = "original", 0
	}
	return saveBlob(ctx, tx, j.file, fileID, kind, from, j.store.Now().UnixMilli())
}

// readSums are the prefix sums of the file's first off bytes as this run read
// them, when a full read of a small file summed them as it read (see
// progressReader.summing) and all it read is imported: they are then the sums of
// what was imported, even should the file change before it is saved.
func (j *importJob) readSums(off int64) ([]byte, bool) {
	if j.sums != nil || j.read == nil || !j.read.summing || j.read.n != off {
		return nil, false
	}
	if off == 0 {
		return []byte{}, true
	}
	return binary.BigEndian.AppendUint32(make([]byte, 0, 4), j.read.sum), true
}

// readReport is the report of a run that has saved the file and read read bytes
// of it; it is built as the file is saved rather than read back from the archive.
func (j *importJob) readReport(read int64) FileReport {
	fr := j.report
	fr.Action, fr.Changed, fr.Bytes = j.action, j.action != "unchanged", read
	return fr
}

// storedFileReport is the report knownFiles would read back for a file saved with
// these values: an error keeps no seq, and warnings keep their order.
func storedFileReport(path string, h *format.SessionFacts, pk int64, res format.StreamResult, st projState, warnings []Problem) FileReport {
	fr := FileReport{Path: path, Verdict: res.Verdict, Records: st.Records, LogicalEvents: st.Events,
		LastSeq: st.LastSeq, Warnings: append([]Problem{}, warnings...)}
	if pk != 0 {
		fr.SessionID = h.ID
	}
	if p := res.Problem; p != nil {
		fr.Error = &Problem{Kind: p.Kind, Line: p.Line, Offset: p.Offset, Message: p.Message}
	}
	return fr
}

// saveDuplicate records a file whose session another live file already archives:
// its verdict is still computed, but its records are not stored twice.
func (j *importJob) saveDuplicate(ctx context.Context, ftx *fileTx, owner string) error {
	for {
		err := j.next().err
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
	}
	res := j.stream.Result()
	j.action = "duplicate"
	warn := Problem{Kind: "duplicate-session", Line: 1, Offset: 0,
		Message: fmt.Sprintf("session %s is already archived from %s; this copy was checked but not stored again", j.facts.ID, owner)}
	j.pk = 0
	if err := j.saveFile(ctx, ftx.Tx, res, projState{Records: res.Records, Events: res.Events, LastSeq: res.LastSeq},
		append(res.Warnings, warn)); err != nil {
		return err
	}
	return ftx.commit()
}

// saveRefused records a file whose stream refused it (its header unsupported or
// bad): no session, but the verdict and the original bytes are kept.
func (j *importJob) saveRefused(ctx context.Context) error {
	s, res := j.store, j.stream.Result()
	ftx, err := s.beginFile(ctx)
	ctx = context.WithoutCancel(ctx) // see run
	if err != nil {
		return err
	}
	defer ftx.rollback()
	tx := ftx.Tx
	fileID, err := s.upsertFile(ctx, tx, fileUpsert{
		path: j.path, format: j.format.Name() + "/" + j.layout, compressed: j.compressed, id: j.id, cursor: "",
		verdict: res.Verdict, problem: res.Problem, lastSeq: -1, now: s.Now().UnixMilli(), rewritten: j.row != nil,
	})
	if err != nil {
		return err
	}
	if err := s.saveProblems(ctx, tx, fileID, res.Problem, res.Warnings); err != nil {
		return err
	}
	if j.id.size > 0 {
		if err := saveBlob(ctx, tx, j.file, fileID, "original", 0, s.Now().UnixMilli()); err != nil {
			return err
		}
	}
	return ftx.commit()
}
