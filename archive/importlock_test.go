package archive_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/archivetest"
)

// TestConcurrentImportsSerialize starts three imports of the same new files at
// once, each through its own Store on one archive (as three `logbook import`
// processes would). They take turns: one stores the files, the others find them
// unchanged, nobody records a rewrite, and no line is stored twice.
func TestConcurrentImportsSerialize(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	want := map[string][]byte{}
	for i := range 6 {
		id := fmt.Sprintf("session-c%d", i)
		b := twoTurns(id)
		for range 20 {
			b.fullTurn(noise(200))
		}
		writeFile(t, sessionFile(t, root, id, false), b.plain())
		want[id] = b.plain()
	}
	dbPath := filepath.Join(t.TempDir(), "logbook.db")
	stores := make([]*archive.Store, 3)
	for i := range stores {
		s := archive.New(dbPath)
		require.NoError(t, s.Open(ctx))
		t.Cleanup(func() { s.Close() })
		stores[i] = s
	}
	reports := make([]*archive.ImportReport, len(stores))
	waited := make([]bool, len(stores))
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i, s := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			rep, err := s.Import(ctx, []string{root}, archive.ImportOptions{BatchRecords: 7,
				Waiting: func(string) { waited[i] = true }})
			assert.NoError(t, err)
			reports[i] = rep
		}()
	}
	close(start)
	wg.Wait()

	changed := 0
	for i, rep := range reports {
		require.NotNil(t, rep)
		for _, f := range rep.Files {
			assert.NotEqual(t, "rewritten", f.Action, "store %d: %s", i, f.Path)
			assert.Contains(t, []string{"new", "unchanged"}, f.Action, "store %d: %+v", i, f)
			if f.Changed {
				changed++
			}
		}
	}
	assert.Equal(t, len(want), changed, "each file is stored by exactly one import")
	waits := 0
	for _, w := range waited {
		if w {
			waits++
		}
	}
	// Almost always one waits for another (without the lock this test fails every
	// time); a machine slow to start the goroutines may let them run one by one.
	t.Logf("%d of %d imports waited for another", waits, len(stores))
	for id, data := range want {
		assertSameBytes(t, data, exportOf(t, stores[0], id), id)
	}
	assert.Zero(t, queryInt(t, db(t, stores[0]), `SELECT COUNT(*) FROM superseded_blocks`), "no false rewrite kept a duplicate copy")
}

// TestImportThroughSymlinkedRoot imports a folder named through a symbolic link
// (~/.dsh as a link to another disk is common): its sessions are found.
func TestImportThroughSymlinkedRoot(t *testing.T) {
	real := t.TempDir()
	b := twoTurns("session-link")
	writeFile(t, sessionFile(t, real, "session-link", false), b.plain())
	link := filepath.Join(t.TempDir(), "sessions")
	require.NoError(t, os.Symlink(real, link))
	s := archivetest.MustOpen(t)
	rep, err := s.Import(context.Background(), []string{link}, archive.ImportOptions{})
	require.NoError(t, err)
	require.Len(t, rep.Files, 1)
	assert.Equal(t, "new", rep.Files[0].Action)
	assertSameBytes(t, b.plain(), exportOf(t, s, "session-link"), "imported through the link")
}
