package index

// Tests on real file systems that fill up or are mounted read-only: a tmpfs of a
// few hundred kilobytes. Mounting needs root (as the CI machine runs); elsewhere
// they skip, and the forced read-only tests in readonly_test.go still run.

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/archivetest"
)

// mountTmpfs mounts a tmpfs of size bytes on a new directory, unmounted when the
// test ends.
func mountTmpfs(t *testing.T, size int) string {
	t.Helper()
	return archivetest.Tmpfs(t, fmt.Sprint(size))
}

// remount changes a mounted tmpfs's size or makes it read-only.
func remount(t *testing.T, dir string, flags uintptr, size int) {
	t.Helper()
	archivetest.Remount(t, dir, flags, fmt.Sprint(size))
}

// fill writes a file in dir until the disk is full and returns its path.
func fill(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "filler")
	f, err := os.Create(p)
	require.NoError(t, err)
	defer f.Close()
	buf := make([]byte, 4096)
	for {
		if _, err := f.Write(buf); err != nil {
			require.ErrorIs(t, err, syscall.ENOSPC)
			return p
		}
	}
}

// bulky returns a source of n sessions of one block each: "deploy" in s0, and
// in every session about size bytes of random words, which compress badly.
func bulky(n, size int) *memSource {
	m := &memSource{revs: map[string]int64{}, blocks: map[string][]archive.Block{}}
	r := rand.New(rand.NewPCG(1, 2))
	for i := range n {
		id := fmt.Sprintf("s%d", i)
		var b strings.Builder
		if i == 0 {
			b.WriteString("deploy ")
		}
		for b.Len() < size {
			fmt.Fprintf(&b, "w%x ", r.Uint64())
		}
		m.revs[id] = 1
		m.blocks[id] = []archive.Block{{ID: id + "-b", SessionID: id, Project: "p", Agent: "dsh",
			Kind: archive.BlockAssistant, Role: "assistant", Surface: "current",
			Time: time.Date(2026, 1, 1, 0, 0, i, 0, time.UTC), Text: b.String()}}
	}
	return m
}

// grow returns the first n sessions of src.
func grow(src *memSource, n int) *memSource {
	m := &memSource{revs: map[string]int64{}, blocks: src.blocks}
	for i := range n {
		id := fmt.Sprintf("s%d", i)
		m.revs[id] = src.revs[id]
	}
	return m
}

func TestDiskFull(t *testing.T) {
	ctx := context.Background()
	deploy := func(ix *Index) []string { return searchAll(t, ix, Query{Text: "deploy"}) }

	t.Run("Sync", func(t *testing.T) {
		mnt := mountTmpfs(t, 1<<20)
		dir := filepath.Join(mnt, "index")
		ix, err := Open(dir)
		require.NoError(t, err)
		defer ix.Close()
		src := bulky(60, 64<<10)
		// One session per Sync until the disk is full.
		var serr error
		n := 1
		for ; n <= 60 && serr == nil; n++ {
			_, serr = ix.Sync(ctx, grow(src, n), nil)
		}
		require.Error(t, serr, "1 MB holds less than 60 sessions of 64 KB")
		assert.ErrorIs(t, serr, ErrDiskFull)
		assert.ErrorIs(t, serr, syscall.ENOSPC)
		assert.True(t, IsNoSpace(serr))
		ix.reopening.Wait()
		assert.Equal(t, []string{"s0-b"}, deploy(ix), "still searchable")
		require.NoError(t, ix.Close())

		ix, err = Open(dir)
		require.NoError(t, err, "openable after the disk filled up")
		assert.False(t, ix.Rebuilt())
		assert.Equal(t, []string{"s0-b"}, deploy(ix))
		pending, err := ix.Pending(ctx, src)
		require.NoError(t, err)
		assert.Positive(t, pending, "the sessions that did not fit are indexed again")

		remount(t, mnt, 0, 64<<20)
		st, err := ix.Sync(ctx, src, nil)
		require.NoError(t, err, "indexing resumes once there is room")
		assert.Equal(t, pending, st.Indexed)
		pending, err = ix.Pending(ctx, src)
		require.NoError(t, err)
		assert.Zero(t, pending)
	})

	t.Run("create", func(t *testing.T) {
		mnt := mountTmpfs(t, 256<<10)
		dir := filepath.Join(mnt, "data", "index")
		filler := fill(t, mnt)
		_, err := Open(dir)
		require.Error(t, err)
		assert.ErrorIs(t, err, ErrDiskFull)
		assert.NoDirExists(t, dir, "no half-made index left behind")
		assertNoLeftovers(t, dir)

		require.NoError(t, os.Remove(filler))
		ix, err := Open(dir)
		require.NoError(t, err)
		defer ix.Close()
		_, err = ix.Sync(ctx, texts("deploy failed"), nil)
		require.NoError(t, err)
		assert.Equal(t, []string{"b0"}, deploy(ix))
	})

	t.Run("Reindex", func(t *testing.T) {
		mnt := mountTmpfs(t, 512<<10)
		dir := filepath.Join(mnt, "index")
		ix, err := Open(dir)
		require.NoError(t, err)
		defer ix.Close()
		src := texts("deploy failed", "deploy worked")
		_, err = ix.Sync(ctx, src, nil)
		require.NoError(t, err)
		fill(t, mnt)
		_, err = ix.Reindex(ctx, src, nil)
		require.Error(t, err)
		assert.ErrorIs(t, err, ErrDiskFull)
		ix.reopening.Wait()
		assert.Equal(t, []string{"b0", "b1"}, sorted(deploy(ix)), "the old index stays in use")
		assertNoLeftovers(t, dir)
		require.NoError(t, ix.Close())
		ix, err = Open(dir)
		require.NoError(t, err)
		assert.False(t, ix.Rebuilt())
		assert.Equal(t, []string{"b0", "b1"}, sorted(deploy(ix)))
	})
}

func TestOpenReadOnlyMount(t *testing.T) {
	ctx := context.Background()
	mnt := mountTmpfs(t, 4<<20)
	dir := filepath.Join(mnt, "index")
	src := texts("deploy failed", "deploy worked")
	ix, err := Open(dir)
	require.NoError(t, err)
	_, err = ix.Sync(ctx, src, nil)
	require.NoError(t, err)
	require.NoError(t, ix.Close())
	removeTimeFiles(t, dir)
	remount(t, mnt, syscall.MS_RDONLY, 4<<20)

	_, err = Open(dir)
	require.Error(t, err, "a writer cannot open it")
	assert.True(t, errors.Is(err, syscall.EROFS), "%v", err)

	ro, err := OpenWith(dir, Options{ReadOnly: true})
	require.NoError(t, err)
	defer ro.Close()
	assert.Equal(t, []string{"b1", "b0"}, searchAll(t, ro, recent))
	more := texts("deploy failed", "deploy worked", "deploy again")
	more.revs["s"] = 2
	n, err := ro.Pending(ctx, more)
	require.NoError(t, err)
	assert.Equal(t, 1, n)

	tmp, err := OpenTemp(ro)
	require.NoError(t, err)
	defer tmp.Close()
	_, err = tmp.Sync(ctx, more, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"b2", "b1", "b0"}, searchAll(t, tmp, recent))
	require.NoError(t, tmp.Close())
	require.NoError(t, ro.Close())
}
