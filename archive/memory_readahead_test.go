package archive

import (
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive/dsh"
	"github.com/logbook/logbook/archive/format"
)

// countingReader counts the bytes read through it, for another goroutine to watch.
type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// bigRecordsLog is a plain log of n user/message lines of size bytes each.
func bigRecordsLog(n, size int) string {
	var b strings.Builder
	b.WriteString(`{"type":"session","version":0,"id":"s","createdAt":1,"delegationDepth":0}` + "\n")
	for seq := range n {
		head := fmt.Sprintf(`{"type":"user/message","seq":%d,"time":1,"data":{"text":"`, seq)
		b.WriteString(head + strings.Repeat("x", size-len(head)-3) + `"}}` + "\n")
	}
	return b.String()
}

// settled waits until the count stops moving.
func settled(c *countingReader) int64 {
	last := c.n.Load()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
		if n := c.n.Load(); n != last {
			last = n
			continue
		}
		return last
	}
	return last
}

// TestReadAheadHoldsAByteBudget: with the writer not taking records, the pipeline
// reads ahead only as far as its byte budget, not 1,280 records of whatever size.
func TestReadAheadHoldsAByteBudget(t *testing.T) {
	const n, size = 48, 512 << 10 // 24 MiB of records: count-bounded queues take them all
	log := bigRecordsLog(n, size)
	src := &countingReader{r: strings.NewReader(log)}
	r, err := dsh.Format{}.Open(format.StreamSource{Path: "session.jsonl", Data: src})
	require.NoError(t, err)
	defer r.Close()
	items, stop := readAhead(r, func(*format.StreamRecord) {}, func() {}, 0)
	defer stop()

	read := settled(src)
	// The budget's records, the one the reader holds while it waits, and the reader's
	// 256 KiB buffer.
	limit := int64(readAheadBytes)/2 + 2*size + 256<<10
	assert.LessOrEqual(t, read, limit, "read ahead %d of %d bytes with no record taken", read, len(log))

	got := 0
	for it := range items {
		if it.err != nil {
			require.ErrorIs(t, it.err, io.EOF)
			break
		}
		assert.Equal(t, size, len(it.rec.Record.Raw))
		got++
	}
	assert.Equal(t, n, got, "every record passes through the budget")
}

// TestReadAheadStopsWhileWaitingForBudget: stop ends a pipeline whose reader waits
// for budget.
func TestReadAheadStopsWhileWaitingForBudget(t *testing.T) {
	src := &countingReader{r: strings.NewReader(bigRecordsLog(48, 512<<10))}
	r, err := dsh.Format{}.Open(format.StreamSource{Path: "session.jsonl", Data: src})
	require.NoError(t, err)
	defer r.Close()
	finished := make(chan struct{})
	_, stop := readAhead(r, func(*format.StreamRecord) {}, func() { close(finished) }, 0)
	settled(src)
	done := make(chan struct{})
	go func() { stop(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("stop did not return")
	}
	select {
	case <-finished:
	default:
		t.Fatal("the reading goroutine did not finish")
	}
}

// TestReadAllHoldsAByteBudget: a file read whole because its stat said it was
// small (readAll) that has since grown holds no more than the pipeline would: past
// readAheadBytes the rest is read by readAhead, and every record still arrives,
// in order.
func TestReadAllHoldsAByteBudget(t *testing.T) {
	const n, size = 48, 512 << 10
	log := bigRecordsLog(n, size)
	src := &countingReader{r: strings.NewReader(log)}
	r, err := dsh.Format{}.Open(format.StreamSource{Path: "session.jsonl", Data: src, Size: 4096})
	require.NoError(t, err)
	defer r.Close()
	finished := make(chan struct{})
	next, stop := readAll(r, func(*format.StreamRecord) {}, func() { close(finished) }, 16)
	require.NotNil(t, stop, "a file grown past the budget is read on by readAhead")
	defer stop()

	read := settled(src)
	// What readAll holds, then readAhead's budget, the records its two goroutines
	// hold while they wait, and the reader's 256 KiB buffer.
	limit := int64(readAheadBytes)/2 + int64(readAheadBytes) + 3*size + 256<<10
	assert.LessOrEqual(t, read, limit, "read ahead %d of %d bytes with no record taken", read, len(log))

	for i := range n {
		it := next()
		require.NoError(t, it.err)
		assert.Equal(t, int64(i+1), it.rec.Record.Line-1, "record %d in order", i)
	}
	assert.ErrorIs(t, next().err, io.EOF)
	<-finished
}

// TestReadAllSmallFile: a small file's records are all read at once, with no
// goroutine left to stop, and finished is called before they are taken.
func TestReadAllSmallFile(t *testing.T) {
	r, err := dsh.Format{}.Open(format.StreamSource{Path: "session.jsonl", Data: strings.NewReader(bigRecordsLog(3, 1024))})
	require.NoError(t, err)
	defer r.Close()
	finished := false
	next, stop := readAll(r, func(*format.StreamRecord) {}, func() { finished = true }, 4)
	assert.Nil(t, stop)
	assert.True(t, finished)
	for range 3 {
		it := next()
		require.NoError(t, it.err)
		assert.Len(t, it.rec.Record.Raw, 1024)
	}
	assert.ErrorIs(t, next().err, io.EOF)
}
