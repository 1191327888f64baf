package archive

import (
	"sync"
	"time"
)

// workers runs the import's short-lived work (a file begun early, a session's
// block writer) on goroutines that ran such work before. A new goroutine per
// file starts with a small stack and grew it, a copy at each doubling, for the
// zstd encoder, SQLite's statements and the formats' decoders: with thousands of
// small sessions that cost more than some of the work itself. A goroutine left
// idle for workerIdle ends. The zero value is ready for use.
type workers struct {
	mu   sync.Mutex
	idle []chan func() // each idle goroutine waits on its own channel
}

// workerIdle is how long a goroutine waits for more work before it ends.
const workerIdle = time.Second

// run runs f on an idle goroutine, or on a new one.
func (w *workers) run(f func()) {
	w.mu.Lock()
	if n := len(w.idle); n > 0 {
		c := w.idle[n-1]
		w.idle = w.idle[:n-1]
		w.mu.Unlock()
		c <- f
		return
	}
	w.mu.Unlock()
	go w.work(make(chan func(), 1), f)
}

// work runs f, then whatever run gives it on c, until it has waited workerIdle.
func (w *workers) work(c chan func(), f func()) {
	t := time.NewTimer(workerIdle)
	defer t.Stop()
	for {
		f()
		f = nil // what it holds is not kept while the goroutine waits
		w.mu.Lock()
		w.idle = append(w.idle, c)
		w.mu.Unlock()
		t.Reset(workerIdle)
		select {
		case f = <-c:
			continue
		case <-t.C:
		}
		w.mu.Lock()
		for i, ic := range w.idle {
			if ic == c {
				w.idle = append(w.idle[:i], w.idle[i+1:]...)
				w.mu.Unlock()
				return
			}
		}
		w.mu.Unlock()
		f = <-c // run took this goroutine as its time ran out: its work is on the way
	}
}
