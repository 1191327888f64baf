package archive

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/klauspost/compress/zstd"
)

// EachSourceFile calls fn with the name (forward slashes, relative to the source)
// and the bytes of each current source file the archive keeps for a session, in
// name order: an OpenHands conversation's files as they were on disk. A name that
// would leave the source folder (absolute, or with "..") is an error, as is a
// session that keeps no source files (ErrNotFound: a dsh session's source is its
// JSONL, see ExportJSONL). One file is in memory at a time; each is bounded by the
// size a format accepts a file of. A file kept as its event's record (migration
// 0009), with its layout, is checked against its hash.
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
		layout     []byte
	}
	var files []kept
	rows, err := tx.QueryContext(ctx, `
		SELECT name, generation, hash, line, CASE WHEN line IS NOT NULL THEN data END FROM source_files
		WHERE session_pk = ? AND superseded_at IS NULL
		ORDER BY name`, pk)
	if err != nil {
		return err
	}
	for rows.Next() {
		var k kept
		if err := rows.Scan(&k.name, &k.gen, &k.hash, &k.line, &k.layout); err != nil {
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
			plain, err = recordFile(ctx, lines, k.line.Int64, k.layout, k.hash)
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

// A file kept as its record (source_files.line set) keeps in its data how the
// file's bytes differ from the record's: nothing (empty data) when the file is
// the record byte for byte, the EventLog's compact JSON; else its layout, the
// whitespace the record lost (a pretty-printed event file's newlines and
// indents, which its one-line record drops). The file is its record with that
// whitespace put back, checked against the file's hash on every read.

// The forms of a layout, its first byte.
const (
	// layoutIndent: the file is the record indented (encoding/json.Indent, no
	// prefix) by the indent that follows its length byte, then whitespace (a
	// final newline), which follows the indent: Python's json.dump(indent=N),
	// the form of pretty-printed event files, in a few bytes.
	layoutIndent = 'i'
	// layoutRuns: any other whitespace, as zstd-compressed runs.
	layoutRuns = 'w'
)

// fileLayout returns the layout that turns record into file, and true; false
// when file is not record with whitespace (space, tab, newline, carriage
// return) added between its bytes. An empty layout means file is record.
//
// The runs of a layoutRuns layout, before enc compresses them, are a list: the
// number of the record's bytes before the run (since the previous one), the
// run's length and its bytes, the numbers as uvarints. The record's bytes
// after the last run follow it.
func fileLayout(enc *zstd.Encoder, record, file []byte) ([]byte, bool) {
	if bytes.Equal(record, file) {
		return []byte{}, true
	}
	if len(file) < len(record) {
		return nil, false
	}
	if layout, ok := indentLayout(record, file); ok {
		return layout, true
	}
	var runs []byte
	j, last := 0, 0
	for i := 0; i < len(file); {
		if j < len(record) && file[i] == record[j] {
			i, j = i+1, j+1
			continue
		}
		start := i
		for i < len(file) && isJSONSpace(file[i]) && (j == len(record) || file[i] != record[j]) {
			i++
		}
		if i == start {
			return nil, false // a byte the record does not have
		}
		runs = binary.AppendUvarint(runs, uint64(j-last))
		runs = binary.AppendUvarint(runs, uint64(i-start))
		runs = append(runs, file[start:i]...)
		last = j
	}
	if j != len(record) {
		return nil, false
	}
	return enc.EncodeAll(runs, []byte{layoutRuns}), true
}

// indentLayout returns the layoutIndent layout of file, and whether file has
// that form: record indented, then whitespace.
func indentLayout(record, file []byte) ([]byte, bool) {
	nl := bytes.IndexByte(file, '\n')
	if nl < 0 {
		return nil, false
	}
	end := nl + 1
	for end < len(file) && (file[end] == ' ' || file[end] == '\t') {
		end++
	}
	indent := file[nl+1 : end]
	if len(indent) > 255 {
		return nil, false
	}
	var b bytes.Buffer
	b.Grow(len(file))
	if json.Indent(&b, record, "", string(indent)) != nil || !bytes.HasPrefix(file, b.Bytes()) {
		return nil, false
	}
	tail := file[b.Len():]
	for _, c := range tail {
		if !isJSONSpace(c) {
			return nil, false
		}
	}
	layout := append([]byte{layoutIndent, byte(len(indent))}, indent...)
	return append(layout, tail...), true
}

func isJSONSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r'
}

// withLayout returns record with the whitespace a layout (fileLayout) keeps put
// back: the file's bytes. An empty layout gives record itself.
func withLayout(dec *zstd.Decoder, record, layout []byte) ([]byte, error) {
	switch {
	case len(layout) == 0:
		return record, nil
	case layout[0] == layoutIndent:
		if len(layout) < 2 || int(layout[1]) > len(layout)-2 {
			return nil, errors.New("kept layout is damaged")
		}
		indent, tail := layout[2:2+layout[1]], layout[2+layout[1]:]
		var b bytes.Buffer
		b.Grow(len(record) * 2)
		if err := json.Indent(&b, record, "", string(indent)); err != nil {
			return nil, fmt.Errorf("kept layout does not apply: %w", err)
		}
		return append(b.Bytes(), tail...), nil
	case layout[0] != layoutRuns:
		return nil, fmt.Errorf("kept layout of unknown form %q", layout[0])
	}
	runs, err := dec.DecodeAll(layout[1:], nil)
	if err != nil {
		return nil, fmt.Errorf("kept layout does not decompress: %w", err)
	}
	out := make([]byte, 0, len(record)+len(runs))
	j := 0
	for len(runs) > 0 {
		gap, n := binary.Uvarint(runs)
		if n <= 0 {
			return nil, errors.New("kept layout is damaged")
		}
		size, m := binary.Uvarint(runs[n:])
		if m <= 0 || gap > uint64(len(record)-j) || size > uint64(len(runs)-n-m) {
			return nil, errors.New("kept layout is damaged")
		}
		runs = runs[n+m:]
		out = append(out, record[j:j+int(gap)]...)
		out = append(out, runs[:size]...)
		j += int(gap)
		runs = runs[size:]
	}
	return append(out, record[j:]...), nil
}

// recordFile returns the bytes of a file kept as its record: the record's
// (line ln, read through lines) with the file's layout, checked against hash.
func recordFile(ctx context.Context, lines *lineCache, ln int64, layout []byte, hash string) ([]byte, error) {
	raw, err := lines.line(ctx, ln)
	if err != nil {
		return nil, err
	}
	if raw, err = withLayout(lines.s.zdec, raw, layout); err != nil {
		return nil, fmt.Errorf("its archived record (line %d): %w", ln, err)
	}
	if hashHex(raw) != hash {
		return nil, fmt.Errorf("its archived record (line %d) does not match its hash", ln)
	}
	return raw, nil
}
