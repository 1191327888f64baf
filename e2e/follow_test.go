package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/dshgen"
)

// messageLines returns, for each message of a generated log, the number of
// lines (header included) that hold it, found by importing the whole log into
// a scratch archive: appending lines[:n] makes that message appear.
func messageLines(t *testing.T, l *dshgen.Log) (seqs []int64, upTo []int) {
	t.Helper()
	root := t.TempDir()
	_, err := l.WriteFile(root, false)
	require.NoError(t, err)
	s := archive.New(filepath.Join(t.TempDir(), "scratch.db"))
	require.NoError(t, s.Open(t.Context()))
	defer s.Close()
	_, err = s.Import(t.Context(), []string{root}, archive.ImportOptions{})
	require.NoError(t, err)
	page, err := s.Timeline(t.Context(), l.ID(), archive.TimelineQuery{Limit: archive.MaxTimelineLimit})
	require.NoError(t, err)
	for _, it := range page.Items {
		if it.Kind == "message" && it.Surface != "shadowed" {
			if n := int(l.LineOfSeq(it.Seq)); n > 0 && (len(upTo) == 0 || n > upTo[len(upTo)-1]) {
				seqs, upTo = append(seqs, it.Seq), append(upTo, n)
			}
		}
	}
	return seqs, upTo
}

// TestLiveFollowGrowsConversation serves with live follow on, opens a session
// whose log is still being written, and appends its next lines to the file on
// disk, a message at a time: each new message appears in the open conversation,
// without a reload, within 2 s. The append→visible latency (write to the
// message in the page) is logged as p50 and max.
func TestLiveFollowGrowsConversation(t *testing.T) {
	base := need(t)
	e := &env{dataDir: t.TempDir(), artifacts: base.artifacts, follow: true}
	root := filepath.Join(e.dataDir, "sessions")
	l := dshgen.Generate(dshgen.Options{Seed: 61, Turns: 10, Cwd: "/home/u/live", ASCII: true})
	seqs, upTo := messageLines(t, l)
	require.Greater(t, len(seqs), 11, "enough messages to append one at a time")
	rel, err := l.RelPath(false)
	require.NoError(t, err)
	path := filepath.Join(root, rel)
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	lines := l.Lines()
	join := func(from, to int) []byte {
		var b []byte
		for _, ln := range lines[from:to] {
			b = append(append(b, ln...), '\n')
		}
		return b
	}
	// The session so far: up to its third message.
	start := 2
	written := upTo[start]
	require.NoError(t, os.WriteFile(path, join(0, written), 0o644))

	ctx, cancel := context.WithCancel(context.Background())
	e.cancel = cancel
	t.Cleanup(e.close)
	require.NoError(t, e.serve(ctx, []string{root}))

	b := browser(t, e, 1280, 800)
	open(t, b, e, "#/session/"+l.ID(), `[data-testid="item"]`)
	// The reader goes to the end of what was written so far.
	require.NoError(t, chromedp.Do(b, chromedp.KeyEvent(kb.End)))
	poll(t, b, fmt.Sprintf(`!!document.querySelector('[data-testid="item"][data-seq="%d"]')`, seqs[start]), "the last message so far")
	time.Sleep(300 * time.Millisecond)

	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	defer f.Close()
	var lat []time.Duration
	for i := start + 1; i < min(len(seqs), start+9); i++ {
		sel := fmt.Sprintf(`[data-testid="item"][data-seq="%d"]`, seqs[i])
		began := time.Now()
		_, err := f.Write(join(written, upTo[i]))
		require.NoError(t, err)
		written = upTo[i]
		_, err = chromedp.Run(b, chromedp.Poll[bool](fmt.Sprintf(`!!document.querySelector('%s')`, sel),
			chromedp.WithPollingTimeout(2*time.Second), chromedp.WithPollingInterval(5*time.Millisecond)))
		require.NoError(t, err, "message seq %d (append %d) did not appear within 2 s", seqs[i], i-start)
		lat = append(lat, time.Since(began))
		time.Sleep(200 * time.Millisecond) // a writer pauses between messages
	}
	slices.Sort(lat)
	t.Logf("append→visible over %d appends: p50 %v, max %v (all: %v)", len(lat), lat[len(lat)/2].Round(time.Millisecond),
		lat[len(lat)-1].Round(time.Millisecond), lat)
	assert.Equal(t, 1, eval[int](t, b, `performance.getEntriesByType('navigation').length`), "no reload")
	shot(t, b, e, "live-follow-conversation")

	// The sessions list follows: a new session written while it is open shows
	// without a reload.
	open(t, b, e, "#/sessions", `[data-testid="session-row"]`)
	other := dshgen.Generate(dshgen.Options{Seed: 62, Turns: 2, Cwd: "/home/u/another", ASCII: true})
	began := time.Now()
	_, err = other.WriteFile(root, false)
	require.NoError(t, err)
	_, err = chromedp.Run(b, chromedp.Poll[bool](fmt.Sprintf(`!!document.querySelector('[data-testid="session-row"][data-session="%s"]')`, other.ID()),
		chromedp.WithPollingTimeout(5*time.Second), chromedp.WithPollingInterval(10*time.Millisecond)))
	require.NoError(t, err, "the new session's row")
	t.Logf("new session listed %v after it was written", time.Since(began).Round(time.Millisecond))

	// The Import view shows the root as watched, and the sidebar says live.
	open(t, b, e, "#/import", `[data-testid="follow-root"]`)
	poll(t, b, `document.querySelector('[data-testid="follow-root"]').dataset.mode === 'watching'`, "the root is watched")
	poll(t, b, `document.querySelector('[data-testid="follow-indicator"]').innerText.includes('Live')`, "the live indicator")
	shot(t, b, e, "live-follow-import")
}
