package archive_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/archivetest"
	"github.com/logbook/logbook/archive/openhands"
	"github.com/logbook/logbook/archive/openhands/openhandstest"
	"github.com/logbook/logbook/archive/openhandsgen"
)

// openhandsCorpus is the shared real OpenHands corpus, read in place.
const openhandsCorpus = "../../shared/corpus/openhands"

func ohCorpus(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat(openhandsCorpus); err != nil {
		if os.Getenv("CI") == "" {
			t.Skipf("corpus %s absent: %v", openhandsCorpus, err)
		}
		t.Fatalf("corpus %s absent under CI: %v", openhandsCorpus, err)
	}
	abs, err := filepath.Abs(openhandsCorpus)
	require.NoError(t, err)
	return abs
}

// TestImportOpenHandsCorpus imports every conversation of the real corpus: each
// is ok, holds the events counted from its files, its condensations are stored
// as compactions, and its files come back byte for byte.
func TestImportOpenHandsCorpus(t *testing.T) {
	ctx := context.Background()
	root := ohCorpus(t)
	s := archivetest.MustOpen(t)
	rep, err := s.Import(ctx, []string{root}, archive.ImportOptions{})
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(rep.Files), 16)
	condensations := 0
	for _, f := range rep.Files {
		require.Equal(t, "openhands", f.Agent, f.Path)
		assert.Equal(t, archive.VerdictOK, f.Verdict, "%s: %+v", f.Path, f.Error)
		assert.Equal(t, "new", f.Action)
		want := int64(openhandstest.CountEvents(t, f.Path, openhands.Layout(f.Format)))
		assert.Equal(t, want, f.LogicalEvents, f.Path)
		assert.Equal(t, want, f.Records, f.Path)
		sess, err := s.Session(ctx, f.SessionID)
		require.NoError(t, err)
		assert.Equal(t, want, sess.Events, f.Path)

		// Every kept file is the file on disk.
		out := filepath.Join(t.TempDir(), "x")
		require.NoError(t, s.ExportOriginal(ctx, f.SessionID, out))
		kept, err := s.KeptFiles(ctx, f.SessionID)
		require.NoError(t, err)
		require.NotEmpty(t, kept)
		for _, k := range kept {
			src := f.Path
			if fi, _ := os.Stat(f.Path); fi.IsDir() {
				src = filepath.Join(f.Path, filepath.FromSlash(k.Name))
			}
			want, err := os.ReadFile(src)
			require.NoError(t, err)
			got, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(k.Name)))
			require.NoError(t, err)
			assert.True(t, bytes.Equal(want, got), "%s: %s differs", f.Path, k.Name)
		}
		// Export never overwrites.
		assert.Error(t, s.ExportOriginal(ctx, f.SessionID, out))

		if strings.Contains(f.Path, "benchmarks") {
			names, err := filepath.Glob(filepath.Join(f.Path, "events", "*.json"))
			require.NoError(t, err)
			for _, n := range names {
				data, _ := os.ReadFile(n)
				if bytes.Contains(data, []byte(`"kind":"Condensation"`)) || bytes.Contains(data, []byte(`"kind": "Condensation"`)) {
					condensations++
				}
			}
		}
	}
	comps, err := s.Compactions(ctx, archive.ItemFilter{})
	require.NoError(t, err)
	assert.Equal(t, condensations, len(comps), "every Condensation is a compaction")
	assert.Positive(t, condensations)
	for _, c := range comps {
		assert.NotEmpty(t, c.ShadowedSeqs, "a condensation names what it forgot: %+v", c)
	}

	// A second import reads nothing and changes nothing.
	again, err := s.Import(ctx, []string{root}, archive.ImportOptions{})
	require.NoError(t, err)
	assert.Equal(t, 0, again.Summary.Changed, "%+v", again.Summary)
}

// TestImportOpenHandsIncremental holds the import of a growing SDK conversation
// to the cost of what was added, writes nothing for an unchanged one, and keeps
// the earlier bytes of a rewritten event file.
func TestImportOpenHandsIncremental(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	facts, err := openhandsgen.Generate(dir, openhandsgen.Options{Layout: openhands.LayoutSDK, Seed: 5, Turns: 6})
	require.NoError(t, err)
	conv := facts.Unit.Path
	events := filepath.Join(conv, "events")
	names, err := filepath.Glob(filepath.Join(events, "event-*.json"))
	require.NoError(t, err)
	require.Greater(t, len(names), 20)
	// Hold back the last ten event files: the agent has not written them yet.
	hold := t.TempDir()
	for _, n := range names[len(names)-10:] {
		require.NoError(t, os.Rename(n, filepath.Join(hold, filepath.Base(n))))
	}
	s := archivetest.MustOpen(t)
	first := importOne(t, s, conv)
	require.Equal(t, archive.VerdictOK, first.Verdict, "%+v", first.Error)
	assert.Equal(t, "new", first.Action)
	assert.EqualValues(t, len(names)-10, first.LogicalEvents)
	// 32 hex digits find the dashed session id.
	sess, err := s.Session(ctx, strings.ReplaceAll(first.SessionID, "-", ""))
	require.NoError(t, err)
	assert.Equal(t, first.SessionID, sess.ID)
	revision := func() int64 {
		return queryInt(t, db(t, s), `SELECT revision FROM sessions WHERE id = ?`, first.SessionID)
	}
	rev := revision()

	// Unchanged: nothing read, nothing written.
	same := importOne(t, s, conv)
	assert.Equal(t, "unchanged", same.Action)
	assert.False(t, same.Changed)
	assert.Equal(t, rev, revision())

	// Grown: only the new files are read.
	var added int64
	for _, n := range names[len(names)-10:] {
		require.NoError(t, os.Rename(filepath.Join(hold, filepath.Base(n)), n))
		fi, err := os.Stat(n)
		require.NoError(t, err)
		added += fi.Size()
	}
	grown := importOne(t, s, conv)
	assert.Equal(t, "appended", grown.Action)
	assert.Equal(t, added, grown.Bytes, "only the new event files are read")
	assert.EqualValues(t, len(names), grown.LogicalEvents)
	assert.Equal(t, facts.Events, len(names))

	// A fresh archive importing the whole folder at once holds the same views.
	whole := archivetest.MustOpen(t)
	full := importOne(t, whole, conv)
	a, err := s.Session(ctx, first.SessionID)
	require.NoError(t, err)
	b, err := whole.Session(ctx, first.SessionID)
	require.NoError(t, err)
	assert.Equal(t, full.LogicalEvents, grown.LogicalEvents)
	assert.Equal(t, b.Events, a.Events)
	assert.Equal(t, b.Messages, a.Messages)
	assert.Equal(t, b.ToolCalls, a.ToolCalls)

	// Rewritten: an earlier event file changes; the session is read again and the
	// file's earlier bytes stay kept, superseded.
	victim := names[3]
	old, err := os.ReadFile(victim)
	require.NoError(t, err)
	changed := bytes.Replace(old, []byte(`"id"`), []byte(`"note": "edited", "id"`), 1)
	require.NoError(t, os.WriteFile(victim, changed, 0o644))
	re := importOne(t, s, conv)
	assert.Equal(t, "rewritten", re.Action)
	assert.Equal(t, archive.VerdictOK, re.Verdict, "%+v", re.Error)
	assert.EqualValues(t, len(names), re.LogicalEvents)
	kept, err := s.KeptFiles(ctx, first.SessionID)
	require.NoError(t, err)
	var versions []archive.KeptFile
	for _, k := range kept {
		if k.Name == "events/"+filepath.Base(victim) {
			versions = append(versions, k)
		}
	}
	require.Len(t, versions, 2)
	assert.True(t, versions[0].Superseded)
	assert.False(t, versions[1].Superseded)
	out := filepath.Join(t.TempDir(), "out")
	require.NoError(t, s.ExportOriginal(ctx, first.SessionID, out))
	got, err := os.ReadFile(filepath.Join(out, "events", filepath.Base(victim)))
	require.NoError(t, err)
	assert.Equal(t, changed, got)
}

// TestOpenHandsTimeline reads the timeline of an imported conversation: tool
// calls come with their results folded in, condensations are compaction items,
// and the rest are messages or markers.
func TestOpenHandsTimeline(t *testing.T) {
	ctx := context.Background()
	root := ohCorpus(t)
	s := archivetest.MustOpen(t)
	conv := filepath.Join(root, "benchmarks/workspace/conversations/3749ed60c63e4def840a46f15f4ee18c/event_service")
	fr := importOne(t, s, conv)
	require.Equal(t, archive.VerdictOK, fr.Verdict, "%+v", fr.Error)
	tl, err := s.Timeline(ctx, fr.SessionID, archive.TimelineQuery{Limit: archive.MaxTimelineLimit})
	require.NoError(t, err)
	kinds := map[string]int{}
	thoughts := 0
	for _, it := range tl.Items {
		kinds[it.Kind]++
		if it.Kind == archive.ItemTool && it.Message != nil && it.Message.Text != "" {
			thoughts++ // the ActionEvent's thought shows with its call
		}
		if it.Tool != nil && it.Type == "ActionEvent" {
			assert.NotEmpty(t, it.Tool.Name, "seq %d", it.Seq)
		}
	}
	calls, err := s.ToolCalls(ctx, fr.SessionID)
	require.NoError(t, err)
	paired := 0
	for _, c := range calls {
		if c.ResultSeq != nil {
			paired++
		}
	}
	assert.Positive(t, paired, "results pair with their calls")
	assert.Equal(t, 2, kinds[archive.ItemCompaction], "%v", kinds)
	assert.Positive(t, kinds[archive.ItemTool], "%v", kinds)
	assert.Positive(t, kinds[archive.ItemMessage], "%v", kinds)
	assert.Positive(t, thoughts, "tool items carry the thought before the call")
	t.Logf("timeline kinds: %v; %d of %d calls paired", kinds, paired, len(calls))
}

// TestOpenHandsApprovals holds confirmation mode to the approvals view: every
// rejection the generator wrote decides an approval of the action it rejects.
func TestOpenHandsApprovals(t *testing.T) {
	ctx := context.Background()
	facts, err := openhandsgen.Generate(t.TempDir(), openhandsgen.Options{Layout: openhands.LayoutSDK, Seed: 8, Turns: 10, Confirmation: true})
	require.NoError(t, err)
	require.Positive(t, facts.Rejections)
	s := archivetest.MustOpen(t)
	fr := importOne(t, s, facts.Unit.Path)
	require.Equal(t, archive.VerdictOK, fr.Verdict, "%+v", fr.Error)
	approvals, err := s.Approvals(ctx, archive.ItemFilter{SessionID: fr.SessionID})
	require.NoError(t, err)
	rejected := 0
	for _, a := range approvals {
		if a.Outcome != nil && *a.Outcome == "rejected" {
			rejected++
		}
	}
	assert.Equal(t, facts.Rejections, rejected, "%d approvals", len(approvals))
}

// TestOpenHandsJSONLGrows appends lines to an agent-server events.jsonl: the
// import reads on from its cursor, and the file kept is the file as it now is.
func TestOpenHandsJSONLGrows(t *testing.T) {
	ctx := context.Background()
	facts, err := openhandsgen.Generate(t.TempDir(), openhandsgen.Options{Layout: openhands.LayoutJSONL, Seed: 12, Turns: 5})
	require.NoError(t, err)
	path := facts.Unit.Path
	full, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := bytes.SplitAfter(full, []byte("\n"))
	half := bytes.Join(lines[:len(lines)/2], nil)
	require.NoError(t, os.WriteFile(path, half, 0o644))
	s := archivetest.MustOpen(t)
	first := importOne(t, s, path)
	require.Equal(t, archive.VerdictOK, first.Verdict, "%+v", first.Error)
	require.NoError(t, os.WriteFile(path, full, 0o644))
	grown := importOne(t, s, path)
	assert.Equal(t, archive.VerdictOK, grown.Verdict, "%+v", grown.Error)
	assert.Equal(t, "appended", grown.Action)
	assert.EqualValues(t, facts.Events, grown.LogicalEvents)
	assert.LessOrEqual(t, grown.Bytes, int64(len(full)-len(half)), "only the new lines are read")
	out := filepath.Join(t.TempDir(), "out")
	require.NoError(t, s.ExportOriginal(ctx, grown.SessionID, out))
	got, err := os.ReadFile(filepath.Join(out, filepath.Base(path)))
	require.NoError(t, err)
	assert.Equal(t, full, got)
}

// TestOpenHandsDuplicate archives a conversation found twice (a copy of its
// folder) once: the copy is checked, reported as a duplicate, and a re-scan
// finds both unchanged.
func TestOpenHandsDuplicate(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	facts, err := openhandsgen.Generate(filepath.Join(root, "a"), openhandsgen.Options{Layout: openhands.LayoutSDK, Seed: 3, Turns: 2})
	require.NoError(t, err)
	copyDir := filepath.Join(root, "b", filepath.Base(facts.Unit.Path))
	require.NoError(t, os.CopyFS(copyDir, os.DirFS(facts.Unit.Path)))
	s := archivetest.MustOpen(t)
	rep, err := s.Import(ctx, []string{root}, archive.ImportOptions{})
	require.NoError(t, err)
	require.Len(t, rep.Files, 2)
	assert.Equal(t, "new", rep.Files[0].Action)
	assert.Equal(t, "duplicate", rep.Files[1].Action)
	again, err := s.Import(ctx, []string{root}, archive.ImportOptions{})
	require.NoError(t, err)
	assert.Equal(t, 2, again.Summary.Unchanged, "%+v", again.Files)
}

// TestOpenHandsSideFilesAfterEvents: the state files that name the model
// (base_state.json, meta.json) written after the last event — as an agent
// does, and as live follow sees it — give the session its model at once, as a
// fresh import of the finished folder does, with no event to carry it.
func TestOpenHandsSideFilesAfterEvents(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	facts, err := openhandsgen.Generate(dir, openhandsgen.Options{Layout: openhands.LayoutSDK, Seed: 9, Turns: 3})
	require.NoError(t, err)
	conv := facts.Unit.Path
	hold := t.TempDir()
	var held []string
	for _, name := range []string{"base_state.json", "meta.json"} {
		if _, err := os.Stat(filepath.Join(conv, name)); err == nil {
			require.NoError(t, os.Rename(filepath.Join(conv, name), filepath.Join(hold, name)))
			held = append(held, name)
		}
	}
	require.NotEmpty(t, held, "the generated conversation has state files")

	s := archivetest.MustOpen(t)
	first := importOne(t, s, conv)
	require.Equal(t, archive.VerdictOK, first.Verdict, "%+v", first.Error)
	for _, name := range held {
		require.NoError(t, os.Rename(filepath.Join(hold, name), filepath.Join(conv, name)))
	}
	importOne(t, s, conv)

	whole := archivetest.MustOpen(t)
	importOne(t, whole, conv)
	want, err := whole.Session(ctx, first.SessionID)
	require.NoError(t, err)
	require.NotEmpty(t, want.Models, "a fresh import names the model")
	got, err := s.Session(ctx, first.SessionID)
	require.NoError(t, err)
	assert.Equal(t, want.Models, got.Models)
	assert.Equal(t, want.Title, got.Title)
	assert.Equal(t, want.Events, got.Events)
}
