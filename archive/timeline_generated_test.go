package archive_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/archivetest"
	"github.com/logbook/logbook/archive/dsh"
	"github.com/logbook/logbook/archive/dshgen"
)

// assertCovers checks that every event of a session that is not skipped is an item or
// is folded into one.
func assertCovers(t *testing.T, s *archive.Store, id string, items []archive.TimelineItem) {
	t.Helper()
	held := map[int64]bool{}
	for _, it := range items {
		held[it.Seq] = true
		if it.Tool != nil && it.Tool.ResultSeq != nil {
			held[*it.Tool.ResultSeq] = true
		}
		if it.Approval != nil && it.Approval.DecidedSeq != nil {
			held[*it.Approval.DecidedSeq] = true
		}
		if c := it.Compaction; c != nil {
			for _, p := range []*int64{c.StartSeq, c.SummarySeq, c.EndSeq} {
				if p != nil {
					held[*p] = true
				}
			}
		}
	}
	skipped := map[string]bool{"step/start": true, "step/end": true, "request/header": true, "request/context": true,
		"session-log-deepseek/delivery-accepted": true, "session/title-llm-request": true, "web/deepseek-search-llm-request": true}
	rows, err := db(t, s).Query(`SELECT e.seq, e.type FROM events e JOIN sessions s ON s.pk = e.session_pk WHERE s.id = ? ORDER BY e.seq`, id)
	require.NoError(t, err)
	defer rows.Close()
	events, missing := 0, []string{}
	for rows.Next() {
		var seq int64
		var typ string
		require.NoError(t, rows.Scan(&seq, &typ))
		if skipped[typ] {
			continue
		}
		events++
		if !held[seq] {
			missing = append(missing, fmt.Sprintf("%d %s", seq, typ))
		}
	}
	require.NoError(t, rows.Err())
	assert.Empty(t, missing, "events neither items nor folded into one")
	assert.Greater(t, events, 0)
}

// TestTimelineGenerated checks the timeline of a generated session with every event
// family against the facts the generator recorded.
func TestTimelineGenerated(t *testing.T) {
	ctx := context.Background()
	s := archivetest.MustOpen(t)
	l := dshgen.Generate(dshgen.Options{Seed: 42, Turns: 14, Cwd: "/home/u/项目 ✨"})
	fr := importGenerated(t, s, t.TempDir(), l, true)
	id := fr.SessionID
	facts := l.Facts()

	items := allItems(t, s, id, 25)
	assert.Equal(t, seqsOf(items), seqsOf(backwardItems(t, s, id, 25)))
	assertCovers(t, s, id, items)
	got := bySeq(items)

	t.Run("turns", func(t *testing.T) {
		require.NotEmpty(t, facts.Turns)
		statuses := map[string]bool{}
		for _, tf := range facts.Turns {
			start, end := got[tf.StartSeq], got[tf.EndSeq]
			assert.Equal(t, archive.ItemTurn, start.Kind)
			assert.Equal(t, archive.ItemTurn, end.Kind)
			want := fmt.Sprintf("Turn %d", tf.Turn)
			assert.Equal(t, want, start.Marker.Label)
			assert.Equal(t, want, end.Marker.Label)
			assert.Equal(t, string(tf.Reason), end.Marker.Status, "turn %d", tf.Turn)
			statuses[end.Marker.Status] = true
			if tf.Reason == dshgen.EndError {
				assert.Contains(t, end.Marker.Detail, "503")
			}
		}
		assert.GreaterOrEqual(t, len(statuses), 4, "completed, aborted, error, max-tokens: %v", statuses)
	})

	t.Run("approvals", func(t *testing.T) {
		require.NotEmpty(t, facts.Approvals)
		for _, af := range facts.Approvals {
			it := got[af.AskedSeq]
			require.NotNil(t, it.Approval, "approval %s", af.ID)
			assert.Equal(t, af.ID, it.Approval.ID)
			if af.Outcome == dshgen.ApprovalPending {
				assert.Nil(t, it.Approval.Outcome)
				continue
			}
			require.NotNil(t, it.Approval.Outcome)
			assert.Equal(t, af.Outcome, *it.Approval.Outcome)
			assert.NotContains(t, got, af.DecidedSeq)
		}
	})

	t.Run("compactions and the messages they shadow", func(t *testing.T) {
		require.NotEmpty(t, facts.Compactions)
		for _, cf := range facts.Compactions {
			it := got[cf.StartSeq]
			require.NotNil(t, it.Compaction, "compaction %s", cf.ID)
			assert.Equal(t, cf.ID, it.Compaction.CompactionID)
			if cf.Failed {
				assert.Equal(t, "failed", it.Compaction.Status)
				continue
			}
			assert.Equal(t, "ok", it.Compaction.Status)
			assert.Equal(t, cf.ShadowedSeqs, it.Compaction.ShadowedSeqs)
			assert.NotContains(t, got, cf.SummarySeq)
			assert.NotContains(t, got, cf.EndSeq)
			assert.Equal(t, archive.ItemMessage, got[cf.MessageSeq].Kind)
			for _, seq := range cf.ShadowedSeqs {
				// A shadowed tool result is folded into its call: the tool item is shadowed.
				var sh archive.TimelineItem
				for _, it := range items {
					if it.Seq == seq || (it.Tool != nil && it.Tool.ResultSeq != nil && *it.Tool.ResultSeq == seq) {
						sh = it
					}
				}
				require.NotZero(t, sh.Seq, "shadowed seq %d has an item", seq)
				assert.Equal(t, "shadowed", sh.Surface, "seq %d", seq)
				require.NotNil(t, sh.ShadowedBy)
			}
		}
	})

	t.Run("prunes", func(t *testing.T) {
		require.NotEmpty(t, facts.Prunes)
		for _, pf := range facts.Prunes {
			it := got[pf.PruneSeq]
			require.NotNil(t, it.Compaction)
			assert.Equal(t, "prune", it.Compaction.Kind)
			orig := got[pf.ShadowedSeq]
			require.NotNil(t, orig.Message, "the pruned original result keeps its place")
			assert.Equal(t, "shadowed", orig.Surface)
			require.NotNil(t, orig.ShadowedBy)
			assert.Equal(t, pf.ReplacementSeq, *orig.ShadowedBy)
			assert.NotContains(t, got, pf.ReplacementSeq, "the replacement is the call's result")
		}
	})

	t.Run("tools have their outputs", func(t *testing.T) {
		n := 0
		for _, it := range items {
			if it.Kind != archive.ItemTool {
				continue
			}
			n++
			require.NotNil(t, it.Tool.Output, "call %s", it.Tool.CallID)
			if it.Tool.IsError {
				assert.NotEmpty(t, it.Tool.ErrorName+it.Tool.ErrorCode+*it.Tool.Output)
			}
		}
		assert.Greater(t, n, 5)
	})

	t.Run("markers have readable labels", func(t *testing.T) {
		types := map[string]string{}
		for _, it := range items {
			if it.Kind == archive.ItemMarker {
				require.NotEmpty(t, it.Marker.Label)
				assert.NotContains(t, it.Marker.Label, "\n")
				if _, ok := types[it.Type]; !ok {
					types[it.Type] = it.Marker.Label
				}
			}
		}
		for _, typ := range []string{"todo/write", "plan/mode", "sandbox/mode", "model/selection", "session/title",
			"goal/change", "command/run", "command/done", "llm/retry", "llm/retry-started", "hook/invoked",
			"hook/result", "agent/inbox/spliced", "schedule/change", "session/end-seed", "permission/preset",
			"approval/policy"} {
			label, ok := types[typ]
			if assert.True(t, ok, "a %s marker", typ) {
				assert.NotEqual(t, typ, label, "%s has its own label", typ)
			}
		}
		for _, tf := range facts.Titles {
			assert.Equal(t, "title: "+tf.Title, got[tf.Seq].Marker.Label)
		}
		for _, seq := range facts.EndSeeds {
			assert.Equal(t, "session resumed", got[seq].Marker.Label)
		}
		t.Logf("labels: %v", types)
	})

	t.Run("human prompts are messages", func(t *testing.T) {
		for _, seq := range facts.HumanMessages {
			require.NotNil(t, got[seq].Message, "seq %d", seq)
			assert.Equal(t, "human", got[seq].Message.Kind)
		}
	})

	t.Run("around every tool result lands on its call", func(t *testing.T) {
		for _, it := range items {
			if it.Tool == nil || it.Tool.ResultSeq == nil {
				continue
			}
			p, err := s.Timeline(ctx, id, archive.TimelineQuery{Around: it.Tool.ResultSeq, Limit: 5})
			require.NoError(t, err)
			assert.Contains(t, seqsOf(p.Items), it.Seq)
		}
	})
}

func TestTimelineFork(t *testing.T) {
	ctx := context.Background()
	s := archivetest.MustOpen(t)
	root := t.TempDir()
	parent := dshgen.Generate(dshgen.Options{Seed: 5, Turns: 3, Cwd: "/home/u/proj"})
	fork, err := dshgen.Fork(parent, parent.Facts().Turns[1].EndSeq+1, dshgen.Options{Seed: 6})
	require.NoError(t, err)
	importGenerated(t, s, root, parent, true)
	fr := importGenerated(t, s, root, fork, true)

	items := allItems(t, s, fr.SessionID, 50)
	seed := fork.SeedLength()
	var inherited, own int
	for _, it := range items {
		assert.Equal(t, it.Seq < seed, it.Inherited, "seq %d", it.Seq)
		if it.Inherited {
			inherited++
		} else {
			own++
		}
	}
	assert.Positive(t, inherited)
	assert.Positive(t, own)
	seedItem := bySeq(items)[seed]
	require.NotNil(t, seedItem.Marker)
	assert.Equal(t, "session/end-seed", seedItem.Type)
	assert.Equal(t, "forked from the parent session", seedItem.Marker.Label)

	p, err := s.Timeline(ctx, parent.ID(), archive.TimelineQuery{})
	require.NoError(t, err)
	for _, it := range p.Items {
		assert.False(t, it.Inherited)
	}
}

// TestTimelineRealCorpus pages through the real 87k-event log.
func TestTimelineRealCorpus(t *testing.T) {
	ctx := context.Background()
	s := archivetest.MustOpen(t)
	path := archivetest.Corpus(t, archivetest.RealLog)
	rep, err := s.Import(ctx, []string{path}, archive.ImportOptions{})
	require.NoError(t, err)
	id := rep.Files[0].SessionID

	start := time.Now()
	first, err := s.Timeline(ctx, id, archive.TimelineQuery{})
	elapsed := time.Since(start)
	require.NoError(t, err)
	t.Logf("first page of %d items in %v (total %d)", len(first.Items), elapsed, first.Total)
	require.Len(t, first.Items, archive.DefaultTimelineLimit)
	assert.True(t, first.HasAfter)
	assert.False(t, first.HasBefore)
	assert.Less(t, elapsed, 2*time.Second, "generous bound for a loaded machine; the benchmark measures")

	items := allItems(t, s, id, archive.DefaultTimelineLimit)
	assertCovers(t, s, id, items)
	kinds := map[string]int{}
	for _, it := range items {
		kinds[it.Kind]++
	}
	assert.Equal(t, 136, kinds[archive.ItemTool])
	assert.Equal(t, 135, kinds[archive.ItemMessage], "123 answers and 12 prompts; every result is in its call")
	assert.Equal(t, 15, kinds[archive.ItemTurn], "8 starts and 7 ends: the last turn is open")

	withOutput := 0
	for _, it := range items {
		if it.Tool != nil && it.Tool.Output != nil {
			withOutput++
		}
	}
	assert.Equal(t, 135, withOutput, "the open final call has no result")
	last := items[len(items)-1]
	require.NotNil(t, last.Tool)
	assert.Nil(t, last.Tool.Output)

	got := bySeq(items)
	for seq, want := range map[int64]string{
		0: "permissions: workspace-write", 1: "sandbox: workspace-write", 2: "approval policy: ask",
		3: "command: /permission danger-full-access", 8: "command done: preset danger-full-access",
		10: "Turn 1", 17: "title: 测一下有没有写入权限", 69643: "session resumed", 74722: "todo list (7 items)",
	} {
		require.NotNil(t, got[seq].Marker, "seq %d", seq)
		assert.Equal(t, want, got[seq].Marker.Label, "seq %d", seq)
	}
	assert.True(t, strings.HasPrefix(got[74535].Marker.Label, "goal created: "), got[74535].Marker.Label)
	assert.Len(t, got[74722].Marker.Todos, 7)
}

// BenchmarkTimelinePage pages a generated session of about 200,000 events (most of
// them stream chunks, as in real logs): the first page, a page in the middle (After),
// a page around a seq in the middle, and a page back from the end (Before).
func BenchmarkTimelinePage(b *testing.B) {
	ctx := context.Background()
	l := dshgen.Generate(dshgen.Options{Seed: 3, Turns: 1200})
	s := archivetest.MustOpen(b)
	path, err := l.WriteFile(b.TempDir(), true)
	require.NoError(b, err)
	fr := s.ImportFile(ctx, path, archive.ImportOptions{})
	require.Equal(b, dsh.VerdictOK, fr.Verdict, "%+v", fr.Error)
	require.NoError(b, s.Maintain(ctx))
	first, err := s.Timeline(ctx, fr.SessionID, archive.TimelineQuery{})
	require.NoError(b, err)
	b.Logf("%d events, %d timeline items", l.Events(), first.Total)
	mid := l.LastSeq() / 2
	end := l.LastSeq() + 1
	for _, bc := range []struct {
		name string
		q    archive.TimelineQuery
	}{
		{"first", archive.TimelineQuery{}},
		{"middle", archive.TimelineQuery{After: &mid}},
		{"around", archive.TimelineQuery{Around: &mid}},
		{"last", archive.TimelineQuery{Before: &end}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				p, err := s.Timeline(ctx, fr.SessionID, bc.q)
				if err != nil || len(p.Items) != archive.DefaultTimelineLimit {
					b.Fatalf("page: %d items, %v", len(p.Items), err)
				}
			}
		})
	}
}

// BenchmarkTimelineRealCorpus loads the first page of the real 87k-event log.
func BenchmarkTimelineRealCorpus(b *testing.B) {
	ctx := context.Background()
	s := archivetest.MustOpen(b)
	rep, err := s.Import(ctx, []string{archivetest.Corpus(b, archivetest.RealLog)}, archive.ImportOptions{})
	require.NoError(b, err)
	id := rep.Files[0].SessionID
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p, err := s.Timeline(ctx, id, archive.TimelineQuery{})
		if err != nil || len(p.Items) != archive.DefaultTimelineLimit {
			b.Fatalf("page: %d items, %v", len(p.Items), err)
		}
	}
}
