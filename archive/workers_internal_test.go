package archive

import (
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestWorkersReuseAndEnd: work run one after another reuses one goroutine, work
// run at once gets a goroutine each, and idle goroutines end after workerIdle.
func TestWorkersReuseAndEnd(t *testing.T) {
	var w workers
	before := runtime.NumGoroutine()
	ids := map[uint64]bool{}
	for range 100 {
		done := make(chan struct{})
		w.run(func() { ids[goid()] = true; close(done) })
		<-done
		time.Sleep(time.Millisecond) // the goroutine is idle again
	}
	assert.Len(t, ids, 1, "sequential work reuses its goroutine")

	var wg sync.WaitGroup
	release := make(chan struct{})
	var mu sync.Mutex
	ran := 0
	for range 8 {
		wg.Add(1)
		w.run(func() {
			defer wg.Done()
			<-release
			mu.Lock()
			ran++
			mu.Unlock()
		})
	}
	close(release)
	wg.Wait()
	assert.Equal(t, 8, ran, "work waiting at once runs at once, each on a goroutine")

	deadline := time.Now().Add(workerIdle + 5*time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	assert.LessOrEqual(t, runtime.NumGoroutine(), before, "idle goroutines end")
}

// goid is the running goroutine's id, from its stack trace's first line.
func goid() uint64 {
	b := make([]byte, 64)
	b = b[:runtime.Stack(b, false)]
	var id uint64
	for _, c := range b[len("goroutine "):] {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + uint64(c-'0')
	}
	return id
}
