package archive

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"

	"github.com/klauspost/compress/zstd"
)

// blockTarget is the raw size at which a block of lines is compressed and stored.
// Storing lines in compressed blocks instead of one row each is what lets the archive
// keep every byte yet stay smaller than the logs it holds, and it turns hundreds of
// row inserts into one.
const blockTarget = 256 << 10

// querier is what both *sql.DB and *sql.Tx offer for reads.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// blockWriter gathers consecutive storage lines of one session into blocks.
type blockWriter struct {
	ctx       context.Context
	pk        int64
	buf       []byte
	firstLine int64
	lastLine  int64
	firstSeq  int64
	lastSeq   int64
	zenc      *zstd.Encoder
	stmt      *sql.Stmt
	zbuf      []byte
}

func newBlockWriter(ctx context.Context, tx *sql.Tx, pk int64, zenc *zstd.Encoder) (*blockWriter, error) {
	stmt, err := tx.PrepareContext(ctx, `
		INSERT INTO blocks (session_pk, first_line, last_line, first_seq, last_seq, raw_size, data)
		VALUES (?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return nil, fmt.Errorf("prepare blocks: %w", err)
	}
	return &blockWriter{ctx: ctx, pk: pk, zenc: zenc, stmt: stmt}, nil
}

// add appends one line (without its newline) holding seqs firstSeq..lastSeq.
func (w *blockWriter) add(line, firstSeq, lastSeq int64, raw []byte) error {
	if len(w.buf) == 0 {
		w.firstLine, w.firstSeq = line, firstSeq
	}
	w.lastLine, w.lastSeq = line, lastSeq
	w.buf = append(w.buf, raw...)
	w.buf = append(w.buf, '\n')
	if len(w.buf) >= blockTarget {
		return w.flush()
	}
	return nil
}

// flush stores the gathered lines as one compressed block.
func (w *blockWriter) flush() error {
	if len(w.buf) == 0 {
		return nil
	}
	w.zbuf = w.zenc.EncodeAll(w.buf, w.zbuf[:0])
	if _, err := w.stmt.ExecContext(w.ctx, w.pk, w.firstLine, w.lastLine, w.firstSeq, w.lastSeq, len(w.buf), w.zbuf); err != nil {
		return fmt.Errorf("store block of lines %d-%d: %w", w.firstLine, w.lastLine, err)
	}
	w.buf = w.buf[:0]
	return nil
}

func (w *blockWriter) close() { w.stmt.Close() }

// eachLine calls fn for every archived storage line of a session with a line number in
// [from, to] (to < 0: no upper bound), in order. The bytes passed to fn are only valid
// during the call.
func eachLine(ctx context.Context, q querier, pk, from, to int64, fn func(line int64, raw []byte) error) error {
	if to < 0 {
		to = 1<<62 - 1
	}
	rows, err := q.QueryContext(ctx, `
		SELECT first_line, data FROM blocks
		WHERE session_pk = ? AND last_line >= ? AND first_line <= ?
		ORDER BY first_line`, pk, from, to)
	if err != nil {
		return fmt.Errorf("read blocks: %w", err)
	}
	defer rows.Close()
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	if err != nil {
		return err
	}
	defer dec.Close()
	var plain []byte
	for rows.Next() {
		var first int64
		var data []byte
		if err := rows.Scan(&first, &data); err != nil {
			return err
		}
		if plain, err = dec.DecodeAll(data, plain[:0]); err != nil {
			return fmt.Errorf("archived block at line %d does not decompress: %w", first, err)
		}
		line := first
		for len(plain) > 0 {
			i := bytes.IndexByte(plain, '\n')
			if i < 0 {
				return fmt.Errorf("archived block at line %d is not newline-terminated", first)
			}
			if line >= from && line <= to {
				if err := fn(line, plain[:i]); err != nil {
					return err
				}
			}
			plain = plain[i+1:]
			line++
		}
	}
	return rows.Err()
}
