package archive_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/archivetest"
	"github.com/logbook/logbook/archive/dshgen"
)

func TestSessionState(t *testing.T) {
	ctx := context.Background()
	s := archivetest.MustOpen(t)
	l := dshgen.Generate(dshgen.Options{Seed: 43, Turns: 14, Cwd: "/home/u/state"})
	fr := importGenerated(t, s, t.TempDir(), l, true)
	id := fr.SessionID
	items := allItems(t, s, id, 500)
	require.NotEmpty(t, items)

	stateTypes := map[string]bool{"todo/write": true, "plan/mode": true, "goal/change": true, "permission/preset": true,
		"sandbox/mode": true, "approval/policy": true, "model/selection": true, "agent-preset/selected": true, "session/title": true}
	// The oracle: walk the timeline and keep the latest marker of each state type.
	want := map[string]archive.TimelineItem{}
	seen := map[string]bool{}
	checked := 0
	for i, it := range items {
		if it.Kind == archive.ItemMarker && stateTypes[it.Type] {
			want[it.Type] = it
			seen[it.Type] = true
		}
		if i%7 != 0 && i != len(items)-1 {
			continue
		}
		st, err := s.SessionState(ctx, id, it.Seq)
		require.NoError(t, err)
		require.Len(t, st.Entries, len(want), "state at seq %d", it.Seq)
		for _, e := range st.Entries {
			w, ok := want[e.Type]
			require.True(t, ok, "%s at seq %d", e.Type, it.Seq)
			assert.Equal(t, w.Seq, e.Seq, "%s at seq %d", e.Type, it.Seq)
			assert.Equal(t, w.Marker.Label, e.Marker.Label)
			assert.Equal(t, w.Marker.Todos, e.Marker.Todos)
		}
		checked++
	}
	assert.Greater(t, checked, 5)
	for _, typ := range []string{"todo/write", "plan/mode", "sandbox/mode", "model/selection", "approval/policy"} {
		assert.True(t, seen[typ], "the generated session sets %s", typ)
	}

	// At the end, the schedules are the archive's own fold.
	end, err := s.SessionState(ctx, id, -1)
	require.NoError(t, err)
	folded, err := s.Schedules(ctx, archive.ItemFilter{SessionID: id}, items[len(items)-1].Time)
	require.NoError(t, err)
	require.NotEmpty(t, folded, "the generated session schedules prompts")
	wantStatus, gotStatus := map[string]string{}, map[string]string{}
	for _, f := range folded {
		wantStatus[f.ID] = f.Status
	}
	for _, sc := range end.Schedules {
		gotStatus[sc.ID] = sc.Status
	}
	assert.Equal(t, wantStatus, gotStatus)
	// Before the first event nothing is set.
	first, err := s.SessionState(ctx, id, 0)
	require.NoError(t, err)
	assert.Empty(t, first.Schedules)

	_, err = s.SessionState(ctx, "session-nope", 3)
	assert.ErrorIs(t, err, archive.ErrNotFound)
}
