package archive

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/logbook/logbook/archive/dsh"
)

// A file whose session another live file already archives is recorded without a
// session and with a duplicate-session warning naming it (importJob.saveDuplicate):
// these are that warning's kind and the start of its message.
const (
	duplicateKind   = "duplicate-session"
	duplicatePrefix = "session "
	duplicateInfix  = " is already archived from "
)

const fileStatusColumns = `f.path, COALESCE(s.id, ''), f.verdict, COALESCE(f.error_kind, ''), COALESCE(f.error_line, 0),
	COALESCE(f.error_offset, 0), COALESCE(f.error_message, ''),
	(SELECT COUNT(*) FROM problems p WHERE p.file_id = f.id AND p.severity = 'warning'),
	f.records, f.events, f.size, f.compressed, f.gone,
	(SELECT p.message FROM problems p WHERE p.file_id = f.id AND p.kind = '` + duplicateKind + `' LIMIT 1),
	f.first_seen, f.last_import`

// Files returns the stored verdict of every known log file, most recently imported first.
func (s *Store) Files(ctx context.Context) ([]FileStatus, error) {
	return s.fileStatuses(ctx, s.read, `TRUE`)
}

// SessionFiles returns the log files that hold a session (sessionID may be an
// unambiguous prefix), most recently imported first: the files it was imported from,
// and copies of it that were found to be duplicates.
func (s *Store) SessionFiles(ctx context.Context, sessionID string) ([]FileStatus, error) {
	tx, err := s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	sess, err := resolveSession(ctx, tx, sessionID)
	if err != nil {
		return nil, err
	}
	prefix := duplicatePrefix + sess.id + duplicateInfix
	return s.fileStatuses(ctx, tx, `f.session_pk = ? OR (f.session_pk IS NULL AND EXISTS (
		SELECT 1 FROM problems p
		WHERE p.file_id = f.id AND p.kind = '`+duplicateKind+`' AND substr(p.message, 1, ?) = ?))`,
		sess.pk, len(prefix), prefix)
}

func (s *Store) fileStatuses(ctx context.Context, q querier, where string, args ...any) ([]FileStatus, error) {
	rows, err := q.QueryContext(ctx, `
		SELECT `+fileStatusColumns+`
		FROM files f LEFT JOIN sessions s ON s.pk = f.session_pk
		WHERE `+where+`
		ORDER BY f.last_import DESC, f.id DESC`, args...)
	if err != nil {
		return nil, fmt.Errorf("list files: %w", err)
	}
	defer rows.Close()
	out := []FileStatus{}
	for rows.Next() {
		var f FileStatus
		var dup sql.NullString
		var first, last int64
		if err := rows.Scan(&f.Path, &f.SessionID, &f.Verdict, &f.ErrorKind, &f.ErrorLine, &f.ErrorOffset, &f.ErrorMessage,
			&f.Warnings, &f.Records, &f.Events, &f.Size, &f.Compressed, &f.Gone, &dup, &first, &last); err != nil {
			return nil, err
		}
		f.FirstSeen, f.LastImport = msTime(first), msTime(last)
		if dup.Valid {
			f.Duplicate = true
			if f.SessionID == "" {
				// The copy is stored without a session; its warning names the one it duplicates.
				if rest, ok := strings.CutPrefix(dup.String, duplicatePrefix); ok {
					if id, _, ok := strings.Cut(rest, duplicateInfix); ok {
						f.SessionID = id
					}
				}
			}
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

// FileProblems returns the stored problems of one file: the fatal one first (if any),
// then the warnings in line order. An unknown path is ErrNotFound.
func (s *Store) FileProblems(ctx context.Context, path string) ([]Problem, error) {
	tx, err := s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	var id int64
	err = tx.QueryRowContext(ctx, `SELECT id FROM files WHERE path = ?`, path).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("file %q: %w", path, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("file %q: %w", path, err)
	}
	rows, err := tx.QueryContext(ctx, `
		SELECT kind, COALESCE(line, 0), COALESCE(offset, -1), COALESCE(seq, 0), message
		FROM problems
		WHERE file_id = ?
		ORDER BY severity = 'warning', COALESCE(line, 0), rowid`, id)
	if err != nil {
		return nil, fmt.Errorf("problems of %q: %w", path, err)
	}
	defer rows.Close()
	out := []Problem{}
	for rows.Next() {
		var p Problem
		if err := rows.Scan(&p.Kind, &p.Line, &p.Offset, &p.Seq, &p.Message); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// InterruptedSessions returns the sessions whose log ends mid-activity, in one
// query: a live (non-duplicate) file of theirs holds warnings and an
// interrupted-tail problem at or after its last record (one earlier in the log, a
// lifetime that was resumed, does not count). They come most recently imported
// first, each once.
func (s *Store) InterruptedSessions(ctx context.Context) ([]string, error) {
	rows, err := s.read.QueryContext(ctx, `
		SELECT s.id
		FROM files f JOIN sessions s ON s.pk = f.session_pk
		WHERE EXISTS (SELECT 1 FROM problems p WHERE p.file_id = f.id AND p.kind = ? AND COALESCE(p.line, 0) >= f.records)
		  AND EXISTS (SELECT 1 FROM problems p WHERE p.file_id = f.id AND p.severity = 'warning')
		  AND NOT EXISTS (SELECT 1 FROM problems p WHERE p.file_id = f.id AND p.kind = '`+duplicateKind+`')
		ORDER BY f.last_import DESC, f.id DESC`, string(dsh.KindInterruptedTail))
	if err != nil {
		return nil, fmt.Errorf("interrupted sessions: %w", err)
	}
	defer rows.Close()
	out := []string{}
	seen := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out, rows.Err()
}
