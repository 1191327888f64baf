package archive

import (
	"context"
	"fmt"
	"path"
	"strings"
)

// EachSourceFile calls fn with the name (forward slashes, relative to the source)
// and the bytes of each current source file the archive keeps for a session, in
// name order: an OpenHands conversation's files as they were on disk. A name that
// would leave the source folder (absolute, or with "..") is an error, as is a
// session that keeps no source files (ErrNotFound: a dsh session's source is its
// JSONL, see ExportJSONL). One file is in memory at a time; each is bounded by the
// size a format accepts a file of.
func (s *Store) EachSourceFile(ctx context.Context, sessionID string, fn func(name string, data []byte) error) error {
	pk, err := s.sessionPK(ctx, sessionID)
	if err != nil {
		return err
	}
	rows, err := s.read.QueryContext(ctx, `
		SELECT name, data FROM source_files
		WHERE session_pk = ? AND superseded_at IS NULL
		ORDER BY name`, pk)
	if err != nil {
		return err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		if err := ctx.Err(); err != nil {
			return err
		}
		var name string
		var data []byte
		if err := rows.Scan(&name, &data); err != nil {
			return err
		}
		clean := path.Clean(name)
		if clean == "." || clean == ".." || strings.HasPrefix(clean, "../") || path.IsAbs(clean) {
			return fmt.Errorf("session %s: unsafe source file name %q", sessionID, name)
		}
		plain, err := s.zdec.DecodeAll(data, nil)
		if err != nil {
			return fmt.Errorf("session %s: source file %s: %w", sessionID, name, err)
		}
		if err := fn(clean, plain); err != nil {
			return err
		}
		n++
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("session %s keeps no source files: %w", sessionID, ErrNotFound)
	}
	return nil
}
