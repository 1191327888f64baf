package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/dshgen"
	"github.com/logbook/logbook/sync/follow"
)

// eventLog collects the events a hub publishes to one browser.
type eventLog struct {
	mu     sync.Mutex
	events []Event
}

func listen(t *testing.T, h *Hub) *eventLog {
	t.Helper()
	s := h.subscribe()
	t.Cleanup(func() { h.unsubscribe(s) })
	l := &eventLog{}
	done := make(chan struct{})
	t.Cleanup(func() { close(done) })
	go func() {
		for {
			select {
			case <-done:
				return
			case <-s.wake:
				evs := s.take()
				l.mu.Lock()
				l.events = append(l.events, evs...)
				l.mu.Unlock()
			}
		}
	}()
	return l
}

// changed reports whether an archive:changed event named session.
func (l *eventLog) changed(session string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, e := range l.events {
		var c ArchiveChanged
		if e.Name == EventArchiveChanged && json.Unmarshal(e.Data, &c) == nil && slices.Contains(c.Sessions, session) {
			return true
		}
	}
	return false
}

func (l *eventLog) count(name string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, e := range l.events {
		if e.Name == name {
			n++
		}
	}
	return n
}

// TestFollow: with Follow on, a session written under a root is imported as it
// grows, indexed, and announced to the views by id; the roots' modes and the
// files being written are in FollowStatus; roots added in the import settings
// are followed at once.
func TestFollow(t *testing.T) {
	ta := newTestApp(t, func(d *Deps) { d.Follow = true; d.Logger = quietLogger() })
	events := listen(t, ta.hub)
	require.Eventually(t, func() bool {
		st, _ := ta.FollowStatus()
		return st.On && len(st.Roots) == 1 && st.Roots[0].Mode == follow.Watching
	}, 5*time.Second, 10*time.Millisecond)

	log := dshgen.Generate(dshgen.Options{Seed: 51, Turns: 3, Cwd: "/home/u/live", ASCII: true})
	rel, err := log.RelPath(false)
	require.NoError(t, err)
	path := filepath.Join(ta.root, rel)
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	body := log.JSONL()
	half := len(body) / 2
	require.NoError(t, os.WriteFile(path, body[:half], 0o644)) // cut inside a line

	require.Eventually(t, func() bool { return events.changed(log.ID()) }, 5*time.Second, 10*time.Millisecond)
	st, err := ta.FollowStatus()
	require.NoError(t, err)
	assert.Equal(t, []string{path}, st.Writing, "the cut line is being written, not damage")
	assert.Positive(t, events.count(EventFollowStatus))

	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.Write(body[half:])
	require.NoError(t, err)
	require.NoError(t, f.Close())
	require.Eventually(t, func() bool {
		s, err := ta.deps.Archive.Session(ta.ctx, log.ID())
		return err == nil && s.Events == int64(log.Events())
	}, 5*time.Second, 10*time.Millisecond)
	require.Eventually(t, func() bool {
		st, _ := ta.FollowStatus()
		return len(st.Writing) == 0
	}, 5*time.Second, 10*time.Millisecond)
	require.Eventually(t, func() bool {
		res, err := ta.Search(SearchRequest{Query: "session:" + log.ID()})
		return err == nil && len(res.Hits) > 0
	}, 5*time.Second, 20*time.Millisecond, "search follows")

	// A root the person adds is followed; one that is not there is missing.
	added, missing := t.TempDir(), filepath.Join(t.TempDir(), "not-yet")
	require.NoError(t, ta.SetImportSettings(ImportSettings{Roots: []string{added, missing}}))
	require.Eventually(t, func() bool {
		st, _ := ta.FollowStatus()
		modes := map[string]follow.Mode{}
		for _, r := range st.Roots {
			modes[r.Root] = r.Mode
		}
		return modes[ta.root] == follow.Watching && modes[added] == follow.Watching && modes[missing] == follow.Missing
	}, 5*time.Second, 10*time.Millisecond)
	info, err := ta.Info()
	require.NoError(t, err)
	assert.Equal(t, []string{ta.root, added, missing}, info.Roots)
	other := dshgen.Generate(dshgen.Options{Seed: 52, Turns: 2, Cwd: "/home/u/added", ASCII: true})
	_, err = other.WriteFile(added, false)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return events.changed(other.ID()) }, 5*time.Second, 10*time.Millisecond)

	assert.Error(t, ta.SetImportSettings(ImportSettings{Roots: []string{"relative/path"}}))
}

// TestFollowOff: without Follow the status says so, and nothing is followed.
func TestFollowOff(t *testing.T) {
	ta := newTestApp(t)
	st, err := ta.FollowStatus()
	require.NoError(t, err)
	assert.False(t, st.On)
	assert.NotEmpty(t, st.Off)
	assert.Equal(t, []follow.Status{}, st.Roots)
	ta.generate(t, 53, "/home/u/off")
	time.Sleep(300 * time.Millisecond)
	n, err := ta.sessionCount(ta.ctx)
	require.NoError(t, err)
	assert.Zero(t, n)
}

// TestFollowPolling: a root that cannot be watched (the system's limit on
// watched folders, simulated) is polled, the status says why, and a session
// written there is still imported, on the slow rescan.
func TestFollowPolling(t *testing.T) {
	ta := newTestApp(t, func(d *Deps) { d.Logger = quietLogger() })
	ta.deps.Follow = true
	ta.follow.tune = func(o *follow.Options[archive.FileReport]) {
		o.BeforeWatch = func(string) error { return syscall.ENOSPC }
		o.Rescan = 300 * time.Millisecond
	}
	events := listen(t, ta.hub)
	ta.startFollow()
	var st FollowStatus
	require.Eventually(t, func() bool {
		st, _ = ta.FollowStatus()
		return len(st.Roots) == 1 && st.Roots[0].Mode == follow.Polling
	}, 5*time.Second, 10*time.Millisecond)
	assert.Contains(t, st.Roots[0].Reason, "limit on watched folders")
	l := ta.generate(t, 54, "/home/u/polled")
	require.Eventually(t, func() bool { return events.changed(l.ID()) }, 5*time.Second, 10*time.Millisecond)
	assert.Positive(t, events.count(EventFollowStatus))
}
