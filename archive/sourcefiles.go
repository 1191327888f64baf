package archive

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/logbook/logbook/archive/internal/newfile"
)

// KeptFile is one file of a session's source as the archive keeps it (a session
// whose source is a folder of files, or a single file a format reads whole: an
// OpenHands conversation). Superseded versions, replaced upstream by newer bytes,
// are kept too.
type KeptFile struct {
	Name       string    `json:"name"` // path inside the source, forward slashes
	Generation int64     `json:"generation"`
	Role       string    `json:"role"`
	Size       int64     `json:"size"`
	ModTime    time.Time `json:"mod_time"`
	Hash       string    `json:"hash"` // lowercase hex SHA-256
	Superseded bool      `json:"superseded"`
}

// KeptFiles lists the source files kept for a session, current and superseded,
// by name and generation. A dsh session keeps none (its lines are its blocks).
func (s *Store) KeptFiles(ctx context.Context, sessionID string) ([]KeptFile, error) {
	pk, err := s.sessionPK(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	rows, err := s.read.QueryContext(ctx, `
		SELECT name, generation, role, size, mtime_ns, hash, superseded_at IS NOT NULL
		FROM source_files WHERE session_pk = ?
		ORDER BY name, generation`, pk)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []KeptFile{}
	for rows.Next() {
		var f KeptFile
		var mtime int64
		if err := rows.Scan(&f.Name, &f.Generation, &f.Role, &f.Size, &mtime, &f.Hash, &f.Superseded); err != nil {
			return nil, err
		}
		f.ModTime = time.Unix(0, mtime)
		out = append(out, f)
	}
	return out, rows.Err()
}

// ExportOriginal writes the session's source files as they are now (the current
// version of each) into dir under their original names, byte for byte: an
// OpenHands conversation folder comes back as it was on disk. It creates dir and
// the folders inside it as needed, and never overwrites a file: one already there
// stops the export with an error naming it. ErrNotFound when the session keeps no
// source files (a dsh session: export its JSONL instead).
func (s *Store) ExportOriginal(ctx context.Context, sessionID, dir string) error {
	return s.EachSourceFile(ctx, sessionID, func(name string, data []byte) error {
		dst := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return fmt.Errorf("export %s: %w", sessionID, err)
		}
		if err := newfile.Write(dst, data); err != nil {
			return fmt.Errorf("export %s: %w", sessionID, err)
		}
		return nil
	})
}
