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

func TestRelations(t *testing.T) {
	ctx := context.Background()
	s := archivetest.MustOpen(t)
	root := t.TempDir()
	parent := dshgen.Generate(dshgen.Options{Seed: 11, Turns: 3, Cwd: "/home/u/proj"})
	fork, err := dshgen.Fork(parent, parent.Facts().Turns[0].EndSeq+1, dshgen.Options{Seed: 12})
	require.NoError(t, err)
	sub := dshgen.SubagentOf(parent, dshgen.Options{Seed: 13})
	grandchild := dshgen.SubagentOf(sub, dshgen.Options{Seed: 14})
	stranger := dshgen.Generate(dshgen.Options{Seed: 15, Turns: 2, Cwd: "/home/u/proj"})
	orphan, err := dshgen.Fork(stranger, stranger.Facts().Turns[0].EndSeq+1, dshgen.Options{Seed: 16})
	require.NoError(t, err)
	for _, l := range []*dshgen.Log{parent, fork, sub, grandchild, orphan} { // not the stranger
		importGenerated(t, s, root, l, true)
	}

	ref := func(l *dshgen.Log) archive.SessionRef {
		t.Helper()
		sess, err := s.Session(ctx, l.ID())
		require.NoError(t, err)
		return archive.SessionRef{ID: sess.ID, Title: sess.Title, Origin: sess.Origin, DelegationDepth: sess.DelegationDepth,
			CreatedAt: sess.CreatedAt, Health: sess.Health}
	}

	t.Run("a top-level session lists its children oldest first", func(t *testing.T) {
		rel, err := s.Relations(ctx, parent.ID())
		require.NoError(t, err)
		assert.Empty(t, rel.ParentID)
		assert.Nil(t, rel.Parent)
		// The subagent starts a second after the parent's last event, the fork a minute after.
		assert.Equal(t, []archive.SessionRef{ref(sub), ref(fork)}, rel.Children)
		assert.Equal(t, "subagent", rel.Children[0].Origin)
		assert.EqualValues(t, 1, rel.Children[0].DelegationDepth)
		assert.NotEmpty(t, rel.Children[1].Title)
	})
	t.Run("a fork names its parent", func(t *testing.T) {
		rel, err := s.Relations(ctx, fork.ID()[:20]) // a unique prefix
		require.NoError(t, err)
		assert.Equal(t, parent.ID(), rel.ParentID)
		require.NotNil(t, rel.Parent)
		assert.Equal(t, ref(parent), *rel.Parent)
		assert.NotNil(t, rel.Children)
		assert.Empty(t, rel.Children)
	})
	t.Run("a subagent has a parent and a child of its own", func(t *testing.T) {
		rel, err := s.Relations(ctx, sub.ID())
		require.NoError(t, err)
		require.NotNil(t, rel.Parent)
		assert.Equal(t, parent.ID(), rel.Parent.ID)
		assert.Equal(t, []archive.SessionRef{ref(grandchild)}, rel.Children)
		assert.EqualValues(t, 2, rel.Children[0].DelegationDepth)
	})
	t.Run("a parent that is not archived is named but not described", func(t *testing.T) {
		rel, err := s.Relations(ctx, orphan.ID())
		require.NoError(t, err)
		assert.Equal(t, stranger.ID(), rel.ParentID)
		assert.Nil(t, rel.Parent)
		assert.Empty(t, rel.Children)
	})
}
