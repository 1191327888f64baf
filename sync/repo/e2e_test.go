package repo_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	arcsync "github.com/logbook/logbook/sync"
	"github.com/logbook/logbook/sync/crypt"
	"github.com/logbook/logbook/sync/fsremote"
	"github.com/logbook/logbook/sync/memremote"
	"github.com/logbook/logbook/sync/repo"
	"github.com/logbook/logbook/sync/s3remote/s3fake"
)

// remotes are the real backends every end-to-end test and benchmark runs on.
var remotes = []struct {
	name string
	new  func(testing.TB) arcsync.Remote
}{
	{"folder", func(tb testing.TB) arcsync.Remote { return fsremote.New(tb.TempDir()) }},
	{"s3", func(tb testing.TB) arcsync.Remote { return s3fake.Start(tb, "archive", nil) }},
}

// TestTwoMachines is the whole story on each backend: laptop initialises,
// pushes a 50 MB session and publishes its key; desktop joins with the
// passphrase and pulls; laptop appends 1 MB and syncs, moving ~1 MB; the
// desktop sees the growth as an update, not a conflict.
func TestTwoMachines(t *testing.T) {
	if testing.Short() {
		t.Skip("50 MB session")
	}
	for _, rm := range remotes {
		t.Run(rm.name, func(t *testing.T) {
			ctx := context.Background()
			remote := &counting{Remote: arcsync.NewRetry(rm.new(t))}
			key, err := crypt.Generate()
			require.NoError(t, err)
			laptop := repo.New(remote, key)
			require.NoError(t, laptop.Check(ctx))
			require.NoError(t, laptop.PublishKey(ctx, "two machines, one archive", 10))

			data := logBytes(10, 50_000_000)
			e1, _ := push(t, laptop, data, "sess-1", nil)
			_, err = laptop.Commit(ctx, "laptop", []repo.Entry{e1})
			require.NoError(t, err)

			joined, err := repo.JoinKey(ctx, remote, "two machines, one archive")
			require.NoError(t, err)
			desktop := repo.New(remote, joined)
			require.NoError(t, desktop.Check(ctx))
			ms, err := desktop.Manifests(ctx)
			require.NoError(t, err)
			require.Len(t, ms, 1)
			assert.Equal(t, data, pull(t, desktop, ms[0].Sessions[0]))
			_, err = desktop.Commit(ctx, "desktop", ms[0].Sessions)
			require.NoError(t, err)

			grown := append(bytes.Clone(data), logBytes(11, 1_000_000)...)
			before := remote.put.Load()
			e2, st := push(t, laptop, grown, "sess-1", &e1)
			m, err := laptop.Commit(ctx, "laptop", []repo.Entry{e2})
			require.NoError(t, err)
			moved := remote.put.Load() - before
			t.Logf("%s: 1 MB appended to a 50 MB session: %d bytes uploaded (%d in pieces, %d for manifest+head)",
				rm.name, moved, st.Bytes, moved-st.Bytes)
			// Pieces are compressed: at most the appended megabyte (plus
			// manifest and head), and in practice much less.
			assert.Less(t, moved, int64(1_000_000*1.02+8<<10))
			assert.Equal(t, int64(2), m.Seq)

			ms, err = desktop.Manifests(ctx)
			require.NoError(t, err)
			cs, err := desktop.Conflicts(ctx, ms)
			require.NoError(t, err)
			assert.Empty(t, cs)
			assert.Equal(t, grown, pull(t, desktop, e2))
		})
	}
}

// TestConcurrentMachines has three machines sync at the same time, three
// rounds each, on each backend. They share one session's bytes (so they
// upload the same content-addressed pieces concurrently) and each grows a
// session of its own. Every head and every entry must read back intact.
func TestConcurrentMachines(t *testing.T) {
	for _, rm := range remotes {
		t.Run(rm.name, func(t *testing.T) {
			ctx := context.Background()
			remote := arcsync.NewRetry(rm.new(t))
			key, err := crypt.Generate()
			require.NoError(t, err)
			shared := logBytes(30, 3<<20)
			machines := []string{"m1", "m2", "m3"}
			errs := make(chan error, len(machines))
			for mi, m := range machines {
				go func() {
					errs <- func() error {
						r := repo.New(remote, key)
						own := logBytes(uint64(40+mi), 4<<20)
						var prev *repo.Entry
						for round := 1; round <= 3; round++ {
							d := own[:round*(1<<20)+round*1000]
							e, _, err := r.Push(ctx, bytes.NewReader(d), int64(len(d)), repo.Entry{SessionID: m + "-own"}, prev)
							if err != nil {
								return err
							}
							prev = &e
							s, _, err := r.Push(ctx, bytes.NewReader(shared), int64(len(shared)), repo.Entry{SessionID: "shared"}, nil)
							if err != nil {
								return err
							}
							if _, err := r.Commit(ctx, m, []repo.Entry{e, s}); err != nil {
								return err
							}
						}
						return nil
					}()
				}()
			}
			for range machines {
				require.NoError(t, <-errs)
			}
			r := repo.New(remote, key)
			ms, err := r.Manifests(ctx)
			require.NoError(t, err)
			require.Len(t, ms, 3)
			for _, m := range ms {
				assert.Equal(t, int64(3), m.Seq, m.Machine)
				for _, e := range m.Sessions {
					var b bytes.Buffer
					require.NoError(t, r.Pull(ctx, e, &b), "%s %s", m.Machine, e.SessionID)
				}
			}
			cs, err := r.Conflicts(ctx, ms)
			require.NoError(t, err)
			assert.Empty(t, cs)
		})
	}
}

func TestPushCanceled(t *testing.T) {
	r := repo.New(memremote.New(), mustKey(t))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	data := logBytes(50, 3<<20)
	_, _, err := r.Push(ctx, bytes.NewReader(data), int64(len(data)), repo.Entry{SessionID: "s"}, nil)
	assert.ErrorIs(t, err, context.Canceled)
	n := 0
	require.NoError(t, r.Remote.List(context.Background(), "", func(arcsync.Object) error { n++; return nil }))
	assert.Zero(t, n)
}
