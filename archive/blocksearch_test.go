package archive_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/archivetest"
	"github.com/logbook/logbook/archive/dshgen"
)

func TestSessionBlocksRealCorpus(t *testing.T) {
	ctx := context.Background()
	s := archivetest.MustOpen(t)
	fr := s.ImportFile(ctx, archivetest.Corpus(t, archivetest.RealLog), archive.ImportOptions{})
	require.Nil(t, fr.Error)
	kinds := map[string]int{}
	ids := map[string]bool{}
	rev, err := s.SessionBlocks(ctx, fr.SessionID, func(b archive.Block) error {
		kinds[b.Kind]++
		assert.False(t, ids[b.ID], "block ids are unique: %s", b.ID)
		ids[b.ID] = true
		assert.NotEmpty(t, strings.TrimSpace(b.Text))
		assert.Equal(t, `G:\dsh客户端`, b.Project)
		return nil
	})
	require.NoError(t, err)
	assert.Positive(t, rev)
	assert.Equal(t, 136, kinds[archive.BlockToolCall])
	assert.Equal(t, 135, kinds[archive.BlockToolResult])
	assert.Equal(t, 1, kinds[archive.BlockTitle])
	assert.Positive(t, kinds[archive.BlockReasoning])
	assert.Positive(t, kinds[archive.BlockAssistant])
	assert.Positive(t, kinds[archive.BlockHuman])

	revs, err := s.Revisions(ctx)
	require.NoError(t, err)
	assert.Equal(t, rev, revs[fr.SessionID])
}

func TestSessionBlocksShadowedAndTools(t *testing.T) {
	ctx := context.Background()
	s := archivetest.MustOpen(t)
	l := dshgen.Generate(dshgen.Options{Seed: 42, Turns: 14})
	path, err := l.WriteFile(t.TempDir(), true)
	require.NoError(t, err)
	fr := s.ImportFile(ctx, path, archive.ImportOptions{})
	require.Nil(t, fr.Error)
	shadowed, toolResultsWithTool, compactions, approvals := 0, 0, 0, 0
	_, err = s.SessionBlocks(ctx, fr.SessionID, func(b archive.Block) error {
		if b.Surface == "shadowed" {
			shadowed++
		}
		switch b.Kind {
		case archive.BlockToolResult:
			if b.Tool != "" {
				toolResultsWithTool++
			}
		case archive.BlockCompaction:
			compactions++
		case archive.BlockApproval:
			approvals++
		}
		return nil
	})
	require.NoError(t, err)
	assert.Positive(t, shadowed, "content a compaction replaced is still searchable, labelled shadowed")
	assert.Positive(t, toolResultsWithTool, "tool results carry their tool's name")
	assert.Positive(t, compactions)
	assert.Equal(t, len(l.Facts().Approvals), approvals)
}
