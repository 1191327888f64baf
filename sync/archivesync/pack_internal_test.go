package archivesync

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writePackFile writes a pack of a one-folder conversation holding files
// (name, size) whose bytes are size repetitions of 'x'.
func writePackFile(t *testing.T, files map[string]int) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "conversation.pack")
	f, err := os.Create(p)
	require.NoError(t, err)
	fmt.Fprintln(f, `{"logbook_pack":1,"kind":"dir","root":"conv"}`)
	for name, size := range files {
		fmt.Fprintf(f, "{\"name\":%q,\"size\":%d}\n", name, size)
		chunk := bytes.Repeat([]byte{'x'}, 1<<20)
		for left := size; left > 0; left -= len(chunk) {
			_, err := f.Write(chunk[:min(left, len(chunk))])
			require.NoError(t, err)
		}
	}
	require.NoError(t, f.Close())
	return p
}

// A large file of a pack is streamed to disk: unpacking allocates far less
// than the file's size, whatever a pack holds.
func TestUnpackStreams(t *testing.T) {
	const size = 64 << 20
	src := writePackFile(t, map[string]int{"events/0-big.json": size})
	dir := t.TempDir()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	target, err := unpack(src, dir)
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "conv"), target)
	info, err := os.Stat(filepath.Join(target, "events", "0-big.json"))
	require.NoError(t, err)
	assert.EqualValues(t, size, info.Size())
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(4<<20), "a %d MiB file unpacked with its bytes held in memory", size>>20)
}

// A fault of this machine (a pack it cannot read, a folder it cannot write)
// is ErrLocal, never a verdict on the data; a pack that is cut short or
// runs on without a newline is errPack.
func TestUnpackErrors(t *testing.T) {
	t.Run("ErrLocalReading", func(t *testing.T) {
		_, err := unpack(t.TempDir(), t.TempDir()) // a folder: read fails with EISDIR
		require.ErrorIs(t, err, ErrLocal)
		assert.NotErrorIs(t, err, errPack)
	})
	t.Run("ErrLocalWriting", func(t *testing.T) {
		src := writePackFile(t, map[string]int{"a.json": 10})
		blocked := filepath.Join(t.TempDir(), "file")
		require.NoError(t, os.WriteFile(blocked, nil, 0o600))
		_, err := unpack(src, blocked) // a file where the folder should be
		require.ErrorIs(t, err, ErrLocal)
		assert.NotErrorIs(t, err, errPack)
	})
	t.Run("ErrPackCutShort", func(t *testing.T) {
		src := writePackFile(t, map[string]int{"a.json": 100})
		require.NoError(t, os.Truncate(src, 120))
		dir := t.TempDir()
		_, err := unpack(src, dir)
		require.ErrorIs(t, err, errPack)
		assert.NotErrorIs(t, err, ErrLocal)
		_, statErr := os.Stat(filepath.Join(dir, "conv", "a.json"))
		assert.ErrorIs(t, statErr, os.ErrNotExist, "a file cut short is not left behind")
	})
	t.Run("ErrPackLongLine", func(t *testing.T) {
		src := filepath.Join(t.TempDir(), "p")
		require.NoError(t, os.WriteFile(src, []byte(strings.Repeat("{", maxPackLine+10)), 0o600))
		_, err := unpack(src, t.TempDir())
		require.ErrorIs(t, err, errPack)
	})
	t.Run("ErrPackNoHeader", func(t *testing.T) {
		src := filepath.Join(t.TempDir(), "p")
		require.NoError(t, os.WriteFile(src, nil, 0o600))
		_, err := unpack(src, t.TempDir())
		require.ErrorIs(t, err, errPack)
	})
}
