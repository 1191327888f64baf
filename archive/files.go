package archive

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"

	"github.com/klauspost/compress/zstd"

	"github.com/logbook/logbook/archive/dsh"
)

// fileUpsert is everything saved on a files row.
type fileUpsert struct {
	path       string
	compressed bool
	sessionPK  any
	id         identity
	head, tail []byte
	sums       []byte // prefix_sums of the bytes before the cursor
	cursor     string
	verdict    dsh.Verdict
	problem    *dsh.Problem
	records    int64
	events     int64
	lastSeq    int64
	now        int64
	rewritten  bool
}

// Names of the statements that save a file, among the store's prepared statements.
const (
	upsertFileName     = "upsertFile"
	deleteProblemsName = "deleteProblems"
	insertProblemName  = "insertProblem"
)

// fileSQL holds the statements that save a file, by name: every imported file runs
// them, and preparing them for each one cost about as much as running them.
var fileSQL = map[string]string{
	upsertFileName: `
		INSERT INTO files (path, format, compressed, session_pk, size, mtime_ns, inode, ctime_ns, head_hash, tail_hash,
			prefix_sums, cursor, verdict, error_kind, error_line, error_offset, error_message, records, events, last_seq,
			gone, first_seen, last_import)
		VALUES (?, 'dsh-v0', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?)
		ON CONFLICT (path) DO UPDATE SET
			compressed = excluded.compressed, session_pk = excluded.session_pk, size = excluded.size,
			mtime_ns = excluded.mtime_ns, inode = excluded.inode, ctime_ns = excluded.ctime_ns,
			prefix_sums = excluded.prefix_sums, upstream = NULL, head_hash = excluded.head_hash,
			tail_hash = excluded.tail_hash, cursor = excluded.cursor, verdict = excluded.verdict,
			error_kind = excluded.error_kind, error_line = excluded.error_line, error_offset = excluded.error_offset,
			error_message = excluded.error_message, records = excluded.records, events = excluded.events,
			last_seq = excluded.last_seq, gone = 0, last_import = excluded.last_import,
			generation = files.generation + ?
		RETURNING id`,
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
	stmt := s.txStmt(ctx, tx, upsertFileName)
	defer stmt.Close()
	var id int64
	err := stmt.QueryRowContext(ctx,
		u.path, boolInt(u.compressed), u.sessionPK, u.id.size, u.id.mtime, u.id.inode, u.id.ctime, u.head, u.tail,
		u.sums, cursor,
		string(u.verdict), kind, line, off, msg, u.records, u.events, u.lastSeq, u.now, u.now, gen).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("save file %s: %w", u.path, err)
	}
	return id, nil
}

// saveProblems replaces a file's stored problems.
func (s *Store) saveProblems(ctx context.Context, tx *sql.Tx, fileID int64, fatal *dsh.Problem, warnings []dsh.Problem) error {
	del := s.txStmt(ctx, tx, deleteProblemsName)
	defer del.Close()
	if _, err := del.ExecContext(ctx, fileID); err != nil {
		return err
	}
	stmt := s.txStmt(ctx, tx, insertProblemName)
	defer stmt.Close()
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

// saveBlob keeps the file's bytes from offset on, zstd-compressed, so bytes that could
// not be imported as records are never lost.
func saveBlob(ctx context.Context, tx *sql.Tx, f *os.File, fileID int64, kind string, from int64, now int64) error {
	var buf bytes.Buffer
	zw, err := zstd.NewWriter(&buf, zstd.WithEncoderLevel(zstd.SpeedDefault))
	if err != nil {
		return err
	}
	n, err := io.Copy(zw, io.NewSectionReader(f, from, 1<<62))
	if err != nil {
		return fmt.Errorf("read bytes to keep: %w", err)
	}
	if err := zw.Close(); err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `
		INSERT INTO file_blobs (file_id, generation, kind, offset, size, data, created_at)
		VALUES (?, (SELECT generation FROM files WHERE id = ?), ?, ?, ?, ?, ?)
		ON CONFLICT (file_id, generation, kind) DO UPDATE SET
			offset = excluded.offset, size = excluded.size, data = excluded.data, created_at = excluded.created_at`,
		fileID, fileID, kind, from, n, buf.Bytes(), now)
	return err
}
