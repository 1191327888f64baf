package archive

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/klauspost/compress/zstd"
)

// fileUpsert is everything saved on a files row.
type fileUpsert struct {
	path       string
	format     string // files.format: "<format>/<layout>"
	compressed bool
	sessionPK  any
	id         identity
	sums       []byte // prefix_sums of the bytes before the cursor
	cursor     string
	verdict    Verdict
	problem    *Problem
	records    int64
	events     int64
	lastSeq    int64
	now        int64
	rewritten  bool
	// fresh is set when the file has no row yet (this import found none and has
	// saved none): a plain INSERT then makes it (see upsertFile).
	fresh bool
}

// Names of the statements that save a file, among the store's prepared statements.
const (
	upsertFileName     = "upsertFile"
	insertFileName     = "insertFile"
	deleteProblemsName = "deleteProblems"
	insertProblemName  = "insertProblem"
	fileRowName        = "fileRow"
)

// fileSQL holds the statements that load and save a file, by name: every imported file runs
// them, and preparing them for each one cost about as much as running them.
var fileSQL = map[string]string{
	upsertFileName: `
		INSERT INTO files (path, format, compressed, session_pk, size, mtime_ns, inode, ctime_ns, head_hash, tail_hash,
			prefix_sums, cursor, verdict, error_kind, error_line, error_offset, error_message, records, events, last_seq,
			gone, first_seen, last_import)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?)
		ON CONFLICT (path) DO UPDATE SET
			format = excluded.format, compressed = excluded.compressed, session_pk = excluded.session_pk, size = excluded.size,
			mtime_ns = excluded.mtime_ns, inode = excluded.inode, ctime_ns = excluded.ctime_ns,
			prefix_sums = excluded.prefix_sums, upstream = NULL, head_hash = excluded.head_hash,
			tail_hash = excluded.tail_hash, cursor = excluded.cursor, verdict = excluded.verdict,
			error_kind = excluded.error_kind, error_line = excluded.error_line, error_offset = excluded.error_offset,
			error_message = excluded.error_message, records = excluded.records, events = excluded.events,
			last_seq = excluded.last_seq, gone = 0, last_import = excluded.last_import,
			generation = files.generation + ?
		RETURNING id`,
	insertFileName: `
		INSERT INTO files (path, format, compressed, session_pk, size, mtime_ns, inode, ctime_ns, head_hash, tail_hash,
			prefix_sums, cursor, verdict, error_kind, error_line, error_offset, error_message, records, events, last_seq,
			gone, first_seen, last_import)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?)`,
	fileRowName: `
		SELECT id, session_pk, size, mtime_ns, inode, COALESCE(ctime_ns, 0), prefix_sums, last_seq, upstream,
		       head_hash, tail_hash, cursor, verdict, COALESCE(error_kind, ''), generation, gone
		FROM files WHERE path = ?`,
	deleteProblemsName: `DELETE FROM problems WHERE file_id = ?`,
	insertProblemName:  `INSERT INTO problems (file_id, severity, kind, line, offset, seq, message) VALUES (?, ?, ?, ?, ?, ?, ?)`,
}

// upsertFile writes a files row and returns its id.
func (s *Store) upsertFile(ctx context.Context, tx *sql.Tx, u fileUpsert) (int64, error) {
	var kind, msg, line, off any
	if u.problem != nil {
		kind, msg, line, off = string(u.problem.Kind), u.problem.Message, u.problem.Line, u.problem.Offset
	}
	var cursor any
	if u.cursor != "" {
		cursor = u.cursor
	}
	gen := 0
	if u.rewritten {
		gen = 1
	}
	args := []any{u.path, fileFormat(u.format), boolInt(u.compressed), u.sessionPK, u.id.size, u.id.mtime, u.id.inode, u.id.ctime, nil, nil, // head and tail hashes: rows written now have prefix sums instead
		u.sums, cursor,
		string(u.verdict), kind, line, off, msg, u.records, u.events, u.lastSeq, u.now, u.now}
	if u.fresh {
		// A new file's row, by a plain INSERT and its last inserted rowid: the upsert's
		// RETURNING runs as a trigger, which makes SQLite copy every page the statement
		// touches into the statement journal (a temporary file) first. With thousands
		// of small files that copy cost more than the row itself. Should a row exist
		// after all, the INSERT fails on the path's uniqueness: the file fails, never
		// overwrites.
		res, err := s.txStmt(ctx, tx, insertFileName).ExecContext(ctx, args...)
		if err != nil {
			return 0, fmt.Errorf("save file %s: %w", u.path, err)
		}
		id, err := res.LastInsertId()
		if err != nil {
			return 0, fmt.Errorf("save file %s: %w", u.path, err)
		}
		return id, nil
	}
	var id int64
	if err := s.txStmt(ctx, tx, upsertFileName).QueryRowContext(ctx, append(args, gen)...).Scan(&id); err != nil {
		return 0, fmt.Errorf("save file %s: %w", u.path, err)
	}
	return id, nil
}

// fileFormat is files.format for a file: a caller that names no format stores a
// legacy row's (dsh's V0), which reads back as dsh's layout.
func fileFormat(f string) string {
	if f == "" {
		return legacyFileFormat
	}
	return f
}

// saveProblems replaces a file's stored problems.
func (s *Store) saveProblems(ctx context.Context, tx *sql.Tx, fileID int64, fatal *Problem, warnings []Problem) error {
	del := s.txStmt(ctx, tx, deleteProblemsName)
	if _, err := del.ExecContext(ctx, fileID); err != nil {
		return err
	}
	return s.addProblems(ctx, tx, fileID, fatal, warnings)
}

// addProblems stores a file's problems beside those it has (none, for a file
// whose row was just made).
func (s *Store) addProblems(ctx context.Context, tx *sql.Tx, fileID int64, fatal *Problem, warnings []Problem) error {
	if fatal == nil && len(warnings) == 0 {
		return nil
	}
	stmt := s.txStmt(ctx, tx, insertProblemName)
	if fatal != nil {
		if _, err := stmt.ExecContext(ctx, fileID, "error", string(fatal.Kind), fatal.Line, fatal.Offset, fatal.Seq, fatal.Message); err != nil {
			return err
		}
	}
	for _, w := range warnings {
		if _, err := stmt.ExecContext(ctx, fileID, "warning", string(w.Kind), w.Line, w.Offset, w.Seq, w.Message); err != nil {
			return err
		}
	}
	return nil
}

// blobChunkBytes is how many of the original bytes one file_blob_chunks row holds:
// keeping a file's bytes needs about twice this in memory, whatever the file's size.
const blobChunkBytes = 4 << 20

// saveBlob keeps the file's bytes from offset on, zstd-compressed, so bytes that could
// not be imported as records are never lost. They are read, compressed and stored in
// chunks of blobChunkBytes (see migration 0004), never held whole.
func saveBlob(ctx context.Context, tx *sql.Tx, f *os.File, fileID int64, kind string, from int64, now int64) error {
	var gen int64
	err := tx.QueryRowContext(ctx, `
		INSERT INTO file_blobs (file_id, generation, kind, offset, size, data, chunks, created_at)
		VALUES (?, (SELECT generation FROM files WHERE id = ?), ?, ?, 0, x'', 0, ?)
		ON CONFLICT (file_id, generation, kind) DO UPDATE SET
			offset = excluded.offset, size = 0, data = x'', chunks = 0, created_at = excluded.created_at
		RETURNING generation`,
		fileID, fileID, kind, from, now).Scan(&gen)
	if err != nil {
		return fmt.Errorf("keep bytes: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM file_blob_chunks WHERE file_id = ? AND generation = ? AND kind = ?`,
		fileID, gen, kind); err != nil {
		return fmt.Errorf("keep bytes: %w", err)
	}
	// One frame per chunk: the chunks concatenated are one zstd stream, and a reader
	// needs one chunk in memory at a time.
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1),
		zstd.WithLowerEncoderMem(true))
	if err != nil {
		return err
	}
	defer enc.Close()
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO file_blob_chunks (file_id, generation, kind, seq, data) VALUES (?, ?, ?, ?, ?)`)
	if err != nil {
		return fmt.Errorf("keep bytes: %w", err)
	}
	src := io.NewSectionReader(f, from, 1<<62)
	buf := make([]byte, blobChunkBytes)
	var z []byte
	var size, chunks int64
	for {
		n, rerr := io.ReadFull(src, buf)
		if n > 0 {
			z = enc.EncodeAll(buf[:n], z[:0])
			if _, err := stmt.ExecContext(ctx, fileID, gen, kind, chunks, z); err != nil {
				return fmt.Errorf("keep bytes %d-%d: %w", from+size, from+size+int64(n), err)
			}
			size += int64(n)
			chunks++
		}
		if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
			break
		}
		if rerr != nil {
			return fmt.Errorf("read bytes to keep: %w", rerr)
		}
	}
	_, err = tx.ExecContext(ctx, `UPDATE file_blobs SET size = ?, chunks = ? WHERE file_id = ? AND generation = ? AND kind = ?`,
		size, chunks, fileID, gen, kind)
	return err
}

// KeptBytes writes the bytes of a file that were kept because they could not be
// imported as records, of the file's latest generation: kind "original" (a corrupt or
// unsupported file: all of it), "tail" (a dropped torn or uncommitted tail), or any
// other kind saveBlob was given. It
// returns the offset in the file the bytes start at, or ErrNotFound when none are
// kept. The bytes are streamed, one stored chunk at a time.
func (s *Store) KeptBytes(ctx context.Context, path, kind string, w io.Writer) (int64, error) {
	return keptBytes(ctx, s.read, path, kind, w)
}

// blobQuerier is what keptBytes needs of a *sql.DB or *sql.Tx.
type blobQuerier interface {
	querier
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func keptBytes(ctx context.Context, q blobQuerier, path, kind string, w io.Writer) (int64, error) {
	var fileID, gen, off, chunks int64
	err := q.QueryRowContext(ctx, `
		SELECT b.file_id, b.generation, b.offset, b.chunks FROM file_blobs b JOIN files f ON f.id = b.file_id
		WHERE f.path = ? AND b.kind = ?
		ORDER BY b.generation DESC LIMIT 1`, path, kind).Scan(&fileID, &gen, &off, &chunks)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("kept %s bytes of %s: %w", kind, path, ErrNotFound)
	}
	if err != nil {
		return 0, err
	}
	query := `SELECT data FROM file_blob_chunks WHERE file_id = ? AND generation = ? AND kind = ? ORDER BY seq`
	if chunks == 0 {
		// Kept before migration 0004: the whole stream in the row itself.
		query = `SELECT data FROM file_blobs WHERE file_id = ? AND generation = ? AND kind = ?`
	}
	rows, err := q.QueryContext(ctx, query, fileID, gen, kind)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
	if err != nil {
		return 0, err
	}
	defer dec.Close()
	var n int64
	for rows.Next() {
		var data []byte
		if err := rows.Scan(&data); err != nil {
			return 0, err
		}
		// A stream, not DecodeAll: an old single row may hold a large file.
		if err := dec.Reset(bytes.NewReader(data)); err != nil {
			return 0, err
		}
		m, err := io.Copy(w, dec)
		n += m
		if err != nil {
			return 0, fmt.Errorf("kept %s bytes of %s at byte %d: %w", kind, path, off+n, err)
		}
	}
	return off, rows.Err()
}

// fileRow loads the stored state of a file, or nil.
func (s *Store) fileRow(ctx context.Context, path string) (*fileRow, error) {
	var r fileRow
	var cursor, upstream sql.NullString
	err := s.writeStmt(ctx, fileRowName).QueryRowContext(ctx, path).Scan(&r.id, &r.sessionPK, &r.size, &r.mtime, &r.inode, &r.ctime, &r.sums,
		&r.lastSeq, &upstream, &r.headHash, &r.tailHash, &cursor, &r.verdict, &r.errorKind, &r.generation, &r.gone)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("load file %s: %w", path, err)
	}
	if upstream.Valid {
		r.upstream = new(upstreamState)
		if err := json.Unmarshal([]byte(upstream.String), r.upstream); err != nil {
			return nil, fmt.Errorf("load file %s: upstream state: %w", path, err)
		}
	}
	r.cursorRaw = cursor.String
	return &r, nil
}

// identity is the stat stored for the file.
func (r *fileRow) identity() identity {
	return identity{size: r.size, mtime: r.mtime, inode: r.inode, ctime: r.ctime}
}

// storedReport builds a file's report from what the archive holds.
func (s *Store) storedReport(ctx context.Context, path, action string) (FileReport, error) {
	known, err := s.knownFiles(ctx, path)
	if err != nil {
		return FileReport{Path: path, LastSeq: -1}, err
	}
	k := known[path]
	if k == nil {
		return FileReport{Path: path, LastSeq: -1}, fmt.Errorf("load report %s: %w", path, ErrNotFound)
	}
	fr := k.report
	fr.Action, fr.Changed = action, action != "unchanged"
	return fr, nil
}

// markGone flags files under the walked roots that no longer exist, and their
// sessions, as gone upstream. Their archived data stays.
func (s *Store) markGone(ctx context.Context, roots, found []string) ([]string, error) {
	var gone []string
	present := make(map[string]bool, len(found))
	for _, f := range found {
		present[f] = true
	}
	for _, root := range roots {
		prefix := strings.TrimSuffix(root, string(filepath.Separator)) + string(filepath.Separator)
		rows, err := s.write.QueryContext(ctx, `SELECT id, path FROM files WHERE gone = 0 AND substr(path, 1, ?) = ?`, len(prefix), prefix)
		if err != nil {
			return nil, err
		}
		type cand struct {
			id   int64
			path string
		}
		var cands []cand
		for rows.Next() {
			var c cand
			if err := rows.Scan(&c.id, &c.path); err != nil {
				rows.Close()
				return nil, err
			}
			cands = append(cands, c)
		}
		rows.Close()
		for _, c := range cands {
			if present[c.path] {
				continue
			}
			if _, err := os.Lstat(c.path); !errors.Is(err, os.ErrNotExist) {
				continue
			}
			if _, err := s.write.ExecContext(ctx, `UPDATE files SET gone = 1 WHERE id = ?`, c.id); err != nil {
				return nil, err
			}
			var sid sql.NullString
			_ = s.write.QueryRowContext(ctx, `
				UPDATE sessions SET health = 'gone' WHERE pk = (SELECT session_pk FROM files WHERE id = ?)
				RETURNING id`, c.id).Scan(&sid)
			if sid.Valid {
				gone = append(gone, sid.String)
			}
		}
	}
	return gone, nil
}

// knownFile is what the archive holds about one file, loaded once per run so that an
// unchanged file costs one stat and no query: a routine re-scan of thousands of files
// stays well under a second.
type knownFile struct {
	id       identity
	gone     bool
	upstream bool // a damaged or shorter upstream version is kept aside
	report   FileReport
}

func (s *Store) knownFiles(ctx context.Context, path string) (map[string]*knownFile, error) {
	// path "" loads every file; otherwise just that one (storedReport), by the path
	// index: a condition like `? = '' OR f.path = ?` would scan every file and
	// problem for each file imported.
	where, args := "", []any{}
	if path != "" {
		where, args = "AND f.path = ?", []any{path}
	}
	w := s.writer()
	rows, err := w.QueryContext(ctx, `
		SELECT f.id, f.path, f.format, f.compressed, f.size, f.mtime_ns, f.inode, COALESCE(f.ctime_ns, 0), f.gone, f.upstream IS NOT NULL,
		       COALESCE(s.id, ''), f.verdict,
		       f.error_kind, f.error_line, f.error_offset, f.error_message, f.records, f.events, f.last_seq
		FROM files f LEFT JOIN sessions s ON s.pk = f.session_pk
		WHERE 1 `+where, args...)
	if err != nil {
		return nil, fmt.Errorf("load known files: %w", err)
	}
	defer rows.Close()
	out := map[string]*knownFile{}
	byID := map[int64]*knownFile{}
	for rows.Next() {
		var k knownFile
		var fileID int64
		var kind, msg sql.NullString
		var line, off sql.NullInt64
		var ff string
		var compressed bool
		r := &k.report
		if err := rows.Scan(&fileID, &r.Path, &ff, &compressed, &k.id.size, &k.id.mtime, &k.id.inode, &k.id.ctime, &k.gone, &k.upstream, &r.SessionID, &r.Verdict,
			&kind, &line, &off, &msg, &r.Records, &r.LogicalEvents, &r.LastSeq); err != nil {
			return nil, err
		}
		r.Action, r.Warnings = "unchanged", []Problem{}
		if ff == legacyFileFormat {
			ff = legacyFormat(compressed)
		}
		if agent, layout, ok := strings.Cut(ff, "/"); ok {
			r.Agent, r.Format = agent, layout
		}
		if kind.Valid {
			r.Error = &Problem{Kind: Kind(kind.String), Line: line.Int64, Offset: off.Int64, Message: msg.String}
		}
		out[r.Path] = &k
		byID[fileID] = &k
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	prows, err := w.QueryContext(ctx, `
		SELECT p.file_id, p.kind, COALESCE(p.line, 0), COALESCE(p.offset, -1), COALESCE(p.seq, 0), p.message
		FROM problems p JOIN files f ON f.id = p.file_id
		WHERE p.severity = 'warning' `+where+`
		ORDER BY p.file_id, p.rowid`, args...)
	if err != nil {
		return nil, err
	}
	defer prows.Close()
	for prows.Next() {
		var id int64
		var p Problem
		if err := prows.Scan(&id, &p.Kind, &p.Line, &p.Offset, &p.Seq, &p.Message); err != nil {
			return nil, err
		}
		if k := byID[id]; k != nil {
			k.report.Warnings = append(k.report.Warnings, p)
		}
	}
	return out, prows.Err()
}
