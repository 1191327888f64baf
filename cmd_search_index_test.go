package main

// How `logbook search`, `reindex` and `import` open the search index: while
// another process holds it, from any broken state, and in a read-only data
// directory.

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/index"

	"github.com/logbook/logbook/archive/archivetest"
)

// importCorpus imports the real corpus log into a new data directory.
func importCorpus(t *testing.T) string {
	t.Helper()
	path := corpusPath(t)
	data := t.TempDir()
	rep := mustJSON[map[string]any](t, data, "import", "--json", path)
	for _, f := range objs(t, rep["files"]) {
		require.Equal(t, "ok", f["verdict"], "%v", f["error"])
	}
	return data
}

// holdIndex opens the index of data as who would, for the rest of the test or
// until the returned func is called. (Locks are per open file, so this stands in
// for another process.)
func holdIndex(t *testing.T, data, who string, oneShot bool) func() {
	t.Helper()
	ix, err := index.OpenWith(filepath.Join(data, "index"), index.Options{Holder: index.Holder{Command: who, OneShot: oneShot}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = ix.Close() })
	return func() { _ = ix.Close() }
}

func TestSearchWhileTheIndexIsHeld(t *testing.T) {
	data := importCorpus(t)
	pid := fmt.Sprint(os.Getpid())

	t.Run("waits for a one-shot command", func(t *testing.T) {
		release := holdIndex(t, data, holderImport, true)
		// Longer than Open's own wait: only waiting for the import gets through.
		// (start is taken first, so the release is never before start+3s.)
		start := time.Now()
		time.AfterFunc(3*time.Second, release)
		r := cliData(t, data, "search", "--json", "写入权限")
		require.Equal(t, 0, r.code, r.stderr)
		assert.Contains(t, r.stderr, "waiting for `logbook import` (pid "+pid+") to finish indexing…")
		assert.GreaterOrEqual(t, time.Since(start), 3*time.Second)
		assert.Positive(t, total(t, decode[map[string]any](t, r.stdout)))
	})
	t.Run("names a long-running holder at once", func(t *testing.T) {
		holdIndex(t, data, holderServe, false)
		start := time.Now()
		r := cliData(t, data, "search", "写入权限")
		assert.Equal(t, 1, r.code)
		assert.Contains(t, r.stderr, "`logbook serve` (pid "+pid+") has it open; search in its UI, or stop it first")
		assert.NotContains(t, r.stderr, "waiting")
		assert.Less(t, time.Since(start), oneShotWait)
	})
	t.Run("reindex names it too", func(t *testing.T) {
		holdIndex(t, data, holderWindow, false)
		r := cliData(t, data, "reindex")
		assert.Equal(t, 1, r.code)
		assert.Contains(t, r.stderr, "the Logbook window (pid "+pid+") has it open")
		assert.FileExists(t, filepath.Join(data, "index", "index_meta.json"), "a held index is never discarded")
	})
}

// importBehindIndex imports a generated log into data while the index is held,
// so the archive has a session the index lacks, and returns its id.
func importBehindIndex(t *testing.T, data string) string {
	t.Helper()
	release := holdIndex(t, data, holderServe, false)
	gen, p := genLog(t, t.TempDir(), 7, "/home/u/behind", false)
	r := cliData(t, data, "import", p)
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stderr, "index")
	release()
	return gen.ID()
}

// searchReadOnly runs `search --json ARGS` in data as a read-only data
// directory, whatever the permissions say (as root, they say nothing).
func searchReadOnly(t *testing.T, data string, args ...string) (map[string]any, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	e := &env{stdout: &out, stderr: &errOut, dataDir: data, readOnly: true,
		logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	require.NoError(t, cmdSearch(context.Background(), e, append([]string{"--json"}, args...)), errOut.String())
	return decode[map[string]any](t, out.String()), errOut.String()
}

func TestSearchReadOnly(t *testing.T) {
	data := importCorpus(t)
	dir := filepath.Join(data, "index")

	t.Run("an index level with the archive is searched as it is", func(t *testing.T) {
		before := archivetest.TreeState(t, dir)
		res, stderr := searchReadOnly(t, data, "写入权限")
		assert.Positive(t, total(t, res))
		assert.NotContains(t, stderr, "temporary")
		assert.Equal(t, before, archivetest.TreeState(t, dir), "nothing written in the index")
	})
	t.Run("an index behind the archive is topped up in a temporary copy", func(t *testing.T) {
		id := importBehindIndex(t, data)
		before := archivetest.TreeState(t, dir)
		res, stderr := searchReadOnly(t, data, "session:"+id)
		assert.Contains(t, stderr, "1 sessions behind the archive")
		assert.Contains(t, stderr, "searching a temporary index in "+os.TempDir())
		n := total(t, res)
		assert.Positive(t, n, "the new session is found")
		assert.Equal(t, before, archivetest.TreeState(t, dir), "nothing written in the index")
		_, tmp, ok := strings.Cut(stderr, "searching a temporary index in ")
		require.True(t, ok)
		tmp, _, _ = strings.Cut(tmp, " ")
		assert.NoDirExists(t, tmp, "the temporary index is removed")
		// The same search once the index is written agrees.
		assert.Equal(t, n, total(t, searchJSON(t, data, "session:"+id)))
	})
	t.Run("a missing index is built in a temporary directory", func(t *testing.T) {
		require.NoError(t, os.RemoveAll(dir))
		res, stderr := searchReadOnly(t, data, "写入权限")
		assert.Contains(t, stderr, "is missing")
		assert.Positive(t, total(t, res))
		assert.NoDirExists(t, dir, "not created")
	})
	t.Run("reindex refuses with a reason", func(t *testing.T) {
		e := &env{stdout: io.Discard, stderr: io.Discard, dataDir: data, readOnly: true}
		err := cmdReindex(context.Background(), e, nil)
		require.ErrorContains(t, err, "cannot be written")
	})
}

// TestSearchReadOnlyMount searches a data directory on a read-only mount through
// the whole command line. Mounting needs root.
func TestSearchReadOnlyMount(t *testing.T) {
	data := archivetest.Tmpfs(t, "64m")
	rep := mustJSON[map[string]any](t, data, "import", "--json", corpusPath(t))
	require.Len(t, objs(t, rep["files"]), 1)
	id := importBehindIndex(t, data)
	archivetest.Remount(t, data, syscall.MS_RDONLY, "64m")

	r := cliData(t, data, "search", "--json", "session:"+id)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "searching a temporary index")
	assert.Positive(t, total(t, decode[map[string]any](t, r.stdout)))
	r = cliData(t, data, "search", "--json", "写入权限")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Positive(t, total(t, decode[map[string]any](t, r.stdout)))
	r = cliData(t, data, "reindex")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "cannot be written")
}
