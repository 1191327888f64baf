package archive

import (
	"sync"

	"github.com/logbook/logbook/archive/format"
)

// readItem is one record read ahead, or the error (io.EOF at the end) that ended
// the read.
type readItem struct {
	rec format.StreamRecord
	err error
}

// readAheadBytes bounds the bytes a pipeline holds in records read ahead of the
// writer (as the stream's StreamRecord.Size counts them). Counting records alone
// let a run of multi-MiB lines queue gigabytes; ordinary records (about 1 KiB)
// never reach it. A record larger than the whole budget still passes, alone.
const readAheadBytes = 8 << 20

// byteBudget is a count of bytes that acquire waits for and release gives back.
type byteBudget struct {
	mu     sync.Mutex
	cond   sync.Cond
	used   int64
	max    int64
	closed bool
}

func newByteBudget(max int64) *byteBudget {
	b := &byteBudget{max: max}
	b.cond.L = &b.mu
	return b
}

// acquire waits until n bytes fit (or nothing is held: one record larger than the
// budget must still pass). It returns false once the budget is closed.
func (b *byteBudget) acquire(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for !b.closed && b.used > 0 && b.used+n > b.max {
		b.cond.Wait()
	}
	if b.closed {
		return false
	}
	b.used += n
	return true
}

func (b *byteBudget) release(n int64) {
	b.mu.Lock()
	b.used -= n
	b.mu.Unlock()
	b.cond.Broadcast()
}

// close wakes every acquire and makes it fail.
func (b *byteBudget) close() {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	b.cond.Broadcast()
}

// readAhead reads the stream r on one goroutine and passes each record to prepare
// (the stream's Prepare) on a second one: decoding and checking are each about as
// much work as the writer's, so as one stage they made the reader the slowest of
// the three. finished is called when the reading goroutine ends, so the next file
// can start reading while this one's last records are still being prepared. The
// channel ends with an item carrying io.EOF or an error. stop ends the goroutines
// early and waits for them, so the reader is never used after stop returns.
//
// The records between the reader and the writer hold at most readAheadBytes (see
// byteBudget): a third goroutine hands them over one at a time on an unbuffered
// channel and gives back their bytes once the writer has taken each.
//
// records estimates how many records the stream holds (0: unknown): the queues
// are no longer than that needs.
func readAhead(r format.Stream, prepare func(*format.StreamRecord), finished func(), records int) (<-chan readItem, func()) {
	read := make(chan readItem, queueLen(records, 256))
	// A deep queue lets the reader run through a small file (a few hundred records)
	// while the writer waits for the previous file's last block; the byte budget
	// keeps a run of large records from filling it with gigabytes.
	prepared := make(chan readItem, queueLen(records, 1024))
	items := make(chan readItem)
	quit := make(chan struct{})
	budget := newByteBudget(readAheadBytes)
	var done sync.WaitGroup
	done.Add(3)
	go func() {
		defer done.Done()
		defer finished()
		for {
			rec, err := r.Next()
			if !budget.acquire(rec.Size) {
				return
			}
			select {
			case read <- readItem{rec: rec, err: err}:
			case <-quit:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	// stage passes each item from in to out, with do applied first (to an item that
	// carries no error) and then, once out has taken it, after; it stops after an
	// item that carries an error, or when quit closes.
	stage := func(in <-chan readItem, out chan<- readItem, do, after func(*readItem)) {
		defer done.Done()
		for {
			var it readItem
			select {
			case it = <-in:
			case <-quit:
				return
			}
			if do != nil && it.err == nil {
				do(&it)
			}
			select {
			case out <- it:
			case <-quit:
				return
			}
			if after != nil {
				after(&it)
			}
			if it.err != nil {
				return
			}
		}
	}
	go stage(read, prepared, func(it *readItem) { prepare(&it.rec) }, nil)
	// The writer has taken the record: its bytes leave the budget.
	go stage(prepared, items, nil, func(it *readItem) { budget.release(it.rec.Size) })
	var once bool
	return items, func() {
		if !once {
			once = true
			close(quit)
			budget.close()
			done.Wait()
		}
	}
}

// readAllBytes is the size up to which a file's records are all read and
// prepared on the goroutine that begins it (readAll) rather than by readAhead's
// three: for a small session the goroutines, their growing stacks and a hand-over
// per record on each of three channels cost more than the reading itself. A file
// begun ahead of its turn (Import's early files) is still read on a core of its
// own while the file before it is written.
const readAllBytes = 256 << 10

// readAll reads every record of the small stream r and prepares it, on the
// calling goroutine, then calls finished; next gives them in order, ending with
// an item carrying io.EOF or an error. The records are held until the writer takes
// them, as readAhead's queues would hold them, up to readAheadBytes: a file that
// has grown far past its stat since (an agent writing it) is read on by readAhead
// once they are held, and stop ends that reading.
func readAll(r format.Stream, prepare func(*format.StreamRecord), finished func(), records int) (next func() readItem, stop func()) {
	// Grown as needed: the estimate is made for queues, and is high for small
	// files (it counts 128 bytes a record).
	items := make([]readItem, 0, min(records, 31)+1)
	var held int64
	var rest <-chan readItem
	for {
		rec, err := r.Next()
		if err == nil {
			prepare(&rec)
		}
		items = append(items, readItem{rec: rec, err: err})
		if err != nil {
			finished()
			break
		}
		if held += rec.Size; held > readAheadBytes {
			rest, stop = readAhead(r, prepare, finished, 0)
			break
		}
	}
	i := 0
	return func() readItem {
		if i < len(items) {
			it := items[i]
			items[i] = readItem{} // the writer has it: not held here too
			i++
			return it
		}
		return <-rest
	}, stop
}

// queueLen is the length of a queue of at most max records for a stream of about
// records records (0: unknown). A queue is cleared when it is made, which for the
// longest ones cost a small session more than reading it.
func queueLen(records, max int) int {
	if records <= 0 {
		return max
	}
	return min(records+16, max)
}

// recordsIn estimates the records of a source of size bytes: the lines of a
// plain file are rarely under 128 bytes, a compressed one's bytes hold about
// eight times as many. (A queue too short only makes the reader wait sooner.)
func recordsIn(size int64, compressed bool) int {
	per := int64(128)
	if compressed {
		per = 16
	}
	return int(min(size/per, 1<<20))
}
