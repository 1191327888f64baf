package archive_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/archivetest"
	"github.com/logbook/logbook/archive/dsh"
	"github.com/logbook/logbook/archive/dshgen"
)

// importGenerated writes a generated log under root and imports it, asserting a clean
// verdict and a byte-identical export.
func importGenerated(t *testing.T, s *archive.Store, root string, l *dshgen.Log, compressed bool) archive.FileReport {
	t.Helper()
	path, err := l.WriteFile(root, compressed)
	require.NoError(t, err)
	fr := s.ImportFile(context.Background(), path, archive.ImportOptions{})
	require.Equal(t, dsh.VerdictOK, fr.Verdict, "%+v", fr.Error)
	assert.EqualValues(t, l.Events(), fr.LogicalEvents)
	assert.EqualValues(t, l.LastSeq(), fr.LastSeq)
	for _, w := range fr.Warnings {
		switch w.Kind {
		case dsh.KindSurface, dsh.KindCompaction, dsh.KindTitle, dsh.KindSchedule, dsh.KindIdentityMismatch:
			t.Errorf("unexpected warning on a spec-valid log: %s: %s", w.Kind, w.Message)
		}
	}
	var out bytes.Buffer
	require.NoError(t, s.ExportJSONL(context.Background(), fr.SessionID, &out))
	assert.True(t, bytes.Equal(l.JSONL(), out.Bytes()), "export is byte-identical to the generated JSONL")
	return fr
}

// TestImportGeneratedFamilies checks every derived view against the ground truth the
// generator recorded, for plain and zstd logs with every event family.
func TestImportGeneratedFamilies(t *testing.T) {
	ctx := context.Background()
	for _, compressed := range []bool{false, true} {
		name := "plain"
		if compressed {
			name = "zstd"
		}
		t.Run(name, func(t *testing.T) {
			s := archivetest.MustOpen(t)
			l := dshgen.Generate(dshgen.Options{Seed: 42, Turns: 14, Cwd: "/home/u/项目 ✨"})
			fr := importGenerated(t, s, t.TempDir(), l, compressed)
			facts := l.Facts()

			approvals, err := s.Approvals(ctx, archive.ItemFilter{SessionID: fr.SessionID})
			require.NoError(t, err)
			byID := map[string]archive.Approval{}
			for _, a := range approvals {
				byID[a.ID] = a
			}
			require.NotEmpty(t, facts.Approvals)
			outcomes := map[string]bool{}
			for _, want := range facts.Approvals {
				got, ok := byID[want.ID]
				require.True(t, ok, "approval %s archived", want.ID)
				outcomes[want.Outcome] = true
				if want.Outcome == dshgen.ApprovalPending {
					assert.Nil(t, got.Outcome, "approval %s is undecided", want.ID)
				} else if assert.NotNil(t, got.Outcome) {
					assert.Equal(t, want.Outcome, *got.Outcome)
				}
				assert.NotEmpty(t, got.Policy, "the policy in force is recorded")
			}
			assert.Len(t, outcomes, 5, "all four outcomes and an undecided request")

			comps, err := s.Compactions(ctx, archive.ItemFilter{SessionID: fr.SessionID})
			require.NoError(t, err)
			byComp := map[string]archive.Compaction{}
			for _, c := range comps {
				byComp[c.CompactionID] = c
				if c.Kind == "prune" {
					assert.NotNil(t, c.StartedAt, "a prune has its event's time")
					assert.NotNil(t, c.Turn, "a prune has its event's turn")
				}
			}
			msgs, err := s.Messages(ctx, fr.SessionID)
			require.NoError(t, err)
			bySeq := map[int64]archive.Message{}
			for _, m := range msgs {
				bySeq[m.Seq] = m
			}
			require.NotEmpty(t, facts.Compactions)
			for _, want := range facts.Compactions {
				got, ok := byComp[want.ID]
				require.True(t, ok, "compaction %s archived", want.ID)
				if want.Failed {
					assert.Equal(t, "failed", got.Status)
					assert.NotNil(t, got.Error)
					continue
				}
				assert.Equal(t, "ok", got.Status)
				assert.Equal(t, want.ShadowedSeqs, got.ShadowedSeqs)
				assert.NotEmpty(t, got.Summary)
				for _, seq := range want.ShadowedSeqs {
					m := bySeq[seq]
					assert.Equal(t, "shadowed", m.Surface, "message %d was replaced by compaction %s", seq, want.ID)
					if assert.NotNil(t, m.ShadowedBy) {
						assert.Equal(t, want.MessageSeq, *m.ShadowedBy)
					}
				}
			}
			for _, p := range facts.Prunes {
				m := bySeq[p.ShadowedSeq]
				assert.Equal(t, "shadowed", m.Surface, "tool result %d was pruned", p.ShadowedSeq)
			}

			// Schedules: fold state at creation time plus a year later.
			scheds, err := s.Schedules(ctx, archive.ItemFilter{SessionID: fr.SessionID}, time.Unix(0, 0))
			require.NoError(t, err)
			require.Len(t, scheds, len(facts.Schedules))
			kinds := map[string]bool{}
			for i, want := range facts.Schedules {
				got := scheds[indexOfSchedule(scheds, want.ID)]
				kinds[want.Kind] = true
				assert.Equal(t, want.Kind, got.Kind, "schedule %d", i)
				assert.Equal(t, want.Prompt, got.Prompt)
				if want.Active {
					assert.Equal(t, "active", got.Status)
					assert.Equal(t, "scheduled", got.State, "nothing is due at the epoch")
					assert.Equal(t, want.NextAt, dsh.FormatInstant(got.ScheduledAt))
				} else {
					assert.NotEqual(t, "active", got.Status)
				}
			}
			assert.Len(t, kinds, 3, "at, after and every")

			sess, err := s.Session(ctx, fr.SessionID)
			require.NoError(t, err)
			if n := len(facts.Titles); n > 0 {
				assert.Equal(t, facts.Titles[n-1].Title, sess.Title)
			}
			assert.EqualValues(t, len(facts.Turns), sess.Turns)
			assert.Equal(t, "/home/u/项目 ✨", sess.Project)
		})
	}
}

func indexOfSchedule(list []archive.ScheduleItem, id string) int {
	for i, s := range list {
		if s.ID == id {
			return i
		}
	}
	return -1
}

// TestImportGeneratedForkAndSubagent checks header relations and that a fork's
// inherited prefix does not contribute schedules.
func TestImportGeneratedForkAndSubagent(t *testing.T) {
	ctx := context.Background()
	s := archivetest.MustOpen(t)
	root := t.TempDir()
	parent := dshgen.Generate(dshgen.Options{Seed: 3, Turns: 10, Cwd: `G:\dsh客户端`})
	pfr := importGenerated(t, s, root, parent, true)

	fork, err := dshgen.Fork(parent, parent.LastSeq()/2, dshgen.Options{Seed: 4, Turns: 3})
	require.NoError(t, err)
	ffr := importGenerated(t, s, root, fork, true)
	sess, err := s.Session(ctx, ffr.SessionID)
	require.NoError(t, err)
	assert.Equal(t, pfr.SessionID, sess.ParentSession)
	require.NotNil(t, sess.SeedLength)
	assert.Equal(t, fork.SeedLength(), *sess.SeedLength)
	scheds, err := s.Schedules(ctx, archive.ItemFilter{SessionID: ffr.SessionID}, time.Now())
	require.NoError(t, err)
	assert.Len(t, scheds, len(fork.Facts().Schedules), "only the fork's own schedules")

	sub := dshgen.SubagentOf(parent, dshgen.Options{Seed: 5, Turns: 2})
	sfr := importGenerated(t, s, root, sub, false)
	ss, err := s.Session(ctx, sfr.SessionID)
	require.NoError(t, err)
	assert.Equal(t, "subagent", ss.Origin)
	assert.EqualValues(t, 1, ss.DelegationDepth)
	assert.Equal(t, pfr.SessionID, ss.ParentSession)
}

// TestImportGeneratedHugeLine imports a tool result larger than 2 MiB.
func TestImportGeneratedHugeLine(t *testing.T) {
	s := archivetest.MustOpen(t)
	l := dshgen.Generate(dshgen.Options{Seed: 8, Turns: 4, HugeLine: true})
	importGenerated(t, s, t.TempDir(), l, true)
}
