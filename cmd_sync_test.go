package main

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive/dshgen"
	arcsync "github.com/logbook/logbook/sync"
	"github.com/logbook/logbook/sync/archivesync"
)

const testPassphrase = "correct horse battery staple"

// syncRemotes are the remotes the CLI sync tests run on: a real folder, and
// gofakes3 over real loopback HTTP addressed by an s3:// URL.
var syncRemotes = []struct {
	name string
	spec func(t *testing.T) string
}{
	{"folder", func(t *testing.T) string { return "file://" + filepath.Join(t.TempDir(), "remote") }},
	{"s3", func(t *testing.T) string {
		srv := httptest.NewServer(gofakes3.New(s3mem.New()).Server())
		t.Cleanup(srv.Close)
		t.Setenv("AWS_ACCESS_KEY_ID", "test")
		t.Setenv("AWS_SECRET_ACCESS_KEY", "test-secret")
		return "s3://logbook/team/archive?endpoint=" + strings.TrimPrefix(srv.URL, "http://") + "&insecure=1&path-style=1&region=us-east-1"
	}},
}

// setupSyncTest lowers the passphrase's work factor and writes the
// passphrase to a file; it returns the file.
func setupSyncTest(t *testing.T) string {
	old := syncScryptLogN
	syncScryptLogN = 10 // a fast passphrase wrap for tests
	t.Cleanup(func() { syncScryptLogN = old })
	t.Setenv("LOGBOOK_SYNC_PASSPHRASE", "")
	os.Unsetenv("LOGBOOK_SYNC_PASSPHRASE")
	f := filepath.Join(t.TempDir(), "passphrase")
	require.NoError(t, os.WriteFile(f, []byte(testPassphrase+"\n"), 0o600))
	return f
}

// syncInit runs `logbook sync init --remote spec --passphrase-file pass`.
func syncInit(t *testing.T, data, spec, pass string) result {
	t.Helper()
	return cliData(t, data, "sync", "init", "--remote", spec, "--passphrase-file", pass)
}

// remoteOf is the remote at spec, opened as the CLI opens it.
func remoteOf(t *testing.T, spec string) arcsync.Remote {
	t.Helper()
	r, err := archivesync.OpenRemote(spec, nil)
	require.NoError(t, err)
	return r
}

// remoteBytes is the total size of every object on the remote.
func remoteBytes(t *testing.T, spec string) int64 {
	t.Helper()
	r := remoteOf(t, spec)
	var n int64
	require.NoError(t, r.List(context.Background(), "", func(o arcsync.Object) error { n += o.Size; return nil }))
	return n
}

func exportBytes(t *testing.T, data, id string) []byte {
	t.Helper()
	r := cliData(t, data, "export", id)
	require.Equal(t, 0, r.code, r.stderr)
	return []byte(r.stdout)
}

func verdicts(t *testing.T, rep map[string]any) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, f := range objs(t, rep["files"]) {
		out[f["session_id"].(string)] = f["verdict"].(string)
	}
	return out
}

// writeLines writes the header and lines[1:n] of l as a plain session file.
func writeLines(t *testing.T, path string, l *dshgen.Log, n int) {
	t.Helper()
	var b bytes.Buffer
	for _, line := range l.Lines()[:n] {
		b.Write(line)
		b.WriteByte('\n')
	}
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, b.Bytes(), 0o644))
}

// TestSyncTwoMachines is issue #15 end to end through the CLI on each
// remote: machine A imports and pushes; B joins with the passphrase and
// pulls, and exports every session byte for byte as A does, with the same
// verdicts; A appends 1 MB to a session and pushes about 1 MB; B pulls the
// growth; a session that diverged on both machines is a conflict, both kept.
func TestSyncTwoMachines(t *testing.T) {
	if testing.Short() {
		t.Skip("two archives and a remote")
	}
	for _, rm := range syncRemotes {
		t.Run(rm.name, func(t *testing.T) {
			pass := setupSyncTest(t)
			spec := rm.spec(t)
			rootA, dataA, rootB, dataB := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
			var ids []string
			for seed := uint64(1); seed <= 3; seed++ {
				l, _ := genLog(t, rootA, seed, "/home/a/proj", seed == 2)
				ids = append(ids, l.ID())
			}
			big := dshgen.Generate(dshgen.Options{Seed: 42, Cwd: "/home/a/big", TargetBytes: 3 << 20, NoPack: true})
			rel, err := big.RelPath(false)
			require.NoError(t, err)
			bigPath := filepath.Join(rootA, rel)
			lines := big.Lines()
			cut, size := len(lines), big.Size()
			for cut > 1 && big.Size()-size < 1_000_000 {
				cut--
				size -= int64(len(lines[cut]) + 1)
			}
			writeLines(t, bigPath, big, cut)
			ids = append(ids, big.ID())

			impA := mustJSON[map[string]any](t, dataA, "import", "--json", rootA)
			r := syncInit(t, dataA, spec, pass)
			require.Equal(t, 0, r.code, r.stderr)
			assert.Contains(t, r.stdout, "Sync is set up")
			assert.Contains(t, r.stdout, "logbook sync init --remote")
			info, err := os.Stat(filepath.Join(dataA, "sync.key"))
			require.NoError(t, err)
			assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
			push := mustJSON[map[string]any](t, dataA, "sync", "push", "--json")
			assert.EqualValues(t, 4, push["pushed"])

			t.Run("a wrong passphrase fails clearly", func(t *testing.T) {
				wrong := filepath.Join(t.TempDir(), "wrong")
				require.NoError(t, os.WriteFile(wrong, []byte("not the passphrase\n"), 0o600))
				r := syncInit(t, dataB, spec, wrong)
				assert.Equal(t, 1, r.code)
				assert.Contains(t, r.stderr, "wrong passphrase")
				assert.NoFileExists(t, filepath.Join(dataB, "sync.key"))
				assert.NoFileExists(t, filepath.Join(dataB, "sync.json"))
			})
			r = syncInit(t, dataB, spec, pass)
			require.Equal(t, 0, r.code, r.stderr)
			assert.Contains(t, r.stdout, "Joined the archive")
			pull := mustJSON[map[string]any](t, dataB, "sync", "pull", "--json")
			assert.EqualValues(t, 4, pull["pulled"])
			assert.Positive(t, pull["bytes_down"])
			assert.Empty(t, pull["errors"])
			vA, vB := verdicts(t, impA), verdicts(t, pullReport(t, pull)["import"].(map[string]any))
			for _, id := range ids {
				assert.Equal(t, vA[id], vB[id], "verdict of %s", id)
				assert.Equal(t, exportBytes(t, dataA, id), exportBytes(t, dataB, id), "export of %s", id)
			}
			hits := mustJSON[map[string]any](t, dataB, "search", "--json", "the")
			assert.NotEmpty(t, hits, "pulled sessions are searchable")

			// Nothing changed: a second push uploads nothing, a pull imports nothing.
			before := remoteBytes(t, spec)
			push = mustJSON[map[string]any](t, dataA, "sync", "push", "--json")
			assert.EqualValues(t, 0, push["pushed"])
			assert.Equal(t, before, remoteBytes(t, spec))

			// A's session grows by 1 MB: about 1 MB travels.
			writeLines(t, bigPath, big, len(lines))
			mustJSON[map[string]any](t, dataA, "import", "--json", rootA)
			before = remoteBytes(t, spec)
			push = mustJSON[map[string]any](t, dataA, "sync", "push", "--json")
			moved := remoteBytes(t, spec) - before
			grown := big.Size() - size
			t.Logf("%s: %d bytes appended to a %d-byte session: remote grew %d bytes, %v sent", rm.name, grown, big.Size(), moved, push["bytes_up"])
			assert.EqualValues(t, 1, push["pushed"])
			// bytes_up is what was sent; the remote grew by that less the
			// replaced head.
			assert.InDelta(t, moved, push["bytes_up"], 1024)
			assert.Less(t, moved, grown+grown/50+16<<10, "an append moves at most about its own size (compressed: less)")
			assert.Greater(t, moved, int64(16<<10))

			pull = mustJSON[map[string]any](t, dataB, "sync", "pull", "--json")
			assert.EqualValues(t, 1, pull["pulled"])
			assert.Equal(t, big.JSONL(), exportBytes(t, dataB, big.ID()))
			assert.Equal(t, exportBytes(t, dataA, big.ID()), exportBytes(t, dataB, big.ID()))

			// B's push leaves A's sessions to A; a push then pull is `logbook sync now`.
			both := mustJSON[map[string]any](t, dataB, "sync", "now", "--json")
			assert.EqualValues(t, 4, pushReport(t, both)["from_others"])
			assert.EqualValues(t, 0, pushReport(t, both)["sessions"])
			for _, sess := range objs(t, mustJSON[[]any](t, dataB, "sessions", "--json")) {
				assert.NotEmpty(t, sess["machine"], "every session names its machine")
				assert.NotEqual(t, mustJSON[map[string]any](t, dataB, "sync", "status", "--json")["machine"], sess["machine"], "pulled from A")
			}

			t.Run("a diverged session is a conflict, both kept", func(t *testing.T) {
				la := dshgen.Generate(dshgen.Options{Seed: 100, ID: "session-conflict", Cwd: "/home/a/c", Turns: 3})
				lb := dshgen.Generate(dshgen.Options{Seed: 200, ID: "session-conflict", Cwd: "/home/b/c", Turns: 3})
				_, err := la.WriteFile(rootA, false)
				require.NoError(t, err)
				pathB, err := lb.WriteFile(rootB, false)
				require.NoError(t, err)
				mustJSON[map[string]any](t, dataA, "import", "--json", rootA)
				mustJSON[map[string]any](t, dataB, "import", "--json", rootB)
				mustJSON[map[string]any](t, dataA, "sync", "--json")
				rb := mustJSON[map[string]any](t, dataB, "sync", "--json")
				ra := mustJSON[map[string]any](t, dataA, "sync", "pull", "--json")
				assert.EqualValues(t, 1, rb["conflicts"])
				for name, rep := range map[string]map[string]any{"A": pullReport(t, ra), "B": pullReport(t, rb)} {
					cs := objs(t, rep["conflicts"])
					require.Len(t, cs, 1, name)
					assert.Equal(t, "session-conflict", cs[0]["session_id"])
					vs := objs(t, cs[0]["versions"])
					require.Len(t, vs, 2, name)
					assert.Equal(t, true, vs[0]["local"])
					assert.NotEqual(t, vs[0]["machine"], vs[1]["machine"])
					kept, err := os.ReadFile(vs[1]["path"].(string))
					require.NoError(t, err, name)
					if name == "A" {
						assert.Equal(t, lb.JSONL(), kept)
					} else {
						assert.Equal(t, la.JSONL(), kept)
					}
				}
				assert.Equal(t, la.JSONL(), exportBytes(t, dataA, "session-conflict"), "A keeps its own")
				assert.Equal(t, lb.JSONL(), exportBytes(t, dataB, "session-conflict"), "B keeps its own")
				st := mustJSON[map[string]any](t, dataA, "sync", "status", "--json")
				assert.Len(t, arr(t, st["conflicts"]), 1)
				assert.EqualValues(t, 5, st["sessions_pushed"])
				assert.NotNil(t, st["last_push"])
				r := cliData(t, dataB, "sync", "status")
				assert.Contains(t, r.stdout, "session-conflict")

				// Marked in sessions --json on both machines, with both versions.
				for _, data := range []string{dataA, dataB} {
					sess := findSession(t, data, "session-conflict")
					assert.Len(t, arr(t, sess["sync_conflict"]), 2)
				}

				// B keeps A's version although B reads its own from its agent's
				// log (which stays as it was), and A keeps its own: the conflict
				// is settled on both and not reported again, and both serve A's
				// version.
				machineA := mustJSON[map[string]any](t, dataA, "sync", "status", "--json")["machine"].(string)
				r = cliData(t, dataB, "sync", "resolve", "session-conflict", "--keep", "nobody")
				assert.Equal(t, 1, r.code)
				assert.Contains(t, r.stderr, "no version from machine")
				for _, data := range []string{dataB, dataA} {
					r = cliData(t, data, "sync", "resolve", "session-conflict", "--keep", machineA)
					require.Equal(t, 0, r.code, r.stderr)
					assert.Nil(t, findSession(t, data, "session-conflict")["sync_conflict"])
					assert.Equal(t, machineA, findSession(t, data, "session-conflict")["machine"])
				}
				logB, err := os.ReadFile(pathB)
				require.NoError(t, err)
				assert.Equal(t, lb.JSONL(), logB, "B's agent log is left as it was")
				mustJSON[map[string]any](t, dataB, "import", "--json", rootB)
				for _, data := range []string{dataA, dataB, dataA} {
					rs := mustJSON[map[string]any](t, data, "sync", "now", "--json")
					assert.EqualValues(t, 0, rs["conflicts"])
				}
				assert.True(t, bytes.Equal(la.JSONL(), exportBytes(t, dataA, "session-conflict")))
				assert.True(t, bytes.Equal(la.JSONL(), exportBytes(t, dataB, "session-conflict")), "B's import of its unchanged log did not take the session back")
			})
		})
	}
}

func TestSyncSetupErrors(t *testing.T) {
	pass := setupSyncTest(t)
	data := t.TempDir()
	r := cliData(t, data, "sync", "push")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "sync init")
	spec := filepath.Join(t.TempDir(), "remote")
	r = syncInit(t, data, "file://"+spec, pass)
	require.Equal(t, 0, r.code, r.stderr)
	r = syncInit(t, data, spec, pass)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "already set up")
	// A plain folder path is the same remote as its file:// URL: this joins.
	r = syncInit(t, t.TempDir(), spec, pass)
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "Joined")
	r = cliData(t, t.TempDir(), "sync", "init", "--remote", spec)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "LOGBOOK_SYNC_PASSPHRASE")
	r = syncInit(t, t.TempDir(), "ftp://host/x", pass)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, `scheme "ftp" is not supported`)
	r = syncInit(t, t.TempDir(), spec, filepath.Join(t.TempDir(), "missing"))
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "passphrase file")
	r = cliData(t, data, "sync", "init")
	assert.Equal(t, 2, r.code)
}

// pullReport is the first remote's pull report in a sync summary.
func pullReport(t *testing.T, sum map[string]any) map[string]any {
	t.Helper()
	return obj(t, objs(t, sum["remotes"])[0]["pull"])
}

// pushReport is the first remote's push report in a sync summary.
func pushReport(t *testing.T, sum map[string]any) map[string]any {
	t.Helper()
	return obj(t, objs(t, sum["remotes"])[0]["push"])
}

// findSession is session id as `sessions --json` prints it.
func findSession(t *testing.T, data, id string) map[string]any {
	t.Helper()
	for _, sess := range objs(t, mustJSON[[]any](t, data, "sessions", "--json")) {
		if sess["id"] == id {
			return sess
		}
	}
	t.Fatalf("no session %s in %s", id, data)
	return nil
}

// add-remote: a second remote gets the key under the same passphrase and
// every later sync goes through both; a machine that joins only the second
// remote gets every session. gc runs over every remote.
func TestSyncAddRemoteAndGC(t *testing.T) {
	pass := setupSyncTest(t)
	first, second := "file://"+filepath.Join(t.TempDir(), "one"), "file://"+filepath.Join(t.TempDir(), "two")
	root, data := t.TempDir(), t.TempDir()
	l, _ := genLog(t, root, 5, "/home/a/p", false)
	mustJSON[map[string]any](t, data, "import", "--json", root)
	require.Equal(t, 0, syncInit(t, data, first, pass).code)

	wrong := filepath.Join(t.TempDir(), "wrong")
	require.NoError(t, os.WriteFile(wrong, []byte("nope\n"), 0o600))
	r := cliData(t, data, "sync", "add-remote", second, "--passphrase-file", wrong)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "wrong passphrase")
	r = cliData(t, data, "sync", "add-remote", second, "--passphrase-file", pass)
	require.Equal(t, 0, r.code, r.stderr)
	r = cliData(t, data, "sync", "add-remote", second, "--passphrase-file", pass)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "already a remote")

	sum := mustJSON[map[string]any](t, data, "sync", "now", "--json")
	assert.Len(t, arr(t, sum["remotes"]), 2)
	assert.EqualValues(t, 2, sum["pushed"], "one session to each remote")
	st := mustJSON[map[string]any](t, data, "sync", "status", "--json")
	assert.Len(t, arr(t, st["remotes"]), 2)
	assert.EqualValues(t, 0, st["pending_bytes"])

	other := t.TempDir()
	require.Equal(t, 0, syncInit(t, other, second, pass).code)
	mustJSON[map[string]any](t, other, "sync", "now", "--json")
	assert.True(t, bytes.Equal(l.JSONL(), exportBytes(t, other, l.ID())))

	gc := mustJSON[[]any](t, data, "sync", "gc", "--json")
	require.Len(t, gc, 2)
	for _, g := range objs(t, gc) {
		assert.EqualValues(t, 0, g["deleted"], "everything is referenced or young")
		assert.Positive(t, g["referenced"])
	}
}
