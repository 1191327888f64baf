package archive

import (
	"sync"

	"github.com/logbook/logbook/archive/dsh"
)

// readItem is one record read ahead, with the cursor durable after it.
type readItem struct {
	rec       *dsh.Record
	committed dsh.Cursor
	ahead
	err error
}

// ahead is the work done on a record on the reader's goroutine: the semantic
// checker's, and decoding what the projection reads, which would otherwise make the
// writing goroutine the slower of the two.
type ahead struct {
	shadows []shadowPair
	data    *eventData   // see decodeAhead
	problem *dsh.Problem // what decodeAhead could not read
}

// readAhead reads r on one goroutine, which must use Detached records, and passes
// each record to prepare on a second one: decoding and checking are each about as
// much work as the writer's, so as one stage they made the reader the slowest of
// the three. finished is called when the reading goroutine ends, so the next file
// can start reading while this one's last records are still being prepared. The
// channel ends with an item carrying io.EOF or an error. stop ends both goroutines
// early and waits for them, so the reader is never used after stop returns.
func readAhead(r *dsh.Reader, prepare func(*dsh.Record) ahead, finished func()) (<-chan readItem, func()) {
	read := make(chan readItem, 256)
	// A deep channel lets the reader run through a small file (a few hundred records)
	// while the writer waits for the previous file's last block; records are small,
	// so even a large session keeps only a few MiB in it.
	items := make(chan readItem, 1024)
	quit := make(chan struct{})
	var done sync.WaitGroup
	done.Add(2)
	go func() {
		defer done.Done()
		defer finished()
		for {
			rec, err := r.Next()
			select {
			case read <- readItem{rec: rec, committed: r.Committed(), err: err}:
			case <-quit:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	go func() {
		defer done.Done()
		for {
			var it readItem
			select {
			case it = <-read:
			case <-quit:
				return
			}
			if it.err == nil {
				it.ahead = prepare(it.rec)
			}
			select {
			case items <- it:
			case <-quit:
				return
			}
			if it.err != nil {
				return
			}
		}
	}()
	var once bool
	return items, func() {
		if !once {
			once = true
			close(quit)
			done.Wait()
		}
	}
}
