package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive/dshgen"
	"github.com/logbook/logbook/archive/openhands"
	"github.com/logbook/logbook/archive/openhands/openhandstest"
	"github.com/logbook/logbook/archive/openhandsgen"
	arcsync "github.com/logbook/logbook/sync"
	"github.com/logbook/logbook/sync/archivesync"
)

// weedBinary is SeaweedFS's weed, the real S3 server the convergence test
// runs against, as scripts/build-weed.sh built and cached it (CI's .ci/run
// builds it before the tests; a build takes many minutes, longer than a test
// may). LOGBOOK_WEED names another binary. It skips the test, saying why,
// when there is none.
func weedBinary(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("LOGBOOK_WEED"); p != "" {
		return p
	}
	out, err := exec.Command("bash", "scripts/build-weed.sh", "--cached").Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = clip(string(ee.Stderr), 600)
		}
		t.Skipf("SeaweedFS (weed) is not built, so the real-S3 run is skipped: build it with scripts/build-weed.sh (.ci/run does): %v: %s", err, stderr)
	}
	return strings.TrimSpace(string(out))
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startWeed runs `weed server -s3` on loopback in a temp folder, with
// credentials from an S3 config, and returns its endpoint once it answers.
func startWeed(t *testing.T, bin string) string {
	t.Helper()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "s3.json")
	require.NoError(t, os.WriteFile(cfg, []byte(`{"identities":[{"name":"logbook","credentials":[{"accessKey":"test","secretKey":"test-secret"}],"actions":["Admin","Read","List","Tagging","Write"]}]}`), 0o600))
	s3Port, masterPort, volPort, filerPort := freePort(t), freePort(t), freePort(t), freePort(t)
	cmd := exec.Command(bin, "server", "-dir="+dir, "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
		fmt.Sprintf("-master.port=%d", masterPort), fmt.Sprintf("-volume.port=%d", volPort),
		fmt.Sprintf("-filer.port=%d", filerPort), "-s3", fmt.Sprintf("-s3.port=%d", s3Port),
		"-s3.config="+cfg, "-master.volumeSizeLimitMB=64", "-volume.max=0")
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	endpoint := fmt.Sprintf("127.0.0.1:%d", s3Port)
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test-secret")
	spec := "s3://logbook/probe?endpoint=" + endpoint + "&insecure=1&path-style=1&region=us-east-1"
	deadline := time.Now().Add(90 * time.Second)
	for {
		r, err := remoteOfErr(spec)
		if err == nil {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			err = r.Put(ctx, "probe", strings.NewReader("x"), 1)
			cancel()
			if err == nil {
				return endpoint
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("weed server did not accept an S3 PUT within 90s: %v\n%s", err, clip(logs.String(), 2000))
		}
		time.Sleep(500 * time.Millisecond)
	}
}

func remoteOfErr(spec string) (arcsync.Remote, error) {
	r, err := archivesync.OpenRemote(spec, archivesync.EnsureRemote(context.Background(), spec))
	return r, err
}

// convergeRemotes are the three backends of the convergence test: a folder,
// gofakes3 in process, and SeaweedFS as a separate server process.
var convergeRemotes = []struct {
	name string
	spec func(t *testing.T) string
}{
	syncRemotes[0],
	syncRemotes[1],
	{"seaweedfs", func(t *testing.T) string {
		endpoint := startWeed(t, weedBinary(t))
		return "s3://logbook/machines?endpoint=" + endpoint + "&insecure=1&path-style=1&region=us-east-1"
	}},
}

// TestSyncChildProcess is the sync run in a child process that
// TestSyncThreeMachinesConverge kills with SIGKILL; it does nothing when run
// on its own.
func TestSyncChildProcess(t *testing.T) {
	args := os.Getenv("LOGBOOK_SYNC_CHILD")
	if args == "" {
		return
	}
	var argv []string
	require.NoError(t, json.Unmarshal([]byte(args), &argv))
	os.Exit(run(context.Background(), argv, os.Stdout, os.Stderr))
}

// killedSync starts `logbook --data data sync now` in a child process and
// kills it with SIGKILL after d (if it has not finished).
func killedSync(t *testing.T, data string, d time.Duration) {
	t.Helper()
	argv, _ := json.Marshal([]string{"--data", data, "sync", "now", "--json"})
	cmd := exec.Command(os.Args[0], "-test.run=^TestSyncChildProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), "LOGBOOK_SYNC_CHILD="+string(argv))
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(d):
		_ = cmd.Process.Kill()
		<-done
	}
}

// TestSyncThreeMachinesConverge is issue #15's "done" test on each backend:
// three data dirs (three machines) with different and overlapping sessions
// (one session on two machines with the same bytes, one growing after the
// killed syncs) sync, some syncs killed with SIGKILL at random points; after
// two full rounds every machine has every session, exports are byte
// identical to the sources, and search gives the same results. Then a
// tampered remote object is detected and refused with the archive unchanged.
func TestSyncThreeMachinesConverge(t *testing.T) {
	if testing.Short() {
		t.Skip("three archives, three backends, a server process")
	}
	for _, rm := range convergeRemotes {
		t.Run(rm.name, func(t *testing.T) {
			pass := setupSyncTest(t)
			spec := rm.spec(t)
			want := map[string][]byte{} // session id → source bytes
			var datas, roots []string
			for m := 0; m < 3; m++ {
				datas, roots = append(datas, t.TempDir()), append(roots, t.TempDir())
			}
			for m := 0; m < 3; m++ {
				for k := 0; k < 2; k++ {
					l := dshgen.Generate(dshgen.Options{Seed: uint64(10*m + k + 1), Turns: 6, Cwd: fmt.Sprintf("/home/m%d/p%d", m, k)})
					_, err := l.WriteFile(roots[m], k == 1)
					require.NoError(t, err)
					want[l.ID()] = l.JSONL()
				}
			}
			// A biggish session on machine 0, so that killed syncs have work to cut.
			big := dshgen.Generate(dshgen.Options{Seed: 99, Cwd: "/home/m0/big", TargetBytes: 4 << 20, NoPack: true})
			_, err := big.WriteFile(roots[0], false)
			require.NoError(t, err)
			want[big.ID()] = big.JSONL()
			// The same session with the same bytes on machines 0 and 1.
			same := dshgen.Generate(dshgen.Options{Seed: 77, ID: "session-same", Cwd: "/home/shared", Turns: 5})
			for _, m := range []int{0, 1} {
				_, err := same.WriteFile(roots[m], false)
				require.NoError(t, err)
			}
			want[same.ID()] = same.JSONL()
			// A session on machine 2 that grows between the rounds.
			grow := dshgen.Generate(dshgen.Options{Seed: 88, ID: "session-grow", Cwd: "/home/grow", Turns: 6, NoPack: true})
			p, err := grow.WriteFile(roots[2], false)
			require.NoError(t, err)
			writeLines(t, p, grow, len(grow.Lines())/2)
			want[grow.ID()] = grow.JSONL()

			// An OpenHands conversation on machine 1 travels too.
			oh, err := openhandsgen.Generate(roots[1], openhandsgen.Options{Layout: openhands.LayoutSDK, Seed: 31, Turns: 4})
			require.NoError(t, err)
			ohFiles := openhandstest.ReadTree(t, oh.Unit.Path)

			for m := 0; m < 3; m++ {
				mustJSON[map[string]any](t, datas[m], "import", "--json", roots[m])
				r := syncInit(t, datas[m], spec, pass)
				require.Equal(t, 0, r.code, r.stderr)
			}

			// Killed syncs at random points, then two full rounds.
			rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 15))
			for i := 0; i < 4; i++ {
				m := rng.IntN(3)
				d := time.Duration(50+rng.IntN(1500)) * time.Millisecond
				t.Logf("%s: kill -9 machine %d's sync after %v", rm.name, m, d)
				killedSync(t, datas[m], d)
			}
			// Machine 2's session grows after what the killed syncs may have pushed.
			writeLines(t, p, grow, len(grow.Lines()))
			mustJSON[map[string]any](t, datas[2], "import", "--json", roots[2])
			for round := 0; round < 2; round++ {
				for m := 0; m < 3; m++ {
					sum := mustJSON[map[string]any](t, datas[m], "sync", "now", "--json")
					assert.Empty(t, sum["errors"], "round %d machine %d", round, m)
					assert.EqualValues(t, 0, sum["conflicts"], "round %d machine %d", round, m)
				}
			}

			ids := slices.Sorted(func(yield func(string) bool) {
				for id := range want {
					if !yield(id) {
						return
					}
				}
			})
			var searches []string
			for m := 0; m < 3; m++ {
				var got []string
				for _, sess := range objs(t, mustJSON[[]any](t, datas[m], "sessions", "--json")) {
					got = append(got, sess["id"].(string))
					assert.NotEmpty(t, sess["machine"], "machine %d: %s names its machine", m, sess["id"])
				}
				slices.Sort(got)
				wantIDs := slices.Sorted(slices.Values(append(slices.Clone(ids), oh.Unit.SessionID)))
				assert.Equal(t, wantIDs, got, "machine %d has every session", m)
				out := filepath.Join(t.TempDir(), "oh")
				r := cliData(t, datas[m], "export", "--format", "openhands", "-o", out, oh.Unit.SessionID)
				require.Equal(t, 0, r.code, r.stderr)
				assert.Equal(t, ohFiles, openhandstest.ReadTree(t, out), "machine %d: the OpenHands conversation's files, byte for byte", m)
				for _, id := range ids {
					assert.True(t, bytes.Equal(want[id], exportBytes(t, datas[m], id)), "machine %d: export of %s is the source, byte for byte", m, id)
				}
				hits := mustJSON[map[string]any](t, datas[m], "search", "--json", "--limit", "50", "build")
				var hs []string
				for _, h := range objs(t, hits["hits"]) {
					hs = append(hs, fmt.Sprint(h["session_id"], "/", h["seq"]))
				}
				slices.Sort(hs)
				searches = append(searches, strings.Join(hs, ","))
			}
			assert.NotEmpty(t, searches[0])
			assert.Equal(t, searches[0], searches[1], "same search results")
			assert.Equal(t, searches[0], searches[2], "same search results")

			t.Run("a tampered object is refused", func(t *testing.T) {
				// A fourth machine joins; one piece on the remote is altered.
				fourth := t.TempDir()
				r := syncInit(t, fourth, spec, pass)
				require.Equal(t, 0, r.code, r.stderr)
				remote := remoteOf(t, spec)
				ctx := context.Background()
				var pieces []arcsync.Object
				require.NoError(t, remote.List(ctx, "data/", func(o arcsync.Object) error {
					pieces = append(pieces, o)
					return nil
				}))
				require.NotEmpty(t, pieces)
				victim := pieces[rng.IntN(len(pieces))]
				b, err := arcsync.Get(ctx, remote, victim.Name)
				require.NoError(t, err)
				b[len(b)/2] ^= 0x40
				require.NoError(t, remote.Put(ctx, victim.Name, bytes.NewReader(b), int64(len(b))))
				r = cliData(t, fourth, "sync", "now")
				assert.Equal(t, 1, r.code)
				assert.Contains(t, r.stderr, "refused")
				assert.Contains(t, r.stderr, "the archive is unchanged")
				list := mustJSON[[]any](t, fourth, "sessions", "--json")
				assert.Empty(t, list, "nothing was imported")
			})
		})
	}
}
