package repo_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	gosync "sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	arcsync "github.com/logbook/logbook/sync"
	"github.com/logbook/logbook/sync/crypt"
	"github.com/logbook/logbook/sync/fsremote"
	"github.com/logbook/logbook/sync/memremote"
	"github.com/logbook/logbook/sync/repo"
)

// counting is a Remote decorator that counts bytes moved each way.
type counting struct {
	arcsync.Remote
	put, got atomic.Int64
	puts     atomic.Int64
}

func (c *counting) Put(ctx context.Context, name string, r io.Reader, size int64) error {
	err := c.Remote.Put(ctx, name, r, size)
	if err == nil {
		c.put.Add(size)
		c.puts.Add(1)
	}
	return err
}

func (c *counting) Open(ctx context.Context, name string) (io.ReadCloser, error) {
	rc, err := c.Remote.Open(ctx, name)
	if err != nil {
		return nil, err
	}
	return countReader{rc, &c.got}, nil
}

type countReader struct {
	io.ReadCloser
	n *atomic.Int64
}

func (c countReader) Read(p []byte) (int, error) {
	n, err := c.ReadCloser.Read(p)
	c.n.Add(int64(n))
	return n, err
}

func mustKey(t testing.TB) *crypt.Key {
	k, err := crypt.Generate()
	require.NoError(t, err)
	return k
}

// logBytes makes n bytes that look like a JSONL session log.
func logBytes(seed uint64, n int) []byte {
	rng := rand.New(rand.NewPCG(seed, seed))
	b := make([]byte, 0, n+200)
	for len(b) < n {
		b = append(b, `{"type":"assistant","uuid":"`...)
		b = strconv.AppendUint(b, rng.Uint64(), 16)
		b = append(b, `","text":"line `...)
		b = strconv.AppendInt(b, int64(len(b)), 10)
		b = append(b, ' ')
		b = strconv.AppendUint(b, rng.Uint64(), 36)
		b = append(b, "\"}\n"...)
	}
	return b[:n]
}

func push(t testing.TB, r *repo.Repo, data []byte, id string, prev *repo.Entry) (repo.Entry, repo.PushStats) {
	t.Helper()
	e, st, err := r.Push(context.Background(), bytes.NewReader(data), int64(len(data)), repo.Entry{SessionID: id, Agent: "claude"}, prev)
	require.NoError(t, err)
	return e, st
}

func pull(t testing.TB, r *repo.Repo, e repo.Entry) []byte {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, r.Pull(context.Background(), e, &b))
	return b.Bytes()
}

func TestPushPull(t *testing.T) {
	r := repo.New(fsremote.New(t.TempDir()), mustKey(t))
	data := logBytes(1, 5<<20+12345)
	e, st := push(t, r, data, "s1", nil)
	assert.Equal(t, int64(len(data)), e.Length)
	assert.Len(t, e.Pieces, 6)
	assert.Equal(t, 6, st.Pieces)
	assert.Equal(t, int64(1), e.Generation)
	assert.Equal(t, data, pull(t, r, e))

	t.Run("Unchanged", func(t *testing.T) {
		e2, st := push(t, r, data, "s1", &e)
		assert.Zero(t, st.Bytes)
		assert.Equal(t, 6, st.Kept)
		assert.Equal(t, e.Generation, e2.Generation)
	})
	t.Run("Empty", func(t *testing.T) {
		e, _ := push(t, r, nil, "empty", nil)
		assert.Empty(t, pull(t, r, e))
	})
	t.Run("DedupeAcrossSessions", func(t *testing.T) {
		_, st := push(t, r, data, "copy-of-s1", nil)
		assert.Zero(t, st.Pieces)
		assert.Equal(t, 6, st.Existing)
	})
}

func TestAppendMovesOnlyNewBytes(t *testing.T) {
	cr := &counting{Remote: memremote.New()}
	r := repo.New(cr, mustKey(t))
	data := logBytes(2, 3<<20+777)
	e1, _ := push(t, r, data, "s", nil)

	// Random bytes do not compress: what moves is the appended bytes
	// themselves, never the old ones.
	appended := make([]byte, 1_000_000)
	_, _ = rand.NewChaCha8([32]byte{3}).Read(appended)
	grown := append(bytes.Clone(data), appended...)
	before := cr.put.Load()
	e2, st := push(t, r, grown, "s", &e1)
	moved := cr.put.Load() - before
	t.Logf("append 1 MB: %d bytes in %d pieces", moved, st.Pieces)
	assert.Equal(t, len(e1.Pieces), st.Kept, "old pieces kept, including the partial last one")
	assert.InDelta(t, 1_000_000, moved, 1_000_000*0.01, "about the appended bytes")
	assert.Equal(t, e1.Generation+1, e2.Generation)
	assert.Equal(t, repo.Prefix, repo.Compare(e1, e2))
	assert.Equal(t, grown, pull(t, r, e2))
}

// Pieces are compressed before encryption: a JSONL-like log moves far
// fewer bytes than it holds, and still pulls back byte for byte.
func TestPiecesCompressed(t *testing.T) {
	cr := &counting{Remote: memremote.New()}
	r := repo.New(cr, mustKey(t))
	data := logBytes(5, 3<<20)
	e, st := push(t, r, data, "s", nil)
	t.Logf("%d bytes of log: %d bytes stored", len(data), st.Bytes)
	assert.Equal(t, cr.put.Load(), st.Bytes)
	assert.Less(t, st.Bytes, int64(len(data))*6/10, "zstd before age")
	assert.Equal(t, data, pull(t, r, e))
}

func TestFragmentsConsolidate(t *testing.T) {
	r := repo.New(memremote.New(), mustKey(t))
	r.PieceSize = 64 << 10
	data := logBytes(4, 600<<10)
	var prev *repo.Entry
	// Many small syncs of a growing log.
	for n := 1000; n <= len(data); n += 7000 {
		e, _ := push(t, r, data[:n], "s", prev)
		prev = &e
	}
	e, _ := push(t, r, data, "s", prev)
	perCell := map[int64]int{}
	for _, p := range e.Pieces {
		perCell[p.Off/r.PieceSize]++
	}
	for cell, n := range perCell {
		assert.LessOrEqual(t, n, r.MaxFragments, "cell %d", cell)
	}
	assert.Equal(t, data, pull(t, r, e))
}

func TestRewriteFallsBackToGrid(t *testing.T) {
	r := repo.New(memremote.New(), mustKey(t))
	data := logBytes(5, 4<<20)
	e1, _ := push(t, r, data, "s", nil)
	changed := bytes.Clone(data)
	changed[3<<20+10] ^= 1 // in place, in the 4th cell
	e2, st := push(t, r, changed, "s", &e1)
	assert.Equal(t, 1, st.Pieces, "only the changed cell is uploaded")
	assert.Equal(t, 3, st.Existing)
	assert.Equal(t, repo.Diverged, repo.Compare(e1, e2))
	assert.Equal(t, changed, pull(t, r, e2))
}

// failAfter fails every Put after the first n.
type failAfter struct {
	arcsync.Remote
	n atomic.Int64
}

func (f *failAfter) Put(ctx context.Context, name string, r io.Reader, size int64) error {
	if f.n.Add(-1) < 0 {
		return errors.New("connection lost")
	}
	return f.Remote.Put(ctx, name, r, size)
}

func TestPushResumes(t *testing.T) {
	mem := memremote.New()
	k := mustKey(t)
	fa := &failAfter{Remote: mem}
	fa.n.Store(3)
	r := repo.New(fa, k)
	r.Parallel = 1
	data := logBytes(6, 8<<20)
	_, _, err := r.Push(context.Background(), bytes.NewReader(data), int64(len(data)), repo.Entry{SessionID: "s"}, nil)
	require.Error(t, err)

	cr := &counting{Remote: mem}
	r2 := repo.New(cr, k)
	e, st := push(t, r2, data, "s", nil)
	assert.Equal(t, 3, st.Existing, "pieces from the interrupted run are reused")
	assert.Equal(t, 5, st.Pieces)
	assert.Equal(t, data, pull(t, r2, e))
}

var hexName = regexp.MustCompile(`^(data/[0-9a-f]{2}/[0-9a-f]{64}|manifests/[0-9a-f]{32}/[0-9a-f]{64}|heads/[0-9a-f]{32}|keys/[0-9a-f]{16})$`)

func TestRemoteRevealsNothing(t *testing.T) {
	root := t.TempDir()
	r := repo.New(fsremote.New(root), mustKey(t))
	secret := "SECRETPROJECT"
	data := []byte(`{"cwd":"/home/alice/` + secret + `","title":"` + secret + ` launch"}` + "\n")
	e, _ := push(t, r, data, "session-"+secret, nil)
	e.SourceKind = "claude-projects"
	_, err := r.Commit(context.Background(), "laptop-"+secret, []repo.Entry{e})
	require.NoError(t, err)
	require.NoError(t, r.PublishKey(context.Background(), "pass phrase", 10))

	n := 0
	require.NoError(t, filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		require.NoError(t, err)
		if info.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		assert.Regexp(t, hexName, filepath.ToSlash(rel))
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		assert.NotContains(t, string(b), secret, rel)
		assert.NotContains(t, string(b), "SECRETPROJECT"[:6], rel)
		n++
		return nil
	}))
	assert.Equal(t, 4, n, "one piece, one manifest, one head, one key")
}

func TestWrongKeyAndTampering(t *testing.T) {
	root := t.TempDir()
	fs := fsremote.New(root)
	r := repo.New(fs, mustKey(t))
	data := logBytes(7, 2<<20+5)
	e, _ := push(t, r, data, "s", nil)
	_, err := r.Commit(context.Background(), "m1", []repo.Entry{e})
	require.NoError(t, err)

	t.Run("ErrWrongKey", func(t *testing.T) {
		other := repo.New(fs, mustKey(t))
		assert.ErrorIs(t, other.Check(context.Background()), crypt.ErrWrongKey)
		_, err := other.Manifests(context.Background())
		assert.ErrorIs(t, err, crypt.ErrWrongKey)
		// Piece names are keyed too: another key does not even find them.
		err = other.Pull(context.Background(), e, io.Discard)
		assert.True(t, arcsync.IsNotExist(err), "%v", err)
		assert.NoError(t, r.Check(context.Background()))
	})
	t.Run("ErrCorruptFlippedByte", func(t *testing.T) {
		var piece string
		require.NoError(t, fs.List(context.Background(), "data/", func(o arcsync.Object) error { piece = o.Name; return nil }))
		p := filepath.Join(root, filepath.FromSlash(piece))
		orig, err := os.ReadFile(p)
		require.NoError(t, err)
		for _, at := range []int{60, len(orig) - 3} { // in the age header; in the payload
			bad := bytes.Clone(orig)
			bad[at] ^= 0x01
			require.NoError(t, os.WriteFile(p, bad, 0o600))
			err = r.Pull(context.Background(), e, io.Discard)
			assert.ErrorIs(t, err, crypt.ErrCorrupt, "flip at %d", at)
		}
		require.NoError(t, os.WriteFile(p, orig, 0o600))
		require.NoError(t, r.Pull(context.Background(), e, io.Discard))
	})
	t.Run("ErrCorruptSwappedPieces", func(t *testing.T) {
		var names []string
		require.NoError(t, fs.List(context.Background(), "data/", func(o arcsync.Object) error { names = append(names, o.Name); return nil }))
		a, b := filepath.Join(root, names[0]), filepath.Join(root, names[1])
		ab, _ := os.ReadFile(a)
		bb, _ := os.ReadFile(b)
		require.NoError(t, os.WriteFile(a, bb, 0o600))
		require.NoError(t, os.WriteFile(b, ab, 0o600))
		err := r.Pull(context.Background(), e, io.Discard)
		assert.ErrorIs(t, err, crypt.ErrCorrupt, "authentic pieces under the wrong names are caught")
	})
}

func TestManifests(t *testing.T) {
	ctx := context.Background()
	mem := memremote.New()
	k := mustKey(t)
	r := repo.New(mem, k)
	e, _ := push(t, r, []byte("hello\n"), "s1", nil)

	_, err := r.Head(ctx, "m1")
	assert.True(t, arcsync.IsNotExist(err))

	m1, err := r.Commit(ctx, "m1", []repo.Entry{e})
	require.NoError(t, err)
	m2, err := r.Commit(ctx, "m1", []repo.Entry{e})
	require.NoError(t, err)
	assert.Equal(t, int64(2), m2.Seq)
	assert.Equal(t, m1.Name, m2.Prev)
	h, err := r.Head(ctx, "m1")
	require.NoError(t, err)
	assert.Equal(t, m2.Name, h.Name)
	require.Len(t, h.Sessions, 1)
	assert.Equal(t, e.Hash, h.Sessions[0].Hash)

	t.Run("TwoMachinesAtOnce", func(t *testing.T) {
		var wg gosync.WaitGroup
		for _, m := range []string{"m2", "m3", "m4"} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := repo.New(mem, k)
				for i := range 5 {
					d := logBytes(uint64(i), 100_000+i)
					e, _, err := r.Push(ctx, bytes.NewReader(d), int64(len(d)), repo.Entry{SessionID: m + "-s"}, nil)
					assert.NoError(t, err)
					_, err = r.Commit(ctx, m, []repo.Entry{e})
					assert.NoError(t, err)
				}
			}()
		}
		wg.Wait()
		ms, err := r.Manifests(ctx)
		require.NoError(t, err)
		require.Len(t, ms, 4)
		seqs := map[string]int64{}
		for _, m := range ms {
			seqs[m.Machine] = m.Seq
		}
		assert.Equal(t, map[string]int64{"m1": 2, "m2": 5, "m3": 5, "m4": 5}, seqs)
	})
	t.Run("ErrCorruptMovedHead", func(t *testing.T) {
		// An authentic head copied into another machine's slot.
		other := repo.New(memremote.New(), k)
		e, _ := push(t, other, []byte("x"), "s", nil)
		_, err := other.Commit(ctx, "a", []repo.Entry{e})
		require.NoError(t, err)
		_, err = other.Commit(ctx, "b", []repo.Entry{e})
		require.NoError(t, err)
		var heads []string
		require.NoError(t, other.Remote.List(ctx, "heads/", func(o arcsync.Object) error { heads = append(heads, o.Name); return nil }))
		b, err := arcsync.Get(ctx, other.Remote, heads[0])
		require.NoError(t, err)
		require.NoError(t, other.Remote.Put(ctx, heads[1], bytes.NewReader(b), int64(len(b))))
		_, err = other.Manifests(ctx)
		assert.ErrorIs(t, err, crypt.ErrCorrupt)
	})
}

func TestConflicts(t *testing.T) {
	ctx := context.Background()
	mem := memremote.New()
	k := mustKey(t)
	r := repo.New(mem, k)
	base := logBytes(8, 1<<20+500)
	grown := append(bytes.Clone(base), []byte("more\n")...)
	forked := append(bytes.Clone(base), []byte("other\n")...)

	eBase, _ := push(t, r, base, "s", nil)
	eGrown, _ := push(t, r, grown, "s", &eBase)
	eFresh, _ := push(t, r, grown, "s", nil) // same bytes, grid pieces
	eFork, _ := push(t, r, forked, "s", &eBase)
	eSame, _ := push(t, r, []byte("x"), "same", nil)

	assert.Equal(t, repo.Prefix, repo.Compare(eBase, eGrown))
	assert.Equal(t, repo.Extends, repo.Compare(eGrown, eBase))
	rel, err := r.Relate(ctx, eGrown, eFork)
	require.NoError(t, err)
	assert.Equal(t, repo.Diverged, rel)
	assert.Equal(t, repo.Unknown, repo.Compare(eBase, eFresh), "boundaries differ")
	rel, err = r.Relate(ctx, eBase, eFresh)
	require.NoError(t, err)
	assert.Equal(t, repo.Prefix, rel, "resolved by reading bytes")
	eOther, _ := push(t, r, logBytes(9, 2<<20), "s", nil)
	rel, err = r.Relate(ctx, eBase, eOther)
	require.NoError(t, err)
	assert.Equal(t, repo.Diverged, rel)

	ms := []repo.Manifest{
		{Machine: "a", Sessions: []repo.Entry{eBase, eSame}},
		{Machine: "b", Sessions: []repo.Entry{eGrown, eSame}},
		{Machine: "c", Sessions: []repo.Entry{eFresh}},
	}
	cs, err := r.Conflicts(ctx, ms)
	require.NoError(t, err)
	assert.Empty(t, cs, "growth seen from several machines is not a conflict")

	ms = append(ms, repo.Manifest{Machine: "d", Sessions: []repo.Entry{eFork}})
	cs, err = r.Conflicts(ctx, ms)
	require.NoError(t, err)
	require.Len(t, cs, 1)
	assert.Equal(t, "s", cs[0].SessionID)
	assert.Len(t, cs[0].Versions, 4, "every version is kept and reported")
	assert.Equal(t, forked, pull(t, r, eFork))
	assert.Equal(t, grown, pull(t, r, eGrown))
}

func TestJoinKey(t *testing.T) {
	ctx := context.Background()
	mem := memremote.New()
	r := repo.New(mem, mustKey(t))
	_, err := repo.JoinKey(ctx, mem, "pw")
	assert.ErrorIs(t, err, repo.ErrNoPublishedKey)
	require.NoError(t, r.Check(ctx), "an empty remote fits any key")
	require.NoError(t, r.PublishKey(ctx, "correct horse", 10))
	require.NoError(t, r.Check(ctx))
	assert.ErrorIs(t, repo.New(mem, mustKey(t)).Check(ctx), crypt.ErrWrongKey, "told by the published key's name alone")
	_, err = repo.JoinKey(ctx, mem, "wrong")
	assert.ErrorIs(t, err, crypt.ErrWrongPassphrase)
	k, err := repo.JoinKey(ctx, mem, "correct horse")
	require.NoError(t, err)
	assert.Equal(t, r.Key.Fingerprint(), k.Fingerprint())
}
