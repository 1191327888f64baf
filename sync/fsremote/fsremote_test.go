package fsremote_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	arcsync "github.com/logbook/logbook/sync"
	"github.com/logbook/logbook/sync/fsremote"
	"github.com/logbook/logbook/sync/remotetest"
)

func TestConformance(t *testing.T) {
	remotetest.Run(t, func(t *testing.T) arcsync.Remote { return fsremote.New(t.TempDir()) })
}

func TestStrayFilesIgnored(t *testing.T) {
	root := t.TempDir()
	r := fsremote.New(root)
	ctx := context.Background()
	require.NoError(t, r.Put(ctx, "data/ab", strings.NewReader("x"), 1))
	// A crash between create and rename leaves a temp file; foreign files
	// with names no object can have are not objects either.
	require.NoError(t, os.WriteFile(filepath.Join(root, "data", ".tmp-123"), []byte("partial"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(root, "data", "with space"), []byte("?"), 0o600))
	var names []string
	require.NoError(t, r.List(ctx, "", func(o arcsync.Object) error { names = append(names, o.Name); return nil }))
	assert.Equal(t, []string{"data/ab"}, names)
}

func TestPutStreams(t *testing.T) {
	r := fsremote.New(t.TempDir())
	const size = 64 << 20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	require.NoError(t, r.Put(context.Background(), "big", io.LimitReader(zeros{}, size), size))
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("allocated %d KiB putting %d MiB", alloc>>10, size>>20)
	assert.Less(t, alloc, uint64(4<<20), "Put must stream, not buffer")
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }
