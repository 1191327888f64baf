package archive

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// rawLines returns the archived storage lines with the given line numbers (ascending,
// without duplicates) keyed by line number. Only the blocks holding those lines are
// decompressed, each at most once. A line that is not archived is left out.
func (s *Store) rawLines(ctx context.Context, q *sql.Tx, pk int64, lines []int64) (map[int64][]byte, error) {
	out := make(map[int64][]byte, len(lines))
	var plain []byte
	var first, last, cur int64 = 0, -1, 0
	pos := 0
	for _, ln := range lines {
		if ln < first || ln > last {
			var data []byte
			err := q.QueryRowContext(ctx, `
				SELECT first_line, last_line, data FROM blocks
				WHERE session_pk = ? AND first_line <= ?
				ORDER BY first_line DESC
				LIMIT 1`, pk, ln).Scan(&first, &last, &data)
			if errors.Is(err, sql.ErrNoRows) {
				first, last = 0, -1
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("read block of line %d: %w", ln, err)
			}
			if ln > last {
				continue // a gap: the line was never archived
			}
			if plain, err = s.zdec.DecodeAll(data, plain[:0]); err != nil {
				return nil, fmt.Errorf("archived block at line %d does not decompress: %w", first, err)
			}
			cur, pos = first, 0
		}
		for cur < ln {
			i := bytes.IndexByte(plain[pos:], '\n')
			if i < 0 {
				return nil, fmt.Errorf("archived block at line %d is not newline-terminated", first)
			}
			pos += i + 1
			cur++
		}
		i := bytes.IndexByte(plain[pos:], '\n')
		if i < 0 {
			return nil, fmt.Errorf("archived block at line %d is not newline-terminated", first)
		}
		out[ln] = bytes.Clone(plain[pos : pos+i])
	}
	return out, nil
}
