package archive_test

import (
	"context"
	"sort"
	"strconv"
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

// TestSessionsBlocksEqualsSessionBlocks reads many sessions in one batch and
// finds each session's blocks and revision as SessionBlocks reads them alone,
// whichever sessions of the batch a caller skips, and skips sessions the archive
// does not hold.
func TestSessionsBlocksEqualsSessionBlocks(t *testing.T) {
	ctx := context.Background()
	s := archivetest.MustOpen(t)
	dir := t.TempDir()
	for i := range 12 {
		// Turns 1 to 12: the longer ones have compactions, approvals and shadowed content.
		l := dshgen.Generate(dshgen.Options{Seed: uint64(300 + i), Turns: 1 + i, Cwd: "/p/" + strconv.Itoa(i%3)})
		_, err := l.WriteFile(dir, i%2 == 0)
		require.NoError(t, err)
	}
	_, err := s.Import(ctx, []string{dir}, archive.ImportOptions{})
	require.NoError(t, err)
	revs, err := s.Revisions(ctx)
	require.NoError(t, err)
	require.Len(t, revs, 12)
	alone := map[string][]archive.Block{}
	var ids []string
	kinds := map[string]bool{}
	for id := range revs {
		ids = append(ids, id)
		_, err := s.SessionBlocks(ctx, id, func(b archive.Block) error {
			alone[id] = append(alone[id], b)
			kinds[b.Kind] = true
			return nil
		})
		require.NoError(t, err)
	}
	for _, k := range []string{archive.BlockTitle, archive.BlockCompaction, archive.BlockApproval, archive.BlockToolCall, archive.BlockReasoning} {
		require.True(t, kinds[k], "the sessions have %s blocks", k)
	}
	sort.Strings(ids)
	// Out of order, and with one the archive does not hold.
	asked := append([]string{"no-such-session"}, ids[4:]...)
	asked = append(asked, ids[:4]...)
	for _, skip := range []int{0, 1, 2} { // read every session, every other one, every third
		batch := map[string][]archive.Block{}
		i := 0
		err := s.SessionsBlocks(ctx, asked, func(id string, rev int64, each func(func(archive.Block) error) error) error {
			assert.Equal(t, revs[id], rev, "session %s's revision", id)
			_, again := batch[id]
			assert.False(t, again, "session %s is read once", id)
			batch[id] = nil
			if i++; skip > 0 && i%(skip+1) == 0 {
				return nil
			}
			return each(func(b archive.Block) error {
				batch[id] = append(batch[id], b)
				return nil
			})
		})
		require.NoError(t, err)
		require.Len(t, batch, len(ids), "every session held is read, the missing one skipped")
		read := 0
		for _, id := range ids {
			if got := batch[id]; got != nil {
				read++
				assert.True(t, assert.ObjectsAreEqual(alone[id], got), "session %s read in a batch (skipping every %d) as alone", id, skip)
			}
		}
		assert.Equal(t, len(ids)-len(ids)*min(skip, 1)/(skip+1), read, "sessions read (skipping every %d)", skip)
	}
}
