package app

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHubFansOut(t *testing.T) {
	h := NewHub()
	sh := &fakeShell{}
	h.attach(sh)
	a, b := h.subscribe(), h.subscribe()
	h.Publish(EventArchiveChanged, ArchiveChanged{Sessions: []string{"s1"}})

	assert.Equal(t, []string{EventArchiveChanged}, sh.names())
	for _, s := range []*subscription{a, b} {
		select {
		case <-s.wake:
		case <-time.After(time.Second):
			t.Fatal("subscriber not woken")
		}
		evs := s.take()
		require.Len(t, evs, 1)
		assert.Equal(t, EventArchiveChanged, evs[0].Name)
		assert.JSONEq(t, `{"sessions":["s1"]}`, string(evs[0].Data))
	}

	h.unsubscribe(b)
	h.Publish("x", 1)
	assert.Len(t, a.take(), 1)
	assert.Empty(t, b.take(), "an unsubscribed browser gets nothing")

	h.Quit()
	h.Raise()
	assert.Equal(t, 1, sh.quits)
	assert.Equal(t, 1, sh.raises)
}

func TestHubWithoutWindow(t *testing.T) {
	h := NewHub()
	assert.False(t, h.desktop())
	h.Quit() // no window: nothing to do, and no Wails runtime call
	h.Raise()
	h.Publish("x", map[string]int{"a": 1})
	h.Publish("bad", func() {}) // does not encode: logged and dropped
}

func TestSlowSubscriberIsCoalesced(t *testing.T) {
	h := NewHub()
	s := h.subscribe()
	done := make(chan struct{})
	go func() {
		// Nobody reads s: publishing must still never block.
		h.Publish(EventImportDone, ImportRun{})
		for i := range 500 {
			h.Publish(EventImportProgress, ImportProgress{FileIndex: i})
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Publish blocked on a slow subscriber")
	}
	evs := s.take()
	require.Len(t, evs, maxQueued)
	assert.Equal(t, EventImportDone, evs[0].Name, "a rare event survives a flood of progress")
	var last ImportProgress
	require.NoError(t, json.Unmarshal(evs[len(evs)-1].Data, &last))
	assert.Equal(t, 499, last.FileIndex, "the newest progress is kept")

	// Past the limit with no event of the same name, the oldest goes.
	for i := range maxQueued + 1 {
		h.Publish(fmt.Sprintf("e%d", i), i)
	}
	evs = s.take()
	require.Len(t, evs, maxQueued)
	assert.Equal(t, "e1", evs[0].Name)
}
