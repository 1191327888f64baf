package archive_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/archivetest"
)

func TestOpenTwiceIsIdempotent(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "a.db")
	for i := 0; i < 2; i++ {
		s, err := archive.Open(ctx, path)
		require.NoError(t, err, "open %d", i+1)
		require.NoError(t, s.Close())
	}
	db, err := sql.Open("sqlite", "file:"+path)
	require.NoError(t, err)
	defer db.Close()
	var n int
	require.NoError(t, db.QueryRow(`SELECT COUNT(*) FROM schema_migrations`).Scan(&n))
	entries, err := os.ReadDir("migrations")
	require.NoError(t, err)
	assert.Equal(t, len(entries), n, "each migration applied exactly once")
	var mode string
	require.NoError(t, db.QueryRow(`PRAGMA journal_mode`).Scan(&mode))
	assert.Equal(t, "wal", mode)
}

func TestNewArchivePageSize(t *testing.T) {
	s := archivetest.MustOpen(t)
	assert.EqualValues(t, 16384, queryInt(t, db(t, s), `PRAGMA page_size`), "messages of a few KiB fit in their row")
}

func TestOpenFails(t *testing.T) {
	t.Run("ErrNotADatabase", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "a.db")
		require.NoError(t, os.WriteFile(path, []byte(strings.Repeat("not a database ", 100)), 0o600))
		_, err := archive.Open(context.Background(), path)
		assert.Error(t, err)
	})
	t.Run("ErrMissingDirectory", func(t *testing.T) {
		_, err := archive.Open(context.Background(), filepath.Join(t.TempDir(), "no", "such", "a.db"))
		assert.Error(t, err)
	})
}

// TestModerncVersionsPinned checks that modernc.org/libc is exactly the version the
// pinned modernc.org/sqlite was built against: a mismatch compiles but can corrupt
// memory at run time (the reason PocketBase keeps the same check).
func TestModerncVersionsPinned(t *testing.T) {
	gomod, err := os.ReadFile(filepath.Join("..", "go.mod"))
	require.NoError(t, err)
	versions := map[string]string{}
	for _, line := range strings.Split(string(gomod), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && strings.HasPrefix(f[0], "modernc.org/") {
			versions[f[0]] = f[1]
		}
	}
	sqliteV, libcV := versions["modernc.org/sqlite"], versions["modernc.org/libc"]
	require.NotEmpty(t, sqliteV)
	require.NotEmpty(t, libcV)
	gomodcache := os.Getenv("GOMODCACHE")
	if gomodcache == "" {
		gopath := os.Getenv("GOPATH")
		if gopath == "" {
			home, _ := os.UserHomeDir()
			gopath = filepath.Join(home, "go")
		}
		gomodcache = filepath.Join(gopath, "pkg", "mod")
	}
	mod, err := os.ReadFile(filepath.Join(gomodcache, "modernc.org", "sqlite@"+sqliteV, "go.mod"))
	if err != nil {
		t.Skipf("modernc.org/sqlite go.mod not in the module cache: %v", err)
	}
	assert.Contains(t, string(mod), "modernc.org/libc "+libcV,
		"go.mod must pin modernc.org/libc to the version modernc.org/sqlite %s requires", sqliteV)
}

// TestPackedText checks that long derived texts are stored compressed and read back
// whole, including those an earlier version packed with zstd.
func TestPackedText(t *testing.T) {
	b := newLog("session-x", "")
	b.startTurn()
	long := strings.Repeat("a long prompt, compressed in the archive; ", 40)
	seq := b.user(long)
	b.endTurn()
	s := archivetest.MustOpen(t)
	path := sessionFile(t, t.TempDir(), "session-x", false)
	writeFile(t, path, b.plain())
	importOne(t, s, path)
	d := db(t, s)
	var typ string
	require.NoError(t, d.QueryRow(`SELECT typeof(text) FROM messages WHERE seq = ?`, seq).Scan(&typ))
	assert.Equal(t, "blob", typ)
	text := func() string {
		msgs, err := s.Messages(context.Background(), "session-x")
		require.NoError(t, err)
		require.Len(t, msgs, 1)
		return msgs[0].Text
	}
	assert.Equal(t, long, text())

	enc, err := zstd.NewWriter(nil)
	require.NoError(t, err)
	defer enc.Close()
	_, err = d.Exec(`UPDATE messages SET text = ? WHERE seq = ?`, enc.EncodeAll([]byte(long), nil), seq)
	require.NoError(t, err)
	assert.Equal(t, long, text(), "a zstd-packed text of an earlier version")
}

// TestArchiveFilesAreOwnerOnly checks that the database, its WAL and shared-memory
// files are 0600 whatever the umask, and that an older archive's 0644 files are
// narrowed when it is opened.
func TestArchiveFilesAreOwnerOnly(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "logbook.db")
	s := archive.New(path)
	require.NoError(t, s.Open(ctx))
	b := twoTurns("session-perm")
	p := sessionFile(t, t.TempDir(), "session-perm", false)
	writeFile(t, p, b.plain())
	importOne(t, s, p)
	for _, f := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(f)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), f)
	}
	require.NoError(t, s.Close())

	require.NoError(t, os.Chmod(path, 0o644))
	s = archive.New(path)
	require.NoError(t, s.Open(ctx))
	defer s.Close()
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "an older archive is narrowed")
}
