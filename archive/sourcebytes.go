package archive

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
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
// size a format accepts a file of. A file kept as its event's record (migration
// 0009) is checked against its hash.
func (s *Store) EachSourceFile(ctx context.Context, sessionID string, fn func(name string, data []byte) error) error {
	pk, err := s.sessionPK(ctx, sessionID)
	if err != nil {
		return err
	}
	tx, err := s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	type kept struct {
		name, hash string
		gen        int64
		line       sql.NullInt64
	}
	var files []kept
	rows, err := tx.QueryContext(ctx, `
		SELECT name, generation, hash, line FROM source_files
		WHERE session_pk = ? AND superseded_at IS NULL
		ORDER BY name`, pk)
	if err != nil {
		return err
	}
	for rows.Next() {
		var k kept
		if err := rows.Scan(&k.name, &k.gen, &k.hash, &k.line); err != nil {
			rows.Close()
			return err
		}
		files = append(files, k)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("session %s keeps no source files: %w", sessionID, ErrNotFound)
	}
	lines := &lineCache{s: s, q: tx, pk: pk}
	for _, k := range files {
		if err := ctx.Err(); err != nil {
			return err
		}
		clean := path.Clean(k.name)
		if clean == "." || clean == ".." || strings.HasPrefix(clean, "../") || path.IsAbs(clean) {
			return fmt.Errorf("session %s: unsafe source file name %q", sessionID, k.name)
		}
		var plain []byte
		if k.line.Valid {
			plain, err = lines.line(ctx, k.line.Int64)
			if err == nil && hashHex(plain) != k.hash {
				err = fmt.Errorf("its archived record (line %d) does not match its hash", k.line.Int64)
			}
		} else {
			plain, err = s.keptBytes(ctx, tx, pk, k.name, k.gen)
		}
		if err != nil {
			return fmt.Errorf("session %s: source file %s: %w", sessionID, k.name, err)
		}
		if err := fn(clean, plain); err != nil {
			return err
		}
	}
	return nil
}

// keptBytes returns the bytes a source_files row keeps in itself: its data,
// followed by the parts appended to it since.
func (s *Store) keptBytes(ctx context.Context, q querier, pk int64, name string, gen int64) ([]byte, error) {
	rows, err := q.QueryContext(ctx, `
		SELECT data FROM source_files WHERE session_pk = ? AND name = ? AND generation = ?
		UNION ALL
		SELECT data FROM (SELECT data FROM source_file_parts WHERE session_pk = ? AND name = ? AND generation = ? ORDER BY part)`,
		pk, name, gen, pk, name, gen)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var plain []byte
	for rows.Next() {
		var packed []byte
		if err := rows.Scan(&packed); err != nil {
			return nil, err
		}
		if plain, err = s.zdec.DecodeAll(packed, plain); err != nil {
			return nil, fmt.Errorf("kept bytes do not decompress: %w", err)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if plain == nil {
		plain = []byte{}
	}
	return plain, nil
}

// hashHex is the lowercase hex SHA-256 of b.
func hashHex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// lineCache reads a session's archived lines one at a time, decompressing each
// block once while the lines asked stay in it (a folder's event files, asked in
// name order, are mostly in line order).
type lineCache struct {
	s           *Store
	q           querier
	pk          int64
	first, last int64
	plain       []byte
	starts      []int // where each line of the block starts in plain
}

// line returns archived line ln (a copy).
func (c *lineCache) line(ctx context.Context, ln int64) ([]byte, error) {
	if c.starts == nil || ln < c.first || ln > c.last {
		if err := c.load(ctx, ln); err != nil {
			return nil, err
		}
	}
	i := int(ln - c.first)
	end := len(c.plain)
	if i+1 < len(c.starts) {
		end = c.starts[i+1]
	}
	return bytes.Clone(bytes.TrimSuffix(c.plain[c.starts[i]:end], []byte("\n"))), nil
}

// load reads the block holding line ln.
func (c *lineCache) load(ctx context.Context, ln int64) error {
	rows, err := c.q.QueryContext(ctx, `
		SELECT first_line, last_line, data FROM blocks
		WHERE session_pk = ? AND first_line <= ?
		ORDER BY first_line DESC
		LIMIT 1`, c.pk, ln)
	if err != nil {
		return err
	}
	defer rows.Close()
	var data []byte
	found := rows.Next()
	if found {
		if err := rows.Scan(&c.first, &c.last, &data); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if !found || ln > c.last {
		c.starts = nil
		return fmt.Errorf("archived line %d is missing: %w", ln, ErrNotFound)
	}
	if c.plain, err = c.s.zdec.DecodeAll(data, c.plain[:0]); err != nil {
		c.starts = nil
		return fmt.Errorf("archived block at line %d does not decompress: %w", c.first, err)
	}
	c.starts = c.starts[:0]
	for pos := 0; pos < len(c.plain); {
		c.starts = append(c.starts, pos)
		i := bytes.IndexByte(c.plain[pos:], '\n')
		if i < 0 {
			break
		}
		pos += i + 1
	}
	if int64(len(c.starts)) != c.last-c.first+1 || len(c.plain) > 0 && c.plain[len(c.plain)-1] != '\n' {
		c.starts = nil
		return fmt.Errorf("archived block at line %d is not newline-terminated", c.first)
	}
	return nil
}
