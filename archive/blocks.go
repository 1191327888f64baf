package archive

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// blockTarget is the raw size at which a block of lines is compressed and stored.
// Storing lines in compressed blocks instead of one row each is what lets the archive
// keep every byte yet stay smaller than the logs it holds, and it turns hundreds of
// row inserts into one. 1 MiB rather than 256 KiB: zstd compresses larger blocks both
// faster and smaller (a fifth less archive on generated logs), while reading one
// line back still costs only a millisecond or two of decompression.
const blockTarget = 1 << 20

// querier is what both *sql.DB and *sql.Tx offer for reads.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// blockWriter gathers consecutive storage lines of one session into blocks. Blocks
// are compressed and stored by a background goroutine, so compression overlaps with
// parsing on a second core; wait must be called before the transaction commits.
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

	jobs chan blockJob
	done chan error
	free chan []byte
	z    []byte     // compressed block, reused: zstd would allocate one per block
	bufs *sync.Pool // where the block buffers and z come from and go back to
	err  error
}

// blockJob is one block handed to the background writer.
type blockJob struct {
	firstLine, lastLine, firstSeq, lastSeq int64
	raw                                    []byte
}

// blockInsertName names the blocks INSERT among the store's prepared statements.
const blockInsertName = "block"

// blockInsertSQL stores one block.
const blockInsertSQL = `INSERT INTO blocks (session_pk, first_line, last_line, first_seq, last_seq, raw_size, data)
	VALUES (?, ?, ?, ?, ?, ?, ?)`

// newBlockWriter stores blocks with stmt, the block INSERT bound to the import's
// transaction, on a goroutine run starts (Store.workers). Its buffers come from bufs: at 1 MiB each, allocating them for every
// file cost small sessions more than their compression.
func newBlockWriter(ctx context.Context, stmt *sql.Stmt, pk int64, zenc *zstd.Encoder, bufs *sync.Pool, run func(func())) *blockWriter {
	w := &blockWriter{ctx: ctx, pk: pk, zenc: zenc, stmt: stmt, bufs: bufs,
		jobs: make(chan blockJob, 1), done: make(chan error, 1), free: make(chan []byte, 2)}
	get := func() []byte {
		if buf, _ := bufs.Get().(*[]byte); buf != nil {
			return (*buf)[:0]
		}
		// Grown by append as a block fills: the pool is emptied by every other
		// GC, and a small session's block is a few KiB.
		return make([]byte, 0, 64<<10)
	}
	w.free <- get()
	w.free <- get()
	w.buf, w.z = <-w.free, get()
	run(w.store)
	return w
}

// store compresses and inserts blocks until jobs is closed; it reports the first
// error on done.
func (w *blockWriter) store() {
	var firstErr error
	for j := range w.jobs {
		if firstErr == nil {
			w.z = w.zenc.EncodeAll(j.raw, w.z[:0])
			if _, err := w.stmt.ExecContext(w.ctx, w.pk, j.firstLine, j.lastLine, j.firstSeq, j.lastSeq, len(j.raw), w.z); err != nil {
				firstErr = fmt.Errorf("store block of lines %d-%d: %w", j.firstLine, j.lastLine, err)
			}
		}
		w.free <- j.raw[:0]
	}
	w.done <- firstErr
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
		w.flush()
	}
	return nil
}

// flush hands the gathered lines to the background writer as one block.
func (w *blockWriter) flush() {
	if len(w.buf) == 0 {
		return
	}
	w.jobs <- blockJob{firstLine: w.firstLine, lastLine: w.lastLine, firstSeq: w.firstSeq, lastSeq: w.lastSeq, raw: w.buf}
	w.buf = <-w.free
}

// wait flushes what is gathered, waits until every block is stored and returns the
// first error. The writer cannot be used afterwards.
func (w *blockWriter) wait() error {
	if w.jobs == nil {
		return w.err
	}
	w.flush()
	close(w.jobs)
	w.err = <-w.done
	w.jobs = nil
	return w.err
}

func (w *blockWriter) close() {
	_ = w.wait()
	if w.buf != nil { // the block buffers are back (one in hand, one in free), and z
		for _, b := range [][]byte{w.buf, <-w.free, w.z} {
			w.bufs.Put(&b)
		}
		w.buf = nil
	}
}

// eachLine calls fn for every archived storage line of a session with a line number in
// [from, to] (to < 0: no upper bound), in order. The bytes passed to fn are only valid
// during the call.
func eachLine(ctx context.Context, q querier, dec *zstd.Decoder, pk, from, to int64, fn func(line int64, raw []byte) error) error {
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
