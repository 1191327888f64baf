package archive

import (
	"cmp"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/logbook/logbook/archive/format"
)

// importSource imports a session source of a format that reads its sources itself
// (format.SourceReader): an OpenHands conversation, a folder of event files or a
// single file. The format compares the source with the stamp it gave when the
// source was last archived and returns only what changed: nothing (the archive is
// not written), new records to append, or, when an earlier part was rewritten, the
// whole session again, whose archived lines are kept as superseded. The source's
// files are kept byte for byte (source_files), every version of each.
func (s *Store) importSource(ctx context.Context, f format.Format, path string, opts ImportOptions, known *knownFile) (FileReport, error) {
	fr := FileReport{Path: path, LastSeq: -1, Agent: f.Name()}
	sr, ok := f.(format.SourceReader)
	if !ok {
		return fr, fmt.Errorf("format %s does not read sources", f.Name())
	}
	row, err := s.fileRow(ctx, path)
	if err != nil {
		return fr, err
	}
	var stamp []byte
	if row != nil && !row.gone && row.cursorRaw != "" && !(opts.TakeOver && !row.sessionPK.Valid) {
		stamp = []byte(row.cursorRaw)
	}
	var rd *format.Read
	if ar, ok := f.(format.AddedReader); ok && opts.Added != nil && stamp != nil {
		rd, err = ar.ReadAdded(ctx, path, stamp, opts.Added)
	} else {
		rd, err = sr.ReadSource(ctx, path, stamp)
	}
	if err != nil {
		return fr, err
	}
	if rd.Unchanged {
		if known != nil {
			return known.report, nil
		}
		return s.storedReport(ctx, path, "unchanged")
	}
	if !rd.Reset && (row == nil || !row.sessionPK.Valid) {
		// A duplicate's stamp says whether it changed; what changed is not an
		// append to a session it does not archive: read it whole.
		if rd, err = sr.ReadSource(ctx, path, nil); err != nil {
			return fr, err
		}
	}
	var id identity
	if fi, err := os.Stat(path); err == nil {
		id = statIdentity(fi)
	}
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return fr, err
	}
	defer tx.Rollback()
	now := s.Now().UnixMilli()
	sessionID := rd.Session.ID
	if sessionID == "" {
		sessionID = filepath.Base(path)
	}
	if rd.Reset || opts.TakeOver {
		// The session's records are about to be superseded (a rewrite, or
		// another source taking the session over): the files kept as them get
		// their bytes back first.
		if err := s.unshareFiles(ctx, tx, sessionID); err != nil {
			return fr, err
		}
	}
	pk, st, action, owner, err := s.openSource(ctx, tx, f, path, sessionID, rd, opts.TakeOver)
	if err != nil {
		return fr, err
	}
	fileFmt := f.Name() + "/" + rd.Layout
	if owner != "" {
		// Another live source archives this session (an exported zip of a
		// conversation whose folder is archived too): checked, not stored twice.
		warn := Problem{Kind: "duplicate-session", Line: 1, Offset: 0,
			Message: fmt.Sprintf("session %s is already archived from %s; this copy was checked but not stored again", sessionID, owner)}
		warnings := append(append([]Problem{}, rd.Warnings...), warn)
		fileID, err := s.upsertFile(ctx, tx, fileUpsert{path: path, format: fileFmt, id: id, cursor: string(rd.Stamp),
			verdict: rd.Verdict, problem: rd.Problem, records: int64(len(rd.Records)), events: rd.Events, lastSeq: -1, now: now})
		if err != nil {
			return fr, err
		}
		if err := s.saveProblems(ctx, tx, fileID, rd.Problem, warnings); err != nil {
			return fr, err
		}
		if err := tx.Commit(); err != nil {
			return fr, err
		}
		fr.Verdict, fr.Error, fr.Warnings, fr.Format = rd.Verdict, rd.Problem, warnings, rd.Layout
		fr.Records, fr.LogicalEvents, fr.Changed, fr.Action, fr.Bytes = int64(len(rd.Records)), rd.Events, true, "duplicate", rd.Bytes
		return fr, nil
	}
	// The files first: a batch committed partway holds the files of its records.
	// A file that is its record's bytes is kept as that record, once its record
	// is written (refs.keep before each commit).
	refs, err := s.keepFiles(ctx, tx, pk, rd.Files, s.recordFiles(rd), now)
	if err != nil {
		return fr, err
	}
	job := &importJob{store: s, pk: pk}
	proj := newProjector(ctx, tx, s, pk, st)
	defer func() { proj.close() }()
	batch := opts.BatchRecords
	if batch <= 0 {
		batch = 20000
	}
	for i := range rd.Records {
		if i%4096 == 0 && ctx.Err() != nil {
			return fr, ctx.Err()
		}
		rec := &rd.Records[i]
		if err := proj.record(rec); err != nil {
			return fr, fmt.Errorf("line %d: %w", rec.Line, err)
		}
		if rd.StampAt == nil || (i+1)%batch != 0 || i+1 == len(rd.Records) {
			continue
		}
		// Commit a durable prefix, with the stamp of the source as far as it, so
		// an interrupted import resumes after it (see importJob.run).
		if err := proj.flush(); err != nil {
			return fr, err
		}
		if err := refs.keep(ctx, tx, rec.Line); err != nil {
			return fr, err
		}
		if err := job.saveSession(ctx, tx, proj.st, VerdictOK); err != nil {
			return fr, err
		}
		if _, err := s.upsertFile(ctx, tx, fileUpsert{path: path, format: fileFmt, sessionPK: pk,
			id: identity{size: -1, mtime: id.mtime, inode: id.inode, ctime: id.ctime}, cursor: string(rd.StampAt(i + 1)),
			verdict: VerdictOK, records: proj.st.Records, events: proj.st.Events, lastSeq: proj.st.LastSeq, now: now,
			rewritten: action == "rewritten"}); err != nil {
			return fr, err
		}
		proj.close()
		if err := tx.Commit(); err != nil {
			return fr, err
		}
		if opts.Committed != nil {
			opts.Committed(path, rec.Line)
		}
		if err := ctx.Err(); err != nil {
			return fr, err
		}
		if tx, err = s.write.BeginTx(ctx, nil); err != nil {
			return fr, err
		}
		defer tx.Rollback()
		proj = newProjector(ctx, tx, s, pk, proj.st)
	}
	if err := proj.flushEvents(); err != nil {
		return fr, err
	}
	proj.blocks.flush()
	if err := refs.keep(ctx, tx, -1); err != nil {
		return fr, err
	}
	if m := rd.Model; m != nil {
		proj.addModel(m.Provider, m.Model)
	}
	if t := rd.Title; t != nil {
		proj.st.Title = t.Title
		if t.Source != nil {
			proj.st.TitleSource = *t.Source
		}
	}
	if err := job.saveSession(ctx, tx, proj.st, rd.Verdict); err != nil {
		return fr, err
	}
	fileID, err := s.upsertFile(ctx, tx, fileUpsert{path: path, format: fileFmt, sessionPK: pk, id: id,
		cursor: string(rd.Stamp), verdict: rd.Verdict, problem: rd.Problem, records: proj.st.Records,
		events: proj.st.Events, lastSeq: proj.st.LastSeq, now: now, rewritten: action == "rewritten"})
	if err != nil {
		return fr, err
	}
	if err := s.saveProblems(ctx, tx, fileID, rd.Problem, rd.Warnings); err != nil {
		return fr, err
	}
	if err := proj.blocks.wait(); err != nil {
		return fr, err
	}
	if err := tx.Commit(); err != nil {
		return fr, err
	}
	fr.SessionID, fr.Verdict, fr.Error, fr.Format = sessionID, rd.Verdict, rd.Problem, rd.Layout
	fr.Warnings = append([]Problem{}, rd.Warnings...)
	fr.Records, fr.LogicalEvents, fr.LastSeq = proj.st.Records, proj.st.Events, proj.st.LastSeq
	fr.Changed, fr.Action, fr.Bytes = true, action, rd.Bytes
	return fr, nil
}

// openSource finds or creates the session a source's read goes to, and the
// projection state its records continue. A read from the start (Reset) of a
// session already archived supersedes what it holds, unless another source that
// still exists archives it: then owner names that source and nothing is written,
// or, with takeOver, the other sources are released (releaseOthers).
func (s *Store) openSource(ctx context.Context, tx *sql.Tx, f format.Format, path, sessionID string, rd *format.Read, takeOver bool) (pk int64, st projState, action, owner string, err error) {
	st.LastSeq = -1
	h := rd.Session
	h.ID = sessionID
	err = tx.QueryRowContext(ctx, `SELECT pk FROM sessions WHERE id = ?`, sessionID).Scan(&pk)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		pk, err = s.createSession(ctx, tx, f, &h)
		return pk, st, "new", "", err
	case err != nil:
		return 0, st, "", "", fmt.Errorf("find session %s: %w", sessionID, err)
	}
	job := &importJob{store: s, pk: pk, path: path, facts: &h}
	if !rd.Reset {
		if err := job.loadState(ctx, tx, &st); err != nil {
			return 0, st, "", "", err
		}
		return pk, st, "appended", "", nil
	}
	if owner, err := job.liveOwner(ctx, tx); err != nil || owner != "" && !takeOver {
		return 0, st, "", owner, err
	} else if owner != "" {
		if err := releaseOthers(ctx, tx, pk, path); err != nil {
			return 0, st, "", "", fmt.Errorf("take %s over from %s: %w", sessionID, owner, err)
		}
	}
	// Rewritten upstream, or moved here from a path that is gone (as for a stream).
	return pk, st, "rewritten", "", s.resetSession(ctx, tx, pk, &h)
}

// recordFiles names the files read that are one of the read's records (an
// OpenHands event file, whose record names it as its file): byte for byte its
// raw bytes (compact JSON), or those with whitespace added (pretty-printed);
// with the line of that record and the file's layout (fileLayout).
func (s *Store) recordFiles(rd *format.Read) map[string]recordRef {
	data := make(map[string][]byte, len(rd.Files))
	for _, f := range rd.Files {
		data[f.Name] = f.Data
	}
	out := map[string]recordRef{}
	for i := range rd.Records {
		rec := &rd.Records[i]
		if rec.Event == nil || rec.Event.Key == nil || rec.Event.Key.File == "" {
			continue
		}
		if _, dup := out[rec.Event.Key.File]; dup {
			continue
		}
		if d, ok := data[rec.Event.Key.File]; ok {
			if layout, ok := fileLayout(s.zenc, rec.Raw, d); ok {
				out[rec.Event.Key.File] = recordRef{rec.Line, layout}
			}
		}
	}
	return out
}

// recordRef is the record a file is kept as: its line, and the file's layout.
type recordRef struct {
	line   int64
	layout []byte
}

// keptRef is a source file to keep as its record's bytes: a row to insert, or
// (repoint) the current row to point at the record's new line.
type keptRef struct {
	f       format.File
	line    int64
	layout  []byte
	gen     int64
	repoint bool
}

// pendingRefs are the files keepFiles keeps as records, in line order, written
// as their records are.
type pendingRefs struct {
	pk, now int64
	refs    []keptRef
}

// keep writes the pending files whose record lines are at most upTo (all, for
// -1): their records are written in this transaction.
func (p *pendingRefs) keep(ctx context.Context, tx *sql.Tx, upTo int64) error {
	n := 0
	for n < len(p.refs) && (upTo < 0 || p.refs[n].line <= upTo) {
		n++
	}
	if n == 0 {
		return nil
	}
	ins, err := tx.PrepareContext(ctx, `
		INSERT INTO source_files (session_pk, name, generation, role, size, mtime_ns, hash, data, archived_at, line)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer ins.Close()
	for _, r := range p.refs[:n] {
		if r.repoint {
			_, err = tx.ExecContext(ctx, `UPDATE source_files SET data = ?, line = ?, hash_state = NULL
				WHERE session_pk = ? AND name = ? AND generation = ?`, r.layout, r.line, p.pk, r.f.Name, r.gen)
		} else {
			_, err = ins.ExecContext(ctx, p.pk, r.f.Name, r.gen, r.f.Role, r.f.Size, r.f.ModTime, r.f.Hash, r.layout, p.now, r.line)
		}
		if err != nil {
			return fmt.Errorf("keep %s: %w", r.f.Name, err)
		}
	}
	p.refs = p.refs[n:]
	return nil
}

// keepFiles stores the source's files read this time. A file whose bytes the
// archive holds already is not stored again; one whose bytes changed gets a new
// generation, and the version before it is kept, marked superseded. A file that
// is a record's bytes (refs: its record's line) is not stored beside it: it is
// returned, to be kept as that record once the record is written.
func (s *Store) keepFiles(ctx context.Context, tx *sql.Tx, pk int64, files []format.File, refs map[string]recordRef, now int64) (*pendingRefs, error) {
	pending := &pendingRefs{pk: pk, now: now}
	if len(files) == 0 {
		return pending, nil
	}
	type kept struct {
		hash      string
		gen, last int64 // the current version's generation, and the highest kept
		line      int64 // the current version's record line, 0 when it keeps its bytes
	}
	have := map[string]*kept{}
	const cols = `SELECT name, hash, generation, superseded_at IS NULL, coalesce(line, 0) FROM source_files WHERE session_pk = ?`
	var rows *sql.Rows
	var err error
	if len(files) <= 64 {
		// A few files (a live conversation's latest): the versions of those
		// alone, not of every file the session holds.
		names := make([]any, 0, len(files)+1)
		names = append(names, pk)
		for _, f := range files {
			names = append(names, f.Name)
		}
		rows, err = tx.QueryContext(ctx, cols+` AND name IN (?`+strings.Repeat(`, ?`, len(files)-1)+`)`, names...)
	} else {
		rows, err = tx.QueryContext(ctx, cols, pk)
	}
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var name, hash string
		var gen, line int64
		var current bool
		if err := rows.Scan(&name, &hash, &gen, &current, &line); err != nil {
			rows.Close()
			return nil, err
		}
		k := have[name]
		if k == nil {
			k = &kept{}
			have[name] = k
		}
		k.last = max(k.last, gen)
		if current {
			k.hash, k.gen, k.line = hash, gen, line
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	ins, err := tx.PrepareContext(ctx, `
		INSERT INTO source_files (session_pk, name, generation, role, size, mtime_ns, hash, data, archived_at, hash_state)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return nil, err
	}
	defer ins.Close()
	var buf []byte
	for _, f := range files {
		k := have[f.Name]
		if f.Append && k != nil && k.gen != 0 && k.line == 0 {
			if err := s.appendKept(ctx, tx, pk, k.gen, f); err != nil {
				return nil, fmt.Errorf("keep %s: %w", f.Name, err)
			}
			continue
		}
		ref, isRef := refs[f.Name]
		if k != nil && k.hash == f.Hash {
			if isRef && k.line != ref.line {
				pending.refs = append(pending.refs, keptRef{f: f, line: ref.line, layout: ref.layout, gen: k.gen, repoint: true})
			}
			continue
		}
		gen := int64(1)
		if k != nil {
			gen = k.last + 1
			if k.gen != 0 {
				if k.line != 0 {
					// Its record is still the current one here (it is superseded
					// before a reset, see unshareFiles): its bytes go with it.
					if err := s.unshare(ctx, tx, pk, []sharedFile{{f.Name, k.gen, k.line, k.hash}}); err != nil {
						return nil, err
					}
				}
				if _, err := tx.ExecContext(ctx, `UPDATE source_files SET superseded_at = ? WHERE session_pk = ? AND name = ? AND generation = ?`,
					now, pk, f.Name, k.gen); err != nil {
					return nil, fmt.Errorf("keep %s: %w", f.Name, err)
				}
			}
		}
		if isRef {
			pending.refs = append(pending.refs, keptRef{f: f, line: ref.line, layout: ref.layout, gen: gen})
			continue
		}
		buf = s.zenc.EncodeAll(f.Data, buf[:0])
		if _, err := ins.ExecContext(ctx, pk, f.Name, gen, f.Role, f.Size, f.ModTime, f.Hash, buf, now, hashState(f.Data)); err != nil {
			return nil, fmt.Errorf("keep %s: %w", f.Name, err)
		}
	}
	slices.SortStableFunc(pending.refs, func(a, b keptRef) int { return cmp.Compare(a.line, b.line) })
	return pending, nil
}

// hashState is the SHA-256 state after data, to hash a file on from when it
// grows.
func hashState(data []byte) []byte {
	h := sha256.New()
	h.Write(data)
	st, _ := h.(encoding.BinaryMarshaler).MarshalBinary()
	return st
}

// appendKept adds the bytes read on from a file's cursor to its kept version:
// nothing of it was lost, so the version is extended in place rather than
// superseded. The new bytes are one more part, and the hash goes on from the
// state kept: a growth costs its own bytes, not the file's (a row written
// before hash states were kept is hashed whole once).
func (s *Store) appendKept(ctx context.Context, tx *sql.Tx, pk, gen int64, f format.File) error {
	var state []byte
	var parts int64
	if err := tx.QueryRowContext(ctx, `SELECT hash_state,
		(SELECT count(*) FROM source_file_parts p WHERE p.session_pk = sf.session_pk AND p.name = sf.name AND p.generation = sf.generation)
		FROM source_files sf WHERE session_pk = ? AND name = ? AND generation = ?`,
		pk, f.Name, gen).Scan(&state, &parts); err != nil {
		return err
	}
	h := sha256.New()
	if state == nil || h.(encoding.BinaryUnmarshaler).UnmarshalBinary(state) != nil {
		h.Reset()
		data, err := s.keptBytes(ctx, tx, pk, f.Name, gen)
		if err != nil {
			return err
		}
		h.Write(data)
	}
	h.Write(f.Data)
	state, err := h.(encoding.BinaryMarshaler).MarshalBinary()
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO source_file_parts (session_pk, name, generation, part, data) VALUES (?, ?, ?, ?, ?)`,
		pk, f.Name, gen, parts+1, s.zenc.EncodeAll(f.Data, nil)); err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `UPDATE source_files SET size = size + ?, mtime_ns = ?, hash = ?, hash_state = ?
		WHERE session_pk = ? AND name = ? AND generation = ?`,
		len(f.Data), f.ModTime, hex.EncodeToString(h.Sum(nil)), state, pk, f.Name, gen)
	return err
}

// sharedFile is a source_files row kept as its record's bytes.
type sharedFile struct {
	name      string
	gen, line int64
	hash      string
}

// unshareFiles gives every file of the session sessionID kept as its record's
// bytes its bytes back in its own row, before the session's records are
// superseded (its source is read again in full). Nothing when the session is
// not archived yet.
func (s *Store) unshareFiles(ctx context.Context, tx *sql.Tx, sessionID string) error {
	rows, err := tx.QueryContext(ctx, `
		SELECT sf.session_pk, sf.name, sf.generation, sf.line, sf.hash FROM source_files sf
		JOIN sessions ss ON ss.pk = sf.session_pk
		WHERE ss.id = ? AND sf.line IS NOT NULL
		ORDER BY sf.line`, sessionID)
	if err != nil {
		return err
	}
	var pk int64
	var shared []sharedFile
	for rows.Next() {
		var f sharedFile
		if err := rows.Scan(&pk, &f.name, &f.gen, &f.line, &f.hash); err != nil {
			rows.Close()
			return err
		}
		shared = append(shared, f)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	// A few hundred at a time: each is in memory until written.
	for len(shared) > 0 {
		n := min(len(shared), 256)
		if err := s.unshare(ctx, tx, pk, shared[:n]); err != nil {
			return err
		}
		shared = shared[n:]
	}
	return nil
}

// unshare writes the bytes of files kept as their records into their rows,
// checked against their hashes.
func (s *Store) unshare(ctx context.Context, tx *sql.Tx, pk int64, files []sharedFile) error {
	lines := &lineCache{s: s, q: tx, pk: pk}
	for _, f := range files {
		var layout []byte
		err := tx.QueryRowContext(ctx, `SELECT data FROM source_files WHERE session_pk = ? AND name = ? AND generation = ?`,
			pk, f.name, f.gen).Scan(&layout)
		var raw []byte
		if err == nil {
			raw, err = recordFile(ctx, lines, f.line, layout, f.hash)
		}
		if err != nil {
			return fmt.Errorf("keep %s: %w", f.name, err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE source_files SET data = ?, line = NULL, hash_state = ?
			WHERE session_pk = ? AND name = ? AND generation = ?`,
			s.zenc.EncodeAll(raw, nil), hashState(raw), pk, f.name, f.gen); err != nil {
			return fmt.Errorf("keep %s: %w", f.name, err)
		}
	}
	return nil
}

// checkSource is CheckFile for a source a format reads itself.
func checkSource(f format.Format, path string) FileReport {
	fr := FileReport{Path: path, LastSeq: -1, Action: "checked", Warnings: []Problem{}, Agent: f.Name()}
	rd, err := f.(format.SourceReader).ReadSource(context.Background(), path, nil)
	if err != nil {
		return failedReport(path, err)
	}
	fr.SessionID, fr.Verdict, fr.Error, fr.Format = rd.Session.ID, rd.Verdict, rd.Problem, rd.Layout
	fr.Warnings = append(fr.Warnings, rd.Warnings...)
	fr.Records, fr.LogicalEvents, fr.LastSeq, fr.Bytes = int64(len(rd.Records)), rd.Events, rd.Events-1, rd.Bytes
	return fr
}
