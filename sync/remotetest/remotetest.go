// Package remotetest is the conformance suite every sync.Remote passes, the
// way restic tests its backends: an implementation's test file calls Run
// with a constructor that returns a fresh, empty remote.
package remotetest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	arcsync "github.com/logbook/logbook/sync"
)

// Options tunes the suite for slow remotes. The zero value runs everything.
type Options struct {
	// ListObjects is how many objects the pagination test writes; S3 pages
	// hold 1000 keys, so the default is 1234.
	ListObjects int
	// LargeSize is the size of the streamed object; default 48 MiB.
	LargeSize int64
}

// Run runs the whole suite against remotes made by newRemote.
func Run(t *testing.T, newRemote func(t *testing.T) arcsync.Remote) {
	RunOptions(t, newRemote, Options{})
}

// RunOptions is Run with Options.
func RunOptions(t *testing.T, newRemote func(t *testing.T) arcsync.Remote, opt Options) {
	if opt.ListObjects == 0 {
		opt.ListObjects = 1234
	}
	if opt.LargeSize == 0 {
		opt.LargeSize = 48 << 20
	}
	tests := []struct {
		name string
		fn   func(t *testing.T, r arcsync.Remote)
	}{
		{"PutOpenStat", testPutOpenStat},
		{"ErrNotExist", testNotExist},
		{"Overwrite", testOverwrite},
		{"Delete", testDelete},
		{"EmptyObject", testEmpty},
		{"ListPrefix", testListPrefix},
		{"ListStopsOnError", testListStop},
		{"ListPagination", func(t *testing.T, r arcsync.Remote) { testPagination(t, r, opt.ListObjects) }},
		{"ErrInvalidName", testInvalidNames},
		{"ErrSizeMismatch", testSizeMismatch},
		{"FailedPutInvisible", testFailedPut},
		{"ConcurrentSameName", testConcurrentSame},
		{"LargeStreaming", func(t *testing.T, r arcsync.Remote) { testLarge(t, r, opt.LargeSize) }},
		{"ContextCanceled", testCanceled},
		{"PutCanceledMidStream", testCanceledMidStream},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.fn(t, newRemote(t))
		})
	}
}

func put(t *testing.T, r arcsync.Remote, name string, data []byte) {
	t.Helper()
	require.NoError(t, r.Put(context.Background(), name, bytes.NewReader(data), int64(len(data))))
}

func get(t *testing.T, r arcsync.Remote, name string) []byte {
	t.Helper()
	b, err := arcsync.Get(context.Background(), r, name)
	require.NoError(t, err)
	return b
}

func list(t *testing.T, r arcsync.Remote, prefix string) []string {
	t.Helper()
	var names []string
	require.NoError(t, r.List(context.Background(), prefix, func(o arcsync.Object) error {
		names = append(names, o.Name)
		return nil
	}))
	return names
}

func testPutOpenStat(t *testing.T, r arcsync.Remote) {
	ctx := context.Background()
	data := []byte("hello, remote\n")
	put(t, r, "data/ab/abcdef", data)
	assert.Equal(t, data, get(t, r, "data/ab/abcdef"))
	o, err := r.Stat(ctx, "data/ab/abcdef")
	require.NoError(t, err)
	assert.Equal(t, "data/ab/abcdef", o.Name)
	assert.Equal(t, int64(len(data)), o.Size)
	assert.WithinDuration(t, time.Now(), o.ModTime, time.Hour)
}

func testNotExist(t *testing.T, r arcsync.Remote) {
	ctx := context.Background()
	_, err := r.Open(ctx, "nope/missing")
	assert.True(t, arcsync.IsNotExist(err), "Open: %v", err)
	_, err = r.Stat(ctx, "nope/missing")
	assert.True(t, arcsync.IsNotExist(err), "Stat: %v", err)
	_, err = arcsync.Get(ctx, r, "missing")
	assert.True(t, arcsync.IsNotExist(err), "Get: %v", err)
	assert.False(t, arcsync.IsRetryable(err))
	// A name below an existing object, or naming a "folder", is missing too.
	put(t, r, "dir/obj", []byte("x"))
	_, err = r.Stat(ctx, "dir")
	assert.True(t, arcsync.IsNotExist(err), "Stat of a prefix: %v", err)
	_, err = r.Open(ctx, "dir/obj/below")
	assert.True(t, arcsync.IsNotExist(err), "Open below an object: %v", err)
}

func testOverwrite(t *testing.T, r arcsync.Remote) {
	put(t, r, "heads/m1", []byte("first version, longer"))
	put(t, r, "heads/m1", []byte("second"))
	assert.Equal(t, []byte("second"), get(t, r, "heads/m1"))
	assert.Equal(t, []string{"heads/m1"}, list(t, r, "heads/"))
}

func testDelete(t *testing.T, r arcsync.Remote) {
	ctx := context.Background()
	put(t, r, "a/b", []byte("x"))
	require.NoError(t, r.Delete(ctx, "a/b"))
	_, err := r.Stat(ctx, "a/b")
	assert.True(t, arcsync.IsNotExist(err))
	require.NoError(t, r.Delete(ctx, "a/b"), "deleting twice is not an error")
	require.NoError(t, r.Delete(ctx, "never/was"))
	assert.Empty(t, list(t, r, ""))
}

func testEmpty(t *testing.T, r arcsync.Remote) {
	put(t, r, "empty", nil)
	assert.Empty(t, get(t, r, "empty"))
	o, err := r.Stat(context.Background(), "empty")
	require.NoError(t, err)
	assert.Zero(t, o.Size)
}

func testListPrefix(t *testing.T, r arcsync.Remote) {
	for _, n := range []string{"a/b/c", "a/b-d", "a/bc", "ab", "a-z", "b/a", "a/b/a"} {
		put(t, r, n, []byte(n))
	}
	assert.Equal(t, []string{"a-z", "a/b-d", "a/b/a", "a/b/c", "a/bc", "ab", "b/a"}, list(t, r, ""), "all, in byte order")
	assert.Equal(t, []string{"a/b-d", "a/b/a", "a/b/c", "a/bc"}, list(t, r, "a/"))
	assert.Equal(t, []string{"a/b/a", "a/b/c"}, list(t, r, "a/b/"))
	assert.Equal(t, []string{"a/b-d", "a/b/a", "a/b/c", "a/bc"}, list(t, r, "a/b"), "a prefix is a string prefix, not a folder")
	assert.Equal(t, []string{"a-z", "a/b-d", "a/b/a", "a/b/c", "a/bc", "ab"}, list(t, r, "a"))
	assert.Empty(t, list(t, r, "zzz/"))
	var sizes []int64
	require.NoError(t, r.List(context.Background(), "b/", func(o arcsync.Object) error {
		sizes = append(sizes, o.Size)
		return nil
	}))
	assert.Equal(t, []int64{3}, sizes)
}

func testListStop(t *testing.T, r arcsync.Remote) {
	for i := range 5 {
		put(t, r, fmt.Sprintf("s/%d", i), []byte("x"))
	}
	stop := errors.New("enough")
	n := 0
	err := r.List(context.Background(), "s/", func(arcsync.Object) error {
		n++
		if n == 2 {
			return stop
		}
		return nil
	})
	assert.Same(t, stop, err, "fn's error is returned unchanged")
	assert.Equal(t, 2, n)
}

func testPagination(t *testing.T, r arcsync.Remote, count int) {
	ctx := context.Background()
	want := make([]string, count)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16)
	errs := make(chan error, count)
	for i := range count {
		want[i] = fmt.Sprintf("p/%06d", i)
		wg.Add(1)
		sem <- struct{}{}
		go func(name string) {
			defer wg.Done()
			defer func() { <-sem }()
			if err := r.Put(ctx, name, strings.NewReader("p"), 1); err != nil {
				errs <- err
			}
		}(want[i])
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	put(t, r, "q/outside", []byte("q"))
	got := list(t, r, "p/")
	require.Len(t, got, count)
	assert.Equal(t, want, got)
}

func testInvalidNames(t *testing.T, r arcsync.Remote) {
	ctx := context.Background()
	bad := []string{"", "/abs", "../up", "a/../b", "a/./b", "./a", "a//b", "a/", ".hidden", "a/.tmp-x",
		`a\b`, "a b", "a\x00b", "é", "a:b", "a?b", "a*b", "a%2e", strings.Repeat("x", 513)}
	for _, name := range bad {
		err := r.Put(ctx, name, strings.NewReader("x"), 1)
		assert.ErrorIs(t, err, arcsync.ErrInvalidName, "Put %q", name)
		assert.False(t, arcsync.IsRetryable(err))
		_, err = r.Open(ctx, name)
		assert.ErrorIs(t, err, arcsync.ErrInvalidName, "Open %q", name)
		_, err = r.Stat(ctx, name)
		assert.ErrorIs(t, err, arcsync.ErrInvalidName, "Stat %q", name)
		assert.ErrorIs(t, r.Delete(ctx, name), arcsync.ErrInvalidName, "Delete %q", name)
	}
	for _, prefix := range []string{"../", "/", "a//", "a/../"} {
		err := r.List(ctx, prefix, func(arcsync.Object) error { return nil })
		assert.ErrorIs(t, err, arcsync.ErrInvalidName, "List %q", prefix)
	}
	assert.Empty(t, list(t, r, ""), "nothing was written")
	// Odd but valid characters round-trip.
	put(t, r, "A-Z_a.z-09/x.y", []byte("ok"))
	assert.Equal(t, []byte("ok"), get(t, r, "A-Z_a.z-09/x.y"))
}

func testSizeMismatch(t *testing.T, r arcsync.Remote) {
	ctx := context.Background()
	err := r.Put(ctx, "short", strings.NewReader("abc"), 5)
	assert.ErrorIs(t, err, arcsync.ErrSizeMismatch)
	err = r.Put(ctx, "long", strings.NewReader("abcdef"), 3)
	assert.ErrorIs(t, err, arcsync.ErrSizeMismatch)
	assert.Empty(t, list(t, r, ""), "a mismatched Put leaves nothing")
}

// failingReader yields n bytes of data, then fails.
type failingReader struct {
	n   int
	err error
}

func (f *failingReader) Read(p []byte) (int, error) {
	if f.n == 0 {
		return 0, f.err
	}
	k := min(len(p), f.n)
	for i := range p[:k] {
		p[i] = 'z'
	}
	f.n -= k
	return k, nil
}

func testFailedPut(t *testing.T, r arcsync.Remote) {
	ctx := context.Background()
	boom := errors.New("disk on fire")
	err := r.Put(ctx, "fresh", &failingReader{n: 100 << 10, err: boom}, 1<<20)
	require.Error(t, err)
	_, err = r.Stat(ctx, "fresh")
	assert.True(t, arcsync.IsNotExist(err), "a failed Put of a new name leaves nothing: %v", err)

	put(t, r, "old", []byte("previous"))
	err = r.Put(ctx, "old", &failingReader{n: 100 << 10, err: boom}, 1<<20)
	require.Error(t, err)
	assert.Equal(t, []byte("previous"), get(t, r, "old"), "a failed overwrite keeps the old object")
	assert.Equal(t, []string{"old"}, list(t, r, ""))
}

func testConcurrentSame(t *testing.T, r arcsync.Remote) {
	ctx := context.Background()
	data := bytes.Repeat([]byte("content-addressed "), 20000)
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = r.Put(ctx, "data/same", bytes.NewReader(data), int64(len(data)))
		}()
	}
	// Readers racing the writers see the whole object or none.
	for range 20 {
		b, err := arcsync.Get(ctx, r, "data/same")
		if err == nil {
			require.Equal(t, len(data), len(b), "a reader saw a partial object")
		} else {
			require.True(t, arcsync.IsNotExist(err), "%v", err)
		}
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	assert.Equal(t, sha256.Sum256(data), sha256.Sum256(get(t, r, "data/same")))
	assert.Equal(t, []string{"data/same"}, list(t, r, ""))
}

// patternReader produces size deterministic pseudo-random bytes without
// holding them, so a large Put proves the remote streams.
type patternReader struct {
	rng  *rand.ChaCha8
	left int64
}

func newPattern(size int64) *patternReader {
	return &patternReader{rng: rand.NewChaCha8([32]byte{7}), left: size}
}

func (p *patternReader) Read(b []byte) (int, error) {
	if p.left == 0 {
		return 0, io.EOF
	}
	if int64(len(b)) > p.left {
		b = b[:p.left]
	}
	n, _ := p.rng.Read(b)
	p.left -= int64(n)
	return n, nil
}

func testLarge(t *testing.T, r arcsync.Remote, size int64) {
	ctx := context.Background()
	require.NoError(t, r.Put(ctx, "big/object", newPattern(size), size))
	o, err := r.Stat(ctx, "big/object")
	require.NoError(t, err)
	assert.Equal(t, size, o.Size)
	rc, err := r.Open(ctx, "big/object")
	require.NoError(t, err)
	defer rc.Close()
	got, want := sha256.New(), sha256.New()
	n, err := io.Copy(got, rc)
	require.NoError(t, err)
	assert.Equal(t, size, n)
	io.Copy(want, newPattern(size))
	assert.Equal(t, want.Sum(nil), got.Sum(nil))
}

func testCanceled(t *testing.T, r arcsync.Remote) {
	put(t, r, "x/y", []byte("z"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := r.Put(ctx, "x/new", strings.NewReader("z"), 1)
	assert.ErrorIs(t, err, context.Canceled, "Put")
	assert.False(t, arcsync.IsRetryable(err))
	err = r.List(ctx, "", func(arcsync.Object) error { return nil })
	assert.ErrorIs(t, err, context.Canceled, "List")
	_, err = r.Stat(ctx, "x/y")
	assert.ErrorIs(t, err, context.Canceled, "Stat")
	if rc, err := r.Open(ctx, "x/y"); err == nil {
		// Some transports only notice on the first read.
		_, err = io.ReadAll(rc)
		rc.Close()
		assert.ErrorIs(t, err, context.Canceled, "Open")
	} else {
		assert.ErrorIs(t, err, context.Canceled, "Open")
	}
	assert.ErrorIs(t, r.Delete(ctx, "x/y"), context.Canceled, "Delete")
	assert.Equal(t, []byte("z"), get(t, r, "x/y"))
	_, err = r.Stat(context.Background(), "x/new")
	assert.True(t, arcsync.IsNotExist(err))
}

// blockingReader yields some bytes, then blocks until released.
type blockingReader struct {
	first   bool
	release chan struct{}
}

func (b *blockingReader) Read(p []byte) (int, error) {
	if !b.first {
		b.first = true
		n := min(len(p), 1024)
		return n, nil
	}
	<-b.release
	return 0, io.ErrUnexpectedEOF
}

func testCanceledMidStream(t *testing.T, r arcsync.Remote) {
	ctx, cancel := context.WithCancel(context.Background())
	br := &blockingReader{release: make(chan struct{})}
	done := make(chan error, 1)
	go func() { done <- r.Put(ctx, "slow", br, 1<<20) }()
	time.Sleep(50 * time.Millisecond)
	cancel()
	// The reader is blocked in Read, as a slow disk or pipe would be; the
	// Put may only notice once Read returns, so release it promptly.
	time.Sleep(50 * time.Millisecond)
	close(br.release)
	select {
	case err := <-done:
		require.Error(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("Put did not return after cancel")
	}
	_, err := r.Stat(context.Background(), "slow")
	assert.True(t, arcsync.IsNotExist(err), "a cancelled Put leaves nothing: %v", err)
}
