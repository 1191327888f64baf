package archive_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/archivetest"
	"github.com/logbook/logbook/archive/dsh"
)

// Tests of Store.Timeline: how events become items, and how pages are cut.

// importLog writes b under a fresh root and imports it, requiring a usable verdict.
func importLog(t testing.TB, s *archive.Store, b *logB, id string) archive.FileReport {
	t.Helper()
	path := sessionFile(t, t.TempDir(), id, false)
	writeFile(t, path, b.plain())
	fr := importOne(t, s, path)
	require.Equal(t, dsh.VerdictOK, fr.Verdict, "%+v", fr.Error)
	return fr
}

// allItems walks a session's whole timeline forward in pages of limit items, checking
// the flags and total of every page on the way.
func allItems(t testing.TB, s *archive.Store, id string, limit int) []archive.TimelineItem {
	t.Helper()
	ctx := context.Background()
	var out []archive.TimelineItem
	var after *int64
	var total int64 = -1
	for {
		p, err := s.Timeline(ctx, id, archive.TimelineQuery{After: after, Limit: limit})
		require.NoError(t, err)
		if total < 0 {
			total = p.Total
		}
		require.Equal(t, total, p.Total, "every page reports the same total")
		require.Equal(t, after != nil && len(out) > 0, p.HasBefore, "has_before after %d items", len(out))
		out = append(out, p.Items...)
		if !p.HasAfter {
			break
		}
		require.Len(t, p.Items, limit, "only a full page has more after it")
		last := p.Items[len(p.Items)-1].Seq
		after = &last
	}
	require.EqualValues(t, total, len(out), "the pages cover exactly the total")
	for i := 1; i < len(out); i++ {
		require.Less(t, out[i-1].Seq, out[i].Seq, "items in seq order")
	}
	return out
}

// backwardItems walks the timeline from its end with Before, returning it oldest first.
func backwardItems(t testing.TB, s *archive.Store, id string, limit int) []archive.TimelineItem {
	t.Helper()
	ctx := context.Background()
	before := int64(math.MaxInt64)
	var pages [][]archive.TimelineItem
	n := 0
	for {
		p, err := s.Timeline(ctx, id, archive.TimelineQuery{Before: &before, Limit: limit})
		require.NoError(t, err)
		require.Equal(t, n > 0, p.HasAfter, "has_after with %d newer items", n)
		pages = append(pages, p.Items)
		n += len(p.Items)
		if !p.HasBefore {
			break
		}
		require.Len(t, p.Items, limit)
		before = p.Items[0].Seq
	}
	var out []archive.TimelineItem
	for i := len(pages) - 1; i >= 0; i-- {
		out = append(out, pages[i]...)
	}
	return out
}

func bySeq(items []archive.TimelineItem) map[int64]archive.TimelineItem {
	m := make(map[int64]archive.TimelineItem, len(items))
	for _, it := range items {
		m[it.Seq] = it
	}
	return m
}

func seqsOf(items []archive.TimelineItem) []int64 {
	out := make([]int64, len(items))
	for i, it := range items {
		out[i] = it.Seq
	}
	return out
}

// conversation is a hand-built session with one of everything the timeline folds.
type conversation struct {
	b                                          *logB
	preset, sandbox, policy, model, plan       int64
	turn1, user1, todo, asst1, ask1, decided1  int64
	call1, result1, orphan, end1               int64
	cmd, start, summary, checkpoint, end, done int64
	turn2, call2, result2, unknown             int64
}

func newConversation() *conversation {
	c := &conversation{b: newLog("session-tl-1234", "")}
	b := c.b
	c.preset = b.ev("permission/preset", `{"preset":"workspace-write"}`, "")
	c.sandbox = b.ev("sandbox/mode", `{"mode":"workspace-write"}`, "")
	c.policy = b.ev("approval/policy", `{"policy":"ask"}`, "")
	c.model = b.ev("model/selection", `{"provider":"deepseek","model":"deepseek-chat","reasoningEffort":"high"}`, "")
	c.plan = b.ev("plan/mode", `{"active":true}`, "")
	c.turn1 = b.seq
	b.startTurn()
	c.user1 = b.user("hello")
	b.ev("request/context", `{"provider":"deepseek","model":"deepseek-chat"}`, "")
	c.todo = b.ev("todo/write", `{"todos":[{"content":"read","status":"completed"},{"content":"write","status":"in_progress"},{"content":"test","status":"pending"}]}`, "")
	c.asst1 = b.assistant("call-1", "h", "i", "!")
	c.ask1 = b.asked("ap-1", "call-1")
	c.decided1 = b.decided("ap-1", "allowed-once")
	c.call1 = b.toolCall("call-1")
	c.result1 = b.toolResult("call-1", c.call1, "out-1")
	c.orphan = b.toolResult("call-ghost", c.call1, "lost output")
	b.endTurn()
	c.end1 = b.seq - 1
	c.cmd = b.ev("command/run", `{"commandId":"cmd-1","name":"compact","source":{"kind":"user"}}`, "")
	c.start = b.ev("compaction/start", `{"compactionId":"c1","turn":null,"sourceCommandId":"cmd-1"}`, "")
	c.summary = b.ev("compaction/summary", fmt.Sprintf(`{"compactionId":"c1","summary":[{"type":"text","text":"they said hi"}],"shadowedRange":{"start":%d,"end":%d},"shadowedSeqs":[%d,%d],"shadowedTokenCount":42,"provider":"deepseek","model":"v4","sourceCommandId":"cmd-1"}`,
		c.user1, c.asst1, c.user1, c.asst1), "")
	c.checkpoint = b.ev("user/message", `{"id":"cp-1","role":"user","content":[{"type":"text","text":"summary: they said hi"}],"source":{"kind":"plugin","plugin":"compact","compactionId":"c1","sourceCommandId":"cmd-1"}}`,
		fmt.Sprintf(`,"surfaceOp":{"op":"replace","start":%d,"end":%d},"sourceEventSeqs":[%d,%d]`, c.user1, c.asst1, c.user1, c.asst1))
	c.end = b.ev("compaction/end", `{"compactionId":"c1","turn":null,"sourceCommandId":"cmd-1"}`, "")
	c.done = b.ev("command/done", fmt.Sprintf(`{"commandId":"cmd-1","kind":"success","sourceEventSeq":%d,"text":"Compacted 2 messages."}`, c.end), "")
	c.turn2 = b.seq
	b.fullTurn("again")
	c.call2, c.result2 = c.turn2+9, c.turn2+10 // turn, step, prompt, 3 chunks, answer, ask, decision, call, result
	c.unknown = b.ev("custom/thing", `{"foo":"bar","n":3}`, `,"ignorable":true`)
	return c
}

func TestTimelineConversation(t *testing.T) {
	ctx := context.Background()
	s := archivetest.MustOpen(t)
	c := newConversation()
	importLog(t, s, c.b, "session-tl-1234")

	items := allItems(t, s, "session-tl-1234", 0)
	got := bySeq(items)

	t.Run("item kinds in seq order, folded and skipped events left out", func(t *testing.T) {
		type want struct {
			seq  int64
			kind string
		}
		wants := []want{
			{c.preset, archive.ItemMarker}, {c.sandbox, archive.ItemMarker}, {c.policy, archive.ItemMarker},
			{c.model, archive.ItemMarker}, {c.plan, archive.ItemMarker},
			{c.turn1, archive.ItemTurn}, {c.user1, archive.ItemMessage}, {c.todo, archive.ItemMarker},
			{c.asst1, archive.ItemMessage}, {c.ask1, archive.ItemApproval}, {c.call1, archive.ItemTool},
			{c.orphan, archive.ItemMessage}, {c.end1, archive.ItemTurn},
			{c.cmd, archive.ItemMarker}, {c.start, archive.ItemCompaction}, {c.checkpoint, archive.ItemMessage},
			{c.done, archive.ItemMarker},
			{c.turn2, archive.ItemTurn},
		}
		for i, w := range wants {
			require.Greater(t, len(items), i)
			assert.Equal(t, w.seq, items[i].Seq, "item %d", i)
			assert.Equal(t, w.kind, items[i].Kind, "item %d (seq %d, %s)", i, items[i].Seq, items[i].Type)
		}
		for _, seq := range []int64{c.decided1, c.result1, c.summary, c.end, c.result2, c.turn1 + 1} {
			assert.NotContains(t, got, seq, "seq %d is folded into another item or skipped", seq)
		}
		assert.Equal(t, archive.ItemMarker, items[len(items)-1].Kind)
		assert.Equal(t, c.unknown, items[len(items)-1].Seq)
		for _, it := range items {
			n := 0
			for _, p := range []bool{it.Message != nil, it.Tool != nil, it.Approval != nil, it.Compaction != nil, it.Marker != nil} {
				if p {
					n++
				}
			}
			assert.Equal(t, 1, n, "exactly one payload on %d %s", it.Seq, it.Type)
		}
	})

	t.Run("tool call is paired with its result", func(t *testing.T) {
		it := got[c.call1]
		require.NotNil(t, it.Tool)
		assert.Equal(t, "tool/call", it.Type)
		assert.Equal(t, "call-1", it.Tool.CallID)
		assert.Equal(t, "shell", it.Tool.Name)
		assert.Equal(t, `{"cmd":"ls"}`, it.Tool.Arguments)
		require.NotNil(t, it.Tool.ResultSeq)
		assert.Equal(t, c.result1, *it.Tool.ResultSeq)
		require.NotNil(t, it.Tool.Output)
		assert.Equal(t, "out-1", *it.Tool.Output)
		assert.Equal(t, "current", it.Surface, "a tool item takes the surface of its result")
		require.NotNil(t, it.Turn)
		assert.EqualValues(t, 1, *it.Turn)
	})

	t.Run("orphan result is a tool_result message", func(t *testing.T) {
		it := got[c.orphan]
		require.NotNil(t, it.Message)
		assert.Equal(t, "tool/result", it.Type)
		assert.Equal(t, "tool_result", it.Message.Kind)
		assert.Equal(t, "lost output", it.Message.Text)
	})

	t.Run("approval carries its decision", func(t *testing.T) {
		it := got[c.ask1]
		require.NotNil(t, it.Approval)
		assert.Equal(t, "ap-1", it.Approval.ID)
		assert.Equal(t, "shell", it.Approval.ToolName)
		assert.Equal(t, "call-1", it.Approval.CallID)
		require.NotNil(t, it.Approval.Outcome)
		assert.Equal(t, "allowed-once", *it.Approval.Outcome)
		require.NotNil(t, it.Approval.DecidedSeq)
		assert.Equal(t, c.decided1, *it.Approval.DecidedSeq)
		assert.Equal(t, "ask", it.Approval.Policy)
	})

	t.Run("compaction item at its start; replaced messages keep their place, shadowed", func(t *testing.T) {
		it := got[c.start]
		require.NotNil(t, it.Compaction)
		cp := it.Compaction
		assert.Equal(t, "c1", cp.CompactionID)
		assert.Equal(t, "ok", cp.Status)
		assert.Equal(t, "they said hi", cp.Summary)
		assert.Equal(t, []int64{c.user1, c.asst1}, cp.ShadowedSeqs)
		require.NotNil(t, cp.SummarySeq)
		assert.Equal(t, c.summary, *cp.SummarySeq)
		require.NotNil(t, cp.EndSeq)
		assert.Equal(t, c.end, *cp.EndSeq)
		require.NotNil(t, cp.ReplaceSeq)
		assert.Equal(t, c.checkpoint, *cp.ReplaceSeq)
		assert.Nil(t, it.Turn, "a manual compaction belongs to no turn")

		for _, seq := range []int64{c.user1, c.asst1} {
			m := got[seq]
			require.NotNil(t, m.Message, "seq %d", seq)
			assert.Equal(t, "shadowed", m.Surface)
			assert.Equal(t, "shadowed", m.Message.Surface)
			require.NotNil(t, m.ShadowedBy)
			assert.Equal(t, c.checkpoint, *m.ShadowedBy)
			require.NotNil(t, m.Message.ShadowedBy)
			assert.Equal(t, c.checkpoint, *m.Message.ShadowedBy)
		}
		assert.Equal(t, "hello", got[c.user1].Message.Text)
		assert.Equal(t, "human", got[c.user1].Message.Kind)
		assert.Equal(t, "hi!", got[c.asst1].Message.Text)
		assert.Equal(t, "v4", got[c.asst1].Message.Model)
		cp2 := got[c.checkpoint]
		assert.Equal(t, "current", cp2.Surface)
		assert.Equal(t, "compact", cp2.Message.Plugin)
		assert.Equal(t, "injected", cp2.Message.Kind)
	})

	t.Run("markers", func(t *testing.T) {
		labels := map[int64]string{
			c.preset:  "permissions: workspace-write",
			c.sandbox: "sandbox: workspace-write",
			c.policy:  "approval policy: ask",
			c.model:   "model: deepseek/deepseek-chat",
			c.plan:    "plan mode on",
			c.todo:    "todo list (3 items)",
			c.cmd:     "command: /compact",
			c.done:    "command done: Compacted 2 messages.",
			c.turn1:   "Turn 1",
			c.end1:    "Turn 1",
			c.turn2:   "Turn 2",
			c.unknown: "custom/thing",
		}
		for seq, want := range labels {
			it := got[seq]
			require.NotNil(t, it.Marker, "seq %d", seq)
			assert.Equal(t, want, it.Marker.Label, "seq %d %s", seq, it.Type)
			assert.Equal(t, "log-only", it.Surface)
		}
		todo := got[c.todo].Marker
		assert.Equal(t, []archive.TodoItem{{Content: "read", Status: "completed"}, {Content: "write", Status: "in_progress"},
			{Content: "test", Status: "pending"}}, todo.Todos)
		assert.Contains(t, got[c.model].Marker.Fields, archive.MarkerField{Name: "reasoning effort", Value: "high"})
		assert.Equal(t, "completed", got[c.end1].Marker.Status)
		assert.Empty(t, got[c.turn1].Marker.Status)
		assert.Equal(t, "success", got[c.done].Marker.Status)
		assert.Equal(t, []archive.MarkerField{{Name: "foo", Value: "bar"}, {Name: "n", Value: "3"}}, got[c.unknown].Marker.Fields)
	})

	t.Run("Timeline agrees with Messages and ToolCalls", func(t *testing.T) {
		msgs, err := s.Messages(ctx, "session-tl-1234")
		require.NoError(t, err)
		for _, m := range msgs {
			if it, ok := got[m.Seq]; ok {
				require.NotNil(t, it.Message)
				assert.Equal(t, m, *it.Message, "message %d", m.Seq)
			}
		}
		calls, err := s.ToolCalls(ctx, "session-tl-1234")
		require.NoError(t, err)
		for _, call := range calls {
			if it, ok := got[call.CallSeq]; ok && it.Tool != nil {
				assert.Equal(t, call, *it.Tool, "call %s", call.CallID)
			}
		}
	})
}

func TestTimelinePaging(t *testing.T) {
	ctx := context.Background()
	s := archivetest.MustOpen(t)
	c := newConversation()
	for range 6 {
		c.b.fullTurn("more")
	}
	importLog(t, s, c.b, "session-tl-1234")
	all := allItems(t, s, "session-tl-1234", 0)
	require.Greater(t, len(all), 40)
	total := int64(len(all))

	page := func(q archive.TimelineQuery) archive.TimelinePage {
		t.Helper()
		p, err := s.Timeline(ctx, "session-tl", q) // a prefix of the id
		require.NoError(t, err)
		assert.Equal(t, "session-tl-1234", p.SessionID)
		assert.Equal(t, total, p.Total)
		return p
	}
	ptr := func(n int64) *int64 { return &n }

	t.Run("walking forward and backward in any page size gives the same items", func(t *testing.T) {
		for _, limit := range []int{1, 2, 7, 40, 1000} {
			assert.Equal(t, seqsOf(all), seqsOf(allItems(t, s, "session-tl-1234", limit)), "forward by %d", limit)
			assert.Equal(t, seqsOf(all), seqsOf(backwardItems(t, s, "session-tl-1234", limit)), "backward by %d", limit)
		}
	})

	t.Run("first page", func(t *testing.T) {
		p := page(archive.TimelineQuery{Limit: 10})
		assert.Equal(t, seqsOf(all[:10]), seqsOf(p.Items))
		assert.False(t, p.HasBefore)
		assert.True(t, p.HasAfter)
	})

	t.Run("after is exclusive", func(t *testing.T) {
		p := page(archive.TimelineQuery{After: &all[4].Seq, Limit: 3})
		assert.Equal(t, seqsOf(all[5:8]), seqsOf(p.Items))
		assert.True(t, p.HasBefore)
		assert.True(t, p.HasAfter)
	})

	t.Run("after a folded or skipped seq starts at the next item", func(t *testing.T) {
		p := page(archive.TimelineQuery{After: &c.result1, Limit: 1})
		require.Len(t, p.Items, 1)
		assert.Equal(t, c.orphan, p.Items[0].Seq)
		assert.True(t, p.HasBefore)
	})

	t.Run("before is exclusive and returns the newest items before it, oldest first", func(t *testing.T) {
		p := page(archive.TimelineQuery{Before: &all[10].Seq, Limit: 4})
		assert.Equal(t, seqsOf(all[6:10]), seqsOf(p.Items))
		assert.True(t, p.HasBefore)
		assert.True(t, p.HasAfter)
		p = page(archive.TimelineQuery{Before: &all[3].Seq, Limit: 10})
		assert.Equal(t, seqsOf(all[:3]), seqsOf(p.Items))
		assert.False(t, p.HasBefore)
		assert.True(t, p.HasAfter)
	})

	t.Run("last page", func(t *testing.T) {
		p := page(archive.TimelineQuery{After: &all[len(all)-4].Seq, Limit: 3})
		assert.Equal(t, seqsOf(all[len(all)-3:]), seqsOf(p.Items))
		assert.True(t, p.HasBefore)
		assert.False(t, p.HasAfter)
		p = page(archive.TimelineQuery{After: &all[len(all)-1].Seq})
		assert.Empty(t, p.Items)
		assert.NotNil(t, p.Items)
		assert.True(t, p.HasBefore)
		assert.False(t, p.HasAfter)
	})

	t.Run("after and before together bound the page", func(t *testing.T) {
		p := page(archive.TimelineQuery{After: &all[2].Seq, Before: &all[6].Seq})
		assert.Equal(t, seqsOf(all[3:6]), seqsOf(p.Items))
		assert.True(t, p.HasBefore)
		assert.True(t, p.HasAfter)
	})

	t.Run("around", func(t *testing.T) {
		idx := map[int64]int{}
		for i, it := range all {
			idx[it.Seq] = i
		}
		for _, tc := range []struct {
			name   string
			target int64
			holder int64
		}{
			{"an item is the centre", c.checkpoint, c.checkpoint},
			{"a tool result centres on its call", c.result1, c.call1},
			{"a decision centres on its request", c.decided1, c.ask1},
			{"a compaction summary centres on the compaction", c.summary, c.start},
			{"a compaction end centres on the compaction", c.end, c.start},
			{"a step boundary centres on the next item", c.turn1 + 1, c.user1},
			{"a stream chunk centres on its message", c.asst1 - 1, c.asst1},
			{"a seq past the end centres on the last item", 1 << 40, all[len(all)-1].Seq},
		} {
			t.Run(tc.name, func(t *testing.T) {
				p := page(archive.TimelineQuery{Around: ptr(tc.target), Limit: 9})
				i := idx[tc.holder]
				lo := max(0, min(i-4, len(all)-9))
				assert.Equal(t, seqsOf(all[lo:lo+9]), seqsOf(p.Items))
				assert.Equal(t, lo > 0, p.HasBefore)
				assert.Equal(t, lo+9 < len(all), p.HasAfter)
				assert.Contains(t, seqsOf(p.Items), tc.holder)
			})
		}
		t.Run("near the start the page fills from the beginning", func(t *testing.T) {
			p := page(archive.TimelineQuery{Around: ptr(c.preset), Limit: 9})
			assert.Equal(t, seqsOf(all[:9]), seqsOf(p.Items))
			assert.False(t, p.HasBefore)
			assert.True(t, p.HasAfter)
		})
		t.Run("every item, any limit: a contiguous page holding it, with true flags", func(t *testing.T) {
			for _, limit := range []int{1, 2, 5, 8} {
				for i, it := range all {
					p := page(archive.TimelineQuery{Around: &it.Seq, Limit: limit})
					require.Len(t, p.Items, limit)
					lo := idx[p.Items[0].Seq]
					require.Equal(t, seqsOf(all[lo:lo+limit]), seqsOf(p.Items), "around item %d by %d", i, limit)
					assert.Contains(t, seqsOf(p.Items), it.Seq)
					assert.Equal(t, lo > 0, p.HasBefore)
					assert.Equal(t, lo+limit < len(all), p.HasAfter)
					assert.Equal(t, max(0, min(i-(limit-1)/2, len(all)-limit)), lo, "the target in the middle unless near an end")
				}
			}
		})
		t.Run("an even limit keeps the target in the middle", func(t *testing.T) {
			p := page(archive.TimelineQuery{Around: &all[20].Seq, Limit: 10})
			assert.Equal(t, seqsOf(all[16:26]), seqsOf(p.Items))
		})
	})

	t.Run("limit defaults and caps", func(t *testing.T) {
		big := newLog("session-big", "")
		big.startTurn()
		for i := range archive.MaxTimelineLimit + 10 {
			big.ev("plan/mode", fmt.Sprintf(`{"active":%v}`, i%2 == 0), "")
		}
		big.endTurn()
		importLog(t, s, big, "session-big")
		p, err := s.Timeline(ctx, "session-big", archive.TimelineQuery{})
		require.NoError(t, err)
		assert.Len(t, p.Items, archive.DefaultTimelineLimit)
		assert.EqualValues(t, archive.MaxTimelineLimit+12, p.Total)
		p, err = s.Timeline(ctx, "session-big", archive.TimelineQuery{Limit: 1 << 20})
		require.NoError(t, err)
		assert.Len(t, p.Items, archive.MaxTimelineLimit)
		assert.True(t, p.HasAfter)
		assert.Equal(t, "plan mode on", p.Items[1].Marker.Label)
		assert.Equal(t, "plan mode off", p.Items[2].Marker.Label)
	})
}

func TestTimelineSessionIDs(t *testing.T) {
	ctx := context.Background()
	s := archivetest.MustOpen(t)
	importLog(t, s, twoTurns("session-aa1"), "session-aa1")
	importLog(t, s, twoTurns("session-aa2"), "session-aa2")

	p, err := s.Timeline(ctx, "session-aa2", archive.TimelineQuery{})
	require.NoError(t, err)
	assert.Equal(t, "session-aa2", p.SessionID)
	assert.NotEmpty(t, p.Items)
	for _, it := range p.Items {
		if it.Message != nil {
			assert.Equal(t, "session-aa2", it.Message.SessionID)
		}
	}

	p, err = s.Timeline(ctx, "session-aa1", archive.TimelineQuery{})
	require.NoError(t, err, "an exact id that is also a prefix of nothing else")
	assert.Equal(t, "session-aa1", p.SessionID)

	for _, id := range []string{"session-aa", "session-zz", "", "nope"} {
		t.Run(fmt.Sprintf("%q is not found", id), func(t *testing.T) {
			_, err := s.Timeline(ctx, id, archive.TimelineQuery{})
			assert.ErrorIs(t, err, archive.ErrNotFound)
			_, err = s.Relations(ctx, id)
			assert.ErrorIs(t, err, archive.ErrNotFound)
			_, err = s.SessionFiles(ctx, id)
			assert.ErrorIs(t, err, archive.ErrNotFound)
		})
	}
}

// TestTimelineOddLogs builds logs the projection only half understands (reused ids,
// answers without questions, payloads of the wrong shape): every page still loads,
// the total still matches the pages, and nothing is lost.
func TestTimelineOddLogs(t *testing.T) {
	s := archivetest.MustOpen(t)
	b := newLog("session-odd", "")
	b.startTurn()
	u := b.user("go")
	a := b.assistant("dup", "o", "k", ".")
	firstCall := b.toolCall("dup")
	secondCall := b.toolCall("dup") // the same call id twice: the later call owns the row
	result := b.toolResult("dup", secondCall, "second")
	lonelyDecision := b.decided("ap-nobody", "rejected")
	firstAsk := b.asked("ap-twice", "")
	secondAsk := b.asked("ap-twice", "")
	decision := b.decided("ap-twice", "cancelled")
	odd1 := b.ev("todo/write", `{"todos":"not a list"}`, "")
	odd2 := b.ev("sandbox/mode", `[1,2]`, "")
	odd3 := b.ev("turn/end", `{"turn":1,"reason":"legacy-stop"}`, "")
	b.turn++
	b.ev("turn/start", fmt.Sprintf(`{"turn":%d}`, b.turn), "")
	b.step = 1
	b.ev("step/start", fmt.Sprintf(`{"turn":%d,"step":1}`, b.turn), "")
	staleStart := b.ev("compaction/start", `{"compactionId":"cx","turn":2}`, "")
	b.ev("compaction/end", `{"compactionId":"cx","turn":2,"error":"gave up"}`, "")
	reStart := b.ev("compaction/start", `{"compactionId":"cx","turn":2}`, "")
	reEnd := b.ev("compaction/end", `{"compactionId":"cx","turn":2}`, "")
	b.endTurn()
	fr := importLog(t, s, b, "session-odd")
	assert.NotEmpty(t, fr.Warnings, "the checker reports what is odd")

	items := allItems(t, s, "session-odd", 3)
	got := bySeq(items)
	_ = u
	_ = a

	t.Run("a reused call id: each call is an item, the result goes to the call that owns it", func(t *testing.T) {
		first, second := got[firstCall], got[secondCall]
		require.NotNil(t, first.Tool)
		require.NotNil(t, second.Tool)
		assert.Equal(t, "shell", first.Tool.Name)
		assert.Nil(t, first.Tool.Output)
		require.NotNil(t, second.Tool.Output)
		assert.Equal(t, "second", *second.Tool.Output)
		assert.NotContains(t, got, result)
	})
	t.Run("a decision without a request is an approval", func(t *testing.T) {
		it := got[lonelyDecision]
		require.NotNil(t, it.Approval)
		assert.Nil(t, it.Approval.AskedSeq)
		require.NotNil(t, it.Approval.Outcome)
		assert.Equal(t, "rejected", *it.Approval.Outcome)
	})
	t.Run("a reused approval id: the later request gets the decision", func(t *testing.T) {
		first, second := got[firstAsk], got[secondAsk]
		require.NotNil(t, first.Approval)
		require.NotNil(t, second.Approval)
		assert.Nil(t, first.Approval.Outcome)
		assert.Equal(t, "ap-twice", first.Approval.ID)
		require.NotNil(t, second.Approval.Outcome)
		assert.Equal(t, "cancelled", *second.Approval.Outcome)
		assert.NotContains(t, got, decision)
	})
	t.Run("odd payloads get generic markers", func(t *testing.T) {
		assert.Equal(t, "todo/write", got[odd1].Marker.Label)
		assert.Equal(t, "sandbox/mode", got[odd2].Marker.Label)
		assert.Equal(t, "legacy-stop", got[odd3].Marker.Status)
		assert.Equal(t, "Turn 1", got[odd3].Marker.Label)
	})
	t.Run("a reused compaction id: the stale bracket shows as markers", func(t *testing.T) {
		it := got[reStart]
		require.NotNil(t, it.Compaction)
		assert.Equal(t, "ok", it.Compaction.Status)
		assert.NotContains(t, got, reEnd)
		stale := got[staleStart]
		require.NotNil(t, stale.Marker)
		assert.Equal(t, "compaction start", stale.Marker.Label)
		end := got[staleStart+1]
		require.NotNil(t, end.Marker)
		assert.Equal(t, "failed", end.Marker.Status)
		assert.Equal(t, "gave up", end.Marker.Detail)
	})
	assertCovers(t, s, "session-odd", items)
}
