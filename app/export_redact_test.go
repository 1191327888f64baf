package app

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/export"
	"github.com/logbook/logbook/export/exporttest"
	"github.com/logbook/logbook/export/redact"
)

// watchLiveHeap samples the live heap every 2 ms until the returned func is
// called, which returns the highest sample.
func watchLiveHeap() func() uint64 {
	var peak atomic.Uint64
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			if h := liveHeap(); h > peak.Load() {
				peak.Store(h)
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	return func() uint64 {
		close(stop)
		<-done
		return peak.Load()
	}
}

// envInt is the integer in environment variable name, or def.
func envInt(t *testing.T, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	require.NoError(t, err, name)
	return n
}

// sessionTexts is the text of every doc the sessions ids export, by the doc ID a
// bundle scan gives it ("N:" + the transcript's own).
func sessionTexts(t *testing.T, s *archive.Store, ids []string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for i, id := range ids {
		tr, err := export.Load(context.Background(), s, id)
		require.NoError(t, err)
		for _, d := range tr.Docs() {
			out[fmt.Sprintf("%d:%s", i, d.ID)] = d.Text
		}
	}
	return out
}

// redactedBundle reviews and exports a redacted bundle of the sessions ids as
// the Export dialog does, and returns how many findings the review had, the
// export and how much the live heap grew meanwhile. (The review is let go
// before the export, as the UI holds it, not the Go side.)
func redactedBundle(t *testing.T, ta *testApp, ids, names []string) (int, ExportFile, int64) {
	t.Helper()
	// The live heap is known at the end of each GC only: a frequent GC finds
	// the peak, whatever garbage earlier tests left to pace it.
	defer debug.SetGCPercent(debug.SetGCPercent(20))
	runtime.GC()
	debug.FreeOSMemory()
	base := liveHeap()
	peak := watchLiveHeap()
	opts := ExportOptions{Format: "bundle", Redact: true, Names: names, Sessions: ids}
	rep, err := ta.ExportScan("", opts)
	require.NoError(t, err)
	findings := len(rep.Findings)
	f, err := ta.Export("", opts, redact.Decisions{})
	require.NoError(t, err)
	return findings, f, int64(peak()) - int64(base)
}

// TestExportRedactedBundleMemory: the review and the export of a redacted bundle
// hold one session at a time, so the live heap grows by about what a bundle of
// one session takes (the scanner's rules, ~20 MB, most of it), not by the text
// of all. Every transcript loaded, scanned and redacted whole (and a trie of
// the values found, 45 KB a value) grew it by 97 MB for 50 sessions of 128 KiB
// (6 MB of text), 75 MB more than for one; now about 3 MB more. LOGBOOK_REDACT_SESSIONS and LOGBOOK_REDACT_KB set the sessions
// and their size.
func TestExportRedactedBundleMemory(t *testing.T) {
	n, kb := envInt(t, "LOGBOOK_REDACT_SESSIONS", 50), envInt(t, "LOGBOOK_REDACT_KB", 128)
	ta := newTestApp(t, func(d *Deps) { d.WatchEvery = -1 })
	ctx := context.Background()
	var ids, names []string
	secrets := make([][]string, n) // planted in each session
	for i := range n {
		l, c := exporttest.PlantedSize(uint64(100+i), fmt.Sprintf("session-mem-%03d", i), kb<<10)
		_, err := l.WriteFile(ta.root, false)
		require.NoError(t, err)
		ids = append(ids, l.ID())
		names = append(names, c.UserNames...)
		for _, o := range c.Occurrences {
			secrets[i] = append(secrets[i], o.Value)
		}
	}
	_, err := ta.deps.Archive.Import(ctx, []string{ta.root}, archive.ImportOptions{})
	require.NoError(t, err)
	var total, largest int
	for _, id := range ids {
		size := 0
		for _, text := range sessionTexts(t, ta.deps.Archive, []string{id}) {
			size += len(text)
		}
		total, largest = total+size, max(largest, size)
	}

	// A bundle of one session first, unmeasured, so what the first export
	// sets up once (and what earlier tests leave to collect) is in neither
	// figure; the one measured after the whole bundle.
	redactedBundle(t, ta, ids[:1], names)
	cpu0 := cpuSeconds()
	findings, f, all := redactedBundle(t, ta, ids, names)
	cpu := cpuSeconds() - cpu0
	_, _, one := redactedBundle(t, ta, ids[:1], names)
	mb := func(n int64) float64 { return float64(n) / (1 << 20) }
	out, _ := json.Marshal(map[string]any{"sessions": n, "text_mb": mb(int64(total)), "largest_session_mb": mb(int64(largest)),
		"findings": findings, "bundle_mb": mb(f.Bytes), "live_heap_growth_mb": mb(all), "one_session_growth_mb": mb(one), "cpu_s": cpu})
	t.Logf("redacted bundle: %s", out)
	// Beyond one session's bundle: about one session's text more, and the
	// findings the review returns (in the report and the redactor, ~0.7 KB each).
	assert.Less(t, all-one, int64(2*largest+findings<<10+4<<20), "the live heap grew by %.1f MiB for %d sessions, %.1f MiB for one (of at most %.1f MiB; %.1f MiB in all)",
		mb(all), n, mb(one), mb(int64(largest)), mb(int64(total)))

	require.NotNil(t, f.Redaction)
	files := zipBytes(t, []byte(fetched(t, ta.App, f)))
	assert.Len(t, files, 2*n+1, "every session's html and md, and the manifest")
	var m export.Manifest
	require.NoError(t, json.Unmarshal([]byte(files[export.ManifestName]), &m))
	require.NotNil(t, m.Redaction)
	assert.Equal(t, *f.Redaction, *m.Redaction, "the manifest records the summary of the whole bundle")
	redacted := 0
	for _, c := range m.Redaction.Redacted {
		redacted += c
	}
	assert.Equal(t, findings, redacted, "every finding reviewed is redacted")
	for i, ss := range secrets {
		name := fmt.Sprintf("sessions/%d/session.md", i+1)
		for _, s := range ss {
			if !assert.NotContains(t, files[name], s, "a planted secret in %s", name) {
				break
			}
		}
	}
}

// TestExportBundleDecisionsPerSession: the findings a review of a bundle returns
// address, session by session, what the export redacts: findings declined in
// the first and third sessions stay there, word for word, and every other is
// redacted; the manifest counts them.
func TestExportBundleDecisionsPerSession(t *testing.T) {
	ta := newTestApp(t)
	var ids, names []string
	for i := range 3 {
		l, c := exporttest.Planted(uint64(21+i), fmt.Sprintf("session-decide-%d", i))
		_, err := l.WriteFile(ta.root, false)
		require.NoError(t, err)
		ids = append(ids, l.ID())
		names = append(names, c.UserNames...)
	}
	ta.importNow(t)
	opts := ExportOptions{Format: "bundle", Redact: true, Names: names, Sessions: ids}
	rep, err := ta.ExportScan("", opts)
	require.NoError(t, err)
	again, err := ta.ExportScan("", opts)
	require.NoError(t, err)
	idsOf := func(r redact.Report) (out []string) {
		for _, f := range r.Findings {
			out = append(out, f.ID)
		}
		return out
	}
	require.Equal(t, idsOf(rep), idsOf(again), "a re-scan gives the same finding ids")

	texts := sessionTexts(t, ta.deps.Archive, ids)
	secret := func(f redact.Finding) string { return texts[f.Doc][f.Start:f.End] }
	// A secret's findings (one per copy planted), and the sessions they are in.
	type group struct {
		findings []redact.Finding
		sessions map[string]bool
	}
	groups := map[string]*group{}
	var order []string
	for _, f := range rep.Findings {
		g := groups[f.Fingerprint]
		if g == nil {
			g = &group{sessions: map[string]bool{}}
			groups[f.Fingerprint] = g
			order = append(order, f.Fingerprint)
		}
		g.findings = append(g.findings, f)
		g.sessions[f.Doc[:strings.IndexByte(f.Doc, ':')]] = true
	}
	// Decline, in sessions 0 and 2, a token only that session has and that holds
	// no other secret (which, accepted, would be redacted inside it).
	holdsOther := func(fp string) bool {
		s := secret(groups[fp].findings[0])
		for _, other := range order {
			if o := secret(groups[other].findings[0]); other != fp && strings.Contains(s, o) {
				return true
			}
		}
		return false
	}
	declined := map[string]string{} // session → secret
	dec := redact.Decisions{Findings: map[string]bool{}}
	kept := 0
	for _, fp := range order {
		g := groups[fp]
		f := g.findings[0]
		n := f.Doc[:strings.IndexByte(f.Doc, ':')]
		if f.Category != redact.CategoryToken || len(g.sessions) != 1 || (n != "0" && n != "2") || declined[n] != "" || holdsOther(fp) {
			continue
		}
		declined[n] = secret(f)
		for _, x := range g.findings {
			dec.Findings[x.ID] = false
			kept++
		}
	}
	require.Len(t, declined, 2, "a token to keep in sessions 0 and 2")

	f, err := ta.Export("", opts, dec)
	require.NoError(t, err)
	require.NotNil(t, f.Redaction)
	assert.Equal(t, kept, f.Redaction.Kept)
	files := zipBytes(t, []byte(fetched(t, ta.App, f)))
	var m export.Manifest
	require.NoError(t, json.Unmarshal([]byte(files[export.ManifestName]), &m))
	require.NotNil(t, m.Redaction)
	assert.Equal(t, *f.Redaction, *m.Redaction)
	redacted := 0
	for _, c := range m.Redaction.Redacted {
		redacted += c
	}
	assert.Equal(t, len(rep.Findings)-kept, redacted)

	for n, s := range declined {
		i, _ := strconv.Atoi(n)
		assert.Contains(t, files[fmt.Sprintf("sessions/%d/session.md", i+1)], s, "the token declined in session %s stays", n)
	}
	keptSecrets := map[string]bool{}
	for _, s := range declined {
		keptSecrets[s] = true
	}
	for _, fp := range order {
		s := secret(groups[fp].findings[0])
		if keptSecrets[s] || len(s) < 8 {
			continue // short values are redacted where they stand alone only
		}
		for name, body := range files {
			if strings.HasPrefix(name, "sessions/") {
				assert.NotContains(t, body, s, "an accepted finding (%s) in %s", groups[fp].findings[0].Rule, name)
			}
		}
	}
}
