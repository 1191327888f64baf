package archive_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/archivetest"
	"github.com/logbook/logbook/archive/dsh"
)

// randomText returns n bytes of incompressible text from seed.
func randomText(seed uint64, n int) string {
	r := rand.New(rand.NewPCG(seed, seed*7+1))
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 "
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

// TestDiskFullIsAFaultNotAVerdict imports healthy sessions into an archive on a
// disk too small for them. The files that do not fit are "failed" with the cause
// (disk-full), never "corrupt"; what was archived stays intact; and once there is
// room, the next import reads the failed files again and archives them whole.
func TestDiskFullIsAFaultNotAVerdict(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	want := map[string][]byte{}
	for i := range 8 {
		id := fmt.Sprintf("session-full-%d", i)
		b := twoTurns(id)
		for k := range 6 {
			b.fullTurn(randomText(uint64(i*100+k), 100<<10))
		}
		writeFile(t, sessionFile(t, root, id, false), b.plain())
		want[id] = b.plain()
	}
	disk := archivetest.Tmpfs(t, "8m")
	s := archive.New(filepath.Join(disk, "logbook.db"))
	require.NoError(t, s.Open(ctx))
	defer s.Close()

	rep, err := s.Import(ctx, []string{root}, archive.ImportOptions{BatchRecords: 5})
	require.NoError(t, err)
	failed := 0
	for _, f := range rep.Files {
		assert.NotEqual(t, dsh.VerdictCorrupt, f.Verdict, "a full disk is never a verdict on %s: %+v", f.Path, f.Error)
		if f.Verdict == archive.VerdictFailed {
			failed++
			assert.Equal(t, archive.KindDiskFull, f.Error.Kind, "%+v", f.Error)
		} else {
			assert.Equal(t, dsh.VerdictOK, f.Verdict, "%+v", f.Error)
		}
	}
	require.Greater(t, failed, 0, "the disk is too small for every session")
	require.Less(t, failed, len(want), "the disk holds the first session")
	assert.Equal(t, failed, rep.Summary.Failed)
	for _, f := range rep.Files {
		if f.Verdict == dsh.VerdictOK {
			assertSameBytes(t, want[f.SessionID], exportOf(t, s, f.SessionID), "an archived session is intact")
		}
	}

	archivetest.Remount(t, disk, 0, "64m")
	rep, err = s.Import(ctx, []string{root}, archive.ImportOptions{})
	require.NoError(t, err)
	reread := 0
	for _, f := range rep.Files {
		assert.Equal(t, dsh.VerdictOK, f.Verdict, "%s: %+v", f.Path, f.Error)
		if f.Changed {
			reread++
		}
	}
	assert.Equal(t, failed, reread, "exactly the failed files are read again")
	for id, data := range want {
		assertSameBytes(t, data, exportOf(t, s, id), id)
	}
}
