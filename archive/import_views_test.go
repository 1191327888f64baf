package archive_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/archivetest"
	"github.com/logbook/logbook/archive/dsh"
)

// Tests of the derived views an import fills: forks, batching, approvals, compactions, schedules.

func TestImportForkSchedules(t *testing.T) {
	ctx := context.Background()
	s := archivetest.MustOpen(t)
	// Inherited prefix: one turn of the parent with a reminder in it.
	parent := newLog("session-p", "")
	parent.startTurn()
	parent.user("remind me")
	parent.scheduleAt("schedule-1", "2030-01-01T00:00:00.000Z")
	parent.assistant("", "o", "k", "!")
	parent.endTurn()
	seed := parent.seq

	fork := newLog("session-f", fmt.Sprintf(`,"parentSession":"session-p","seedLength":%d`, seed))
	fork.lines = append(fork.lines, parent.lines...)
	fork.seq, fork.now, fork.turn = parent.seq, parent.now, parent.turn
	fork.ev("session/end-seed", `{}`, "")
	fork.startTurn()
	fork.user("another")
	fork.scheduleAt("schedule-2", "2030-06-01T00:00:00.000Z")
	fork.assistant("", "s", "u", "re")
	fork.endTurn()

	path := sessionFile(t, t.TempDir(), "session-f", false)
	writeFile(t, path, fork.plain())
	fr := importOne(t, s, path)
	require.Equal(t, dsh.VerdictOK, fr.Verdict, "%+v", fr.Error)

	sess, err := s.Session(ctx, "session-f")
	require.NoError(t, err)
	require.NotNil(t, sess.SeedLength)
	assert.Equal(t, seed, *sess.SeedLength)
	assert.Equal(t, "session-p", sess.ParentSession)

	items, err := s.Schedules(ctx, archive.ItemFilter{SessionID: "session-f"}, time.UnixMilli(testCreated))
	require.NoError(t, err)
	require.Len(t, items, 1, "only the fork's own schedule; the inherited one belongs to the parent")
	assert.Equal(t, "schedule-2", items[0].ID)
	assert.Greater(t, items[0].CreatedSeq, seed)
}

func TestImportBatching(t *testing.T) {
	b := twoTurns("session-x")
	b.ev("approval/policy", `{"policy":"ask"}`, "")
	b.scheduleAt("schedule-1", "2030-01-01T00:00:00.000Z")
	b.fullTurn("third") // 24 + 11 = 35 lines
	b.fullTurn("fourth")

	type snapshot struct {
		report   archive.FileReport
		export   string
		session  archive.Session
		messages []archive.Message
		calls    []archive.ToolCall
		appr     []archive.Approval
		sched    []archive.ScheduleItem
	}
	take := func(t *testing.T, compressed bool, batch int) snapshot {
		ctx := context.Background()
		s := archivetest.MustOpen(t)
		path := sessionFile(t, t.TempDir(), "session-x", compressed)
		if compressed {
			writeFile(t, path, b.zstd(t, 3))
		} else {
			writeFile(t, path, b.plain())
		}
		rep := importPaths(t, s, archive.ImportOptions{BatchRecords: batch}, path)
		require.Len(t, rep.Files, 1)
		var sn snapshot
		sn.report = rep.Files[0]
		sn.report.Path = ""
		sn.export = string(exportOf(t, s, "session-x"))
		var err error
		sn.session, err = s.Session(ctx, "session-x")
		require.NoError(t, err)
		sn.session.Path = ""
		sn.messages, err = s.Messages(ctx, "session-x")
		require.NoError(t, err)
		sn.calls, err = s.ToolCalls(ctx, "session-x")
		require.NoError(t, err)
		sn.appr, err = s.Approvals(ctx, archive.ItemFilter{})
		require.NoError(t, err)
		sn.sched, err = s.Schedules(ctx, archive.ItemFilter{}, time.UnixMilli(testCreated))
		require.NoError(t, err)
		return sn
	}
	for _, tc := range []struct {
		name       string
		compressed bool
		batch      int
	}{
		{"plain in batches of 2 matches the default", false, 2},
		{"plain in batches of 1 matches the default", false, 1},
		{"plain in batches of 7 matches the default", false, 7},
		{"zstd in batches of 2 matches the default", true, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := take(t, tc.compressed, 0)
			require.Equal(t, dsh.VerdictOK, want.report.Verdict)
			require.EqualValues(t, len(b.lines), want.report.Records)
			got := take(t, tc.compressed, tc.batch)
			assert.Equal(t, want, got)
		})
	}
}

func TestImportApprovals(t *testing.T) {
	ctx := context.Background()
	s := archivetest.MustOpen(t)
	b := newLog("session-x", "")
	b.ev("approval/policy", `{"policy":"ask"}`, "")
	b.ev("sandbox/mode", `{"mode":"workspace-write"}`, "")
	b.startTurn()
	b.user("do things")
	b.assistant("", "o", "k", ".")
	outcomes := []string{"allowed-once", "rejected", "cancelled", "unavailable"}
	for i, o := range outcomes {
		b.asked(fmt.Sprintf("ap-%d", i), "")
		b.decided(fmt.Sprintf("ap-%d", i), o)
	}
	undecided := b.asked("ap-open", "")
	b.endTurn()

	path := sessionFile(t, t.TempDir(), "session-x", false)
	writeFile(t, path, b.plain())
	fr := importOne(t, s, path)
	require.Equal(t, dsh.VerdictOK, fr.Verdict, "%+v", fr.Error)
	assert.Contains(t, warningKinds(fr), dsh.KindUnpairedApproval, "the undecided approval is reported")

	list, err := s.Approvals(ctx, archive.ItemFilter{SessionID: "session-x"})
	require.NoError(t, err)
	require.Len(t, list, 5)
	byID := map[string]archive.Approval{}
	for _, a := range list {
		byID[a.ID] = a
	}
	for i, o := range outcomes {
		t.Run("decided "+o, func(t *testing.T) {
			a := byID[fmt.Sprintf("ap-%d", i)]
			require.NotNil(t, a.Outcome)
			assert.Equal(t, o, *a.Outcome)
			assert.Equal(t, "shell", a.ToolName)
			assert.Equal(t, "writes files", a.Reason)
			assert.Equal(t, "ask", a.Policy)
			assert.Equal(t, "workspace-write", a.SandboxMode)
			require.NotNil(t, a.Turn)
			assert.EqualValues(t, 1, *a.Turn)
			require.NotNil(t, a.AskedSeq)
			require.NotNil(t, a.DecidedSeq)
			assert.Equal(t, *a.AskedSeq+1, *a.DecidedSeq)
		})
	}
	t.Run("undecided has no outcome", func(t *testing.T) {
		a := byID["ap-open"]
		assert.Nil(t, a.Outcome)
		assert.Nil(t, a.DecidedSeq)
		require.NotNil(t, a.AskedSeq)
		assert.Equal(t, undecided, *a.AskedSeq)
		assert.Equal(t, "ask", a.Policy)
	})
	sess, err := s.Session(ctx, "session-x")
	require.NoError(t, err)
	assert.Equal(t, "ask", sess.Policy)
	assert.Equal(t, "workspace-write", sess.SandboxMode)
}

func TestImportCompactions(t *testing.T) {
	ctx := context.Background()
	s := archivetest.MustOpen(t)
	b := newLog("session-x", "")
	b.startTurn()
	u := b.user("hello")
	a := b.assistant("", "h", "i", "!")
	b.endTurn()
	b.ev("compaction/start", `{"compactionId":"c1","turn":null}`, "")
	b.ev("compaction/summary", fmt.Sprintf(`{"compactionId":"c1","summary":[{"type":"text","text":"they said hi"}],"shadowedRange":{"start":%d,"end":%d},"shadowedSeqs":[%d,%d],"shadowedTokenCount":42,"provider":"deepseek","model":"v4"}`, u, a, u, a), "")
	checkpoint := b.ev("user/message", `{"id":"cp-1","role":"user","content":[{"type":"text","text":"summary: they said hi"}],"source":{"kind":"plugin","plugin":"compact","compactionId":"c1"}}`,
		fmt.Sprintf(`,"surfaceOp":{"op":"replace","start":%d,"end":%d},"sourceEventSeqs":[%d,%d]`, u, a, u, a))
	b.ev("compaction/end", `{"compactionId":"c1","turn":null}`, "")
	b.ev("compaction/start", `{"compactionId":"c2","turn":null}`, "")
	b.ev("compaction/end", `{"compactionId":"c2","turn":null,"error":{"message":"provider failed","code":"PROVIDER_ERROR"}}`, "")

	path := sessionFile(t, t.TempDir(), "session-x", false)
	writeFile(t, path, b.plain())
	fr := importOne(t, s, path)
	require.Equal(t, dsh.VerdictOK, fr.Verdict, "%+v", fr.Error)
	assert.Empty(t, fr.Warnings)

	msgs, err := s.Messages(ctx, "session-x")
	require.NoError(t, err)
	require.Len(t, msgs, 3)
	for _, m := range msgs[:2] {
		t.Run(fmt.Sprintf("message %d is shadowed by the checkpoint", m.Seq), func(t *testing.T) {
			assert.Equal(t, "shadowed", m.Surface)
			require.NotNil(t, m.ShadowedBy)
			assert.Equal(t, checkpoint, *m.ShadowedBy)
		})
	}
	t.Run("checkpoint is current", func(t *testing.T) {
		m := msgs[2]
		assert.Equal(t, checkpoint, m.Seq)
		assert.Equal(t, "current", m.Surface)
		assert.Nil(t, m.ShadowedBy)
		assert.Equal(t, "injected", m.Kind)
		assert.Equal(t, "compact", m.Plugin)
	})

	list, err := s.Compactions(ctx, archive.ItemFilter{SessionID: "session-x"})
	require.NoError(t, err)
	require.Len(t, list, 2)
	t.Run("successful compaction is ok", func(t *testing.T) {
		c := list[0]
		assert.Equal(t, "c1", c.CompactionID)
		assert.Equal(t, "ok", c.Status)
		assert.Equal(t, "they said hi", c.Summary)
		assert.Equal(t, []int64{u, a}, c.ShadowedSeqs)
		require.NotNil(t, c.ReplaceSeq)
		assert.Equal(t, checkpoint, *c.ReplaceSeq)
		require.NotNil(t, c.ShadowedTokens)
		assert.EqualValues(t, 42, *c.ShadowedTokens)
		assert.Nil(t, c.Error)
		assert.Nil(t, c.Turn)
	})
	t.Run("failed compaction is failed with its error", func(t *testing.T) {
		c := list[1]
		assert.Equal(t, "c2", c.CompactionID)
		assert.Equal(t, "failed", c.Status)
		require.NotNil(t, c.Error)
		assert.Contains(t, *c.Error, "provider failed")
		assert.Nil(t, c.SummarySeq)
	})

	t.Run("shadowing survives an append", func(t *testing.T) {
		more := *b
		more.lines = append([]string{}, b.lines...)
		more.fullTurn("next")
		appendFile(t, path, more.plain()[len(b.plain()):])
		fr := importOne(t, s, path)
		require.Equal(t, "appended", fr.Action)
		require.Equal(t, dsh.VerdictOK, fr.Verdict, "%+v", fr.Error)
		msgs, err := s.Messages(ctx, "session-x")
		require.NoError(t, err)
		require.Len(t, msgs, 6)
		assert.Equal(t, "shadowed", msgs[0].Surface)
		assert.Equal(t, "current", msgs[2].Surface)
		assert.Equal(t, "current", msgs[5].Surface)
	})
}

func TestImportSchedulesAtNow(t *testing.T) {
	ctx := context.Background()
	s := archivetest.MustOpen(t)
	b := newLog("session-x", "")
	b.startTurn()
	b.user("remind me")
	b.scheduleAt("schedule-1", "2027-01-01T00:00:00.000Z")
	b.ev("schedule/change", `{"version":1,"operation":"create","schedule":{"id":"schedule-2","kind":"every","prompt":"tick","everySeconds":3600,"scheduledAt":"2028-01-01T00:00:00.000Z"}}`, "")
	b.scheduleAt("schedule-3", "2027-06-01T00:00:00.000Z")
	b.ev("schedule/change", `{"version":1,"operation":"delete","id":"schedule-3"}`, "")
	b.assistant("", "o", "k", ".")
	b.endTurn()
	path := sessionFile(t, t.TempDir(), "session-x", false)
	writeFile(t, path, b.plain())
	fr := importOne(t, s, path)
	require.Equal(t, dsh.VerdictOK, fr.Verdict, "%+v", fr.Error)
	assert.Empty(t, fr.Warnings)

	for _, tc := range []struct {
		name string
		now  string
		want map[string]string
	}{
		{"before every target all are scheduled", "2026-12-01T00:00:00.000Z",
			map[string]string{"schedule-1": "scheduled", "schedule-2": "scheduled", "schedule-3": "deleted"}},
		{"between targets the past one is overdue", "2027-06-01T00:00:00.000Z",
			map[string]string{"schedule-1": "overdue", "schedule-2": "scheduled", "schedule-3": "deleted"}},
		{"after every target all are overdue", "2029-01-01T00:00:00.000Z",
			map[string]string{"schedule-1": "overdue", "schedule-2": "overdue", "schedule-3": "deleted"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now, err := time.Parse(time.RFC3339, tc.now)
			require.NoError(t, err)
			items, err := s.Schedules(ctx, archive.ItemFilter{SessionID: "session-x"}, now)
			require.NoError(t, err)
			got := map[string]string{}
			for _, it := range items {
				got[it.ID] = it.State
			}
			assert.Equal(t, tc.want, got)
			for _, it := range items {
				if it.ID == "schedule-2" {
					require.NotNil(t, it.EverySeconds)
					assert.EqualValues(t, 3600, *it.EverySeconds)
					require.NotNil(t, it.NextFire)
					assert.Equal(t, "2028-01-01T00:00:00Z", it.NextFire.Format(time.RFC3339))
				}
				if it.ID == "schedule-3" {
					assert.Equal(t, "deleted", it.Status)
					assert.Nil(t, it.NextFire)
				}
			}
		})
	}
}
