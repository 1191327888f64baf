package archive

import (
	"context"
	"database/sql"
	"fmt"
)

// writeBatch is the write transaction that the small new files of one import
// share. A first import of a long history is thousands of small sessions, and
// committing each alone wrote the pages every session touches (the sessions and
// files tables, their indexes) to the WAL once per file: that cost more than the
// session's own rows.
//
// Nothing of a batch is acknowledged before it is committed: Import commits it
// before it returns (and whenever it grows past batchFiles or batchBytes), and a
// crash before that leaves its files unknown to the archive, read again in full by
// the next import. A file that fails in a batch (any error: its work is half
// written) rolls the batch back whole, and so does SQLite on a full disk or an I/O
// error: the batch is then lost, and Import imports its other files again, each
// in a transaction of its own as before batches, their reports those of that
// second try. So one bad file never costs another file its import, and a failure
// keeps its report of today. (A savepoint per file would spare that second try,
// but SQLite copies every page a savepoint touches into its sub-journal first:
// for small sessions that cost more than the commits the batch saves.)
type writeBatch struct {
	tx *sql.Tx // nil until a file begins in it, and after each commit
	// pending are the files (Import's indexes) whose work tx holds, not yet
	// committed, and bytes their sizes.
	pending []int
	bytes   int64
	// current is the file being imported in the batch now.
	current int
	// lost is set when tx was rolled back whole: pending must be imported again.
	lost bool
}

// A batch is committed once it holds this many files or source bytes: the work a
// crash or a lost batch makes an import do again, and how long an index fed along
// the import (Index.SyncAlong) waits to see a session. Only files of at most
// batchFileBytes join a batch: a larger one gains nothing from it, and is
// imported (and can be cancelled) on its own.
const (
	batchFiles     = 256
	batchBytes     = 16 << 20
	batchFileBytes = 1 << 20
)

// full reports whether the batch should be committed now.
func (b *writeBatch) full() bool { return len(b.pending) >= batchFiles || b.bytes >= batchBytes }

// commit commits the batch's transaction, if one is open. On failure the batch is
// lost (see writeBatch).
func (b *writeBatch) commit() error {
	if b.tx == nil {
		return nil
	}
	tx := b.tx
	b.tx = nil
	if err := tx.Commit(); err != nil {
		_ = tx.Rollback()
		b.lost = true
		return fmt.Errorf("commit import batch: %w", err)
	}
	b.pending, b.bytes = b.pending[:0], 0
	return nil
}

// lose rolls the batch's transaction back: none of its pending files is archived.
func (b *writeBatch) lose() {
	if b.tx != nil {
		_ = b.tx.Rollback()
		b.tx = nil
	}
	b.lost = true
}

// rollback drops the batch's uncommitted work (an import that returns on a panic
// before it could commit).
func (b *writeBatch) rollback() {
	if b.tx != nil {
		_ = b.tx.Rollback()
		b.tx = nil
	}
	b.pending, b.bytes = b.pending[:0], 0
}

// fileTx is the transaction one file's import writes in: its own, or the running
// import's batch (Store.batch).
type fileTx struct {
	*sql.Tx
	s     *Store
	batch *writeBatch // nil when Tx is the file's own
	done  bool
}

// beginFile begins a file's transaction: the running import's batch when there is
// one, else a transaction of its own.
func (s *Store) beginFile(ctx context.Context) (*fileTx, error) {
	b := s.batch
	if b == nil {
		tx, err := s.write.BeginTx(ctx, nil)
		if err != nil {
			return nil, err
		}
		return &fileTx{Tx: tx, s: s}, nil
	}
	if b.tx == nil {
		// Never cancelled: database/sql rolls a transaction back when its context
		// ends, which would take the batch's earlier files with it. Import checks for
		// cancellation between files instead.
		tx, err := s.write.BeginTx(context.WithoutCancel(ctx), nil)
		if err != nil {
			return nil, err
		}
		b.tx = tx
	}
	return &fileTx{Tx: b.tx, s: s, batch: b}, nil
}

// commit keeps the file's work: its own transaction is committed; a batch's is
// committed with the batch.
func (t *fileTx) commit() error {
	t.done = true
	if t.batch == nil {
		return t.Tx.Commit()
	}
	t.batch.pending = append(t.batch.pending, t.batch.current)
	return nil
}

// durable commits the file's work so far (and in a batch, the batch's) and goes
// on in a new transaction: a point a crash or a later failure keeps.
func (t *fileTx) durable(ctx context.Context) error {
	var err error
	if t.batch == nil {
		err = t.Tx.Commit()
	} else {
		err = t.batch.commit()
	}
	if err == nil {
		var next *fileTx
		if next, err = t.s.beginFile(ctx); err == nil {
			t.Tx = next.Tx
			return nil
		}
	}
	t.done = true
	return err
}

// stoppable reports whether the file may stop half way, on a cancellation: not
// while its batch holds other files' uncommitted work, which stopping would roll
// back (see writeBatch). Such a file is small; the import stops after it.
func (t *fileTx) stoppable() bool { return t.batch == nil || len(t.batch.pending) == 0 }

// rollback drops the file's uncommitted work; in a batch, with the batch's (see
// writeBatch). It does nothing after commit.
func (t *fileTx) rollback() {
	if t.done {
		return
	}
	t.done = true
	if t.batch == nil {
		_ = t.Tx.Rollback()
		return
	}
	t.batch.lose()
}

// writeQuerier is what the import reads on the writer with: the batch's
// transaction while one is open (the writer has a single connection, which it
// holds), else the pool.
type writeQuerier interface {
	querier
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// writer is the writeQuerier of the moment.
func (s *Store) writer() writeQuerier {
	if s.batch != nil && s.batch.tx != nil {
		return s.batch.tx
	}
	return s.write
}

// writeStmt is the prepared statement name on the writer of the moment.
func (s *Store) writeStmt(ctx context.Context, name string) *sql.Stmt {
	if s.batch != nil && s.batch.tx != nil {
		return s.txStmt(ctx, s.batch.tx, name)
	}
	return s.stmts[name]
}
