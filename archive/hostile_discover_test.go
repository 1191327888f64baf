//go:build unix

package archive

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive/dsh"
)

// discoverWithin runs Discover and fails the test if it blocks: opening a named pipe
// for reading waits for a writer forever.
func discoverWithin(t *testing.T, paths ...string) Discovered {
	t.Helper()
	done := make(chan Discovered, 1)
	go func() { done <- Discover(paths) }()
	select {
	case d := <-done:
		return d
	case <-time.After(20 * time.Second):
		t.Fatal("Discover blocked on a non-regular file")
		return Discovered{}
	}
}

func TestDiscoverRefusesNonRegularFiles(t *testing.T) {
	dir := t.TempDir()
	session := func(name string) string {
		p := filepath.Join(dir, "root", "--p--", name, "session.jsonl")
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		return p
	}
	fifo := filepath.Join(dir, "pipe.jsonl")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	inRoot := session("s-fifo")
	require.NoError(t, syscall.Mkfifo(inRoot, 0o600))
	good := session("s-good")
	require.NoError(t, os.WriteFile(good, []byte("x\n"), 0o644))
	outside := filepath.Join(dir, "elsewhere.jsonl")
	require.NoError(t, os.WriteFile(outside, []byte("x\n"), 0o644))
	link := session("s-link")
	require.NoError(t, os.Symlink(outside, link))
	dangling := session("s-dangling")
	require.NoError(t, os.Symlink(filepath.Join(dir, "missing"), dangling))
	toDevice := session("s-device")
	require.NoError(t, os.Symlink("/dev/zero", toDevice))

	d := discoverWithin(t, fifo, "/dev/zero", filepath.Join(dir, "root"))
	assert.Equal(t, []string{good, link}, d.Files, "regular files (and links to them) only")
	want := map[string]string{
		fifo:        "is a named pipe (FIFO), not a regular file",
		"/dev/zero": "is a character device, not a regular file",
		inRoot:      "is a named pipe (FIFO), not a regular file",
		toDevice:    "is a character device, not a regular file",
	}
	for p, msg := range want {
		if assert.Contains(t, d.Problems, p) {
			assert.Equal(t, KindNotRegular, d.Problems[p].Kind)
			assert.Contains(t, d.Problems[p].Message, p+": "+msg)
		}
	}
	if assert.Contains(t, d.Problems, dangling) {
		assert.Equal(t, dsh.KindIOError, d.Problems[dangling].Kind)
	}
}

func TestOpenRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "session.jsonl")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	done := make(chan error, 1)
	go func() {
		f, _, err := openRegular(fifo)
		if f != nil {
			f.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		var nr *NotRegularError
		require.ErrorAs(t, err, &nr)
		assert.Equal(t, "a named pipe (FIFO)", nr.What)
		assert.ErrorIs(t, err, ErrNotRegular)
		assert.Contains(t, err.Error(), fifo+": is a named pipe (FIFO), not a regular file")
	case <-time.After(20 * time.Second):
		t.Fatal("openRegular blocked on a named pipe")
	}

	_, _, err := openRegular("/dev/null")
	assert.ErrorIs(t, err, ErrNotRegular)

	plain := filepath.Join(dir, "plain.jsonl")
	require.NoError(t, os.WriteFile(plain, []byte("abc"), 0o644))
	f, fi, err := openRegular(plain)
	require.NoError(t, err)
	defer f.Close()
	assert.EqualValues(t, 3, fi.Size())
	b := make([]byte, 3)
	_, err = f.Read(b)
	require.NoError(t, err)
	assert.Equal(t, "abc", string(b))

	_, _, err = openRegular(filepath.Join(dir, "missing"))
	assert.True(t, errors.Is(err, os.ErrNotExist))
}
