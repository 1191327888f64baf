package sync_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	arcsync "github.com/logbook/logbook/sync"
	"github.com/logbook/logbook/sync/memremote"
	"github.com/logbook/logbook/sync/remotetest"
)

// flaky fails the first failures calls of each method with err, and can
// break a List part way through.
type flaky struct {
	arcsync.Remote
	failures  int
	err       error
	calls     map[string]int
	listBreak int // fail List after this many objects, once
}

func (f *flaky) fail(op string) error {
	f.calls[op]++
	if f.calls[op] <= f.failures {
		return f.err
	}
	return nil
}

func (f *flaky) List(ctx context.Context, prefix string, fn func(arcsync.Object) error) error {
	if err := f.fail("list"); err != nil {
		return err
	}
	n := 0
	return f.Remote.List(ctx, prefix, func(o arcsync.Object) error {
		n++
		if f.listBreak > 0 && n > f.listBreak {
			f.listBreak = 0
			return arcsync.Transient(errors.New("connection reset mid-listing"))
		}
		return fn(o)
	})
}

func (f *flaky) Open(ctx context.Context, name string) (io.ReadCloser, error) {
	if err := f.fail("open"); err != nil {
		return nil, err
	}
	return f.Remote.Open(ctx, name)
}

func (f *flaky) Put(ctx context.Context, name string, r io.Reader, size int64) error {
	if err := f.fail("put"); err != nil {
		io.CopyN(io.Discard, r, size/2) // consume some input, as a dropped upload does
		return err
	}
	return f.Remote.Put(ctx, name, r, size)
}

func newFlaky(failures int, err error) (*flaky, *arcsync.Retry, *[]time.Duration) {
	f := &flaky{Remote: memremote.New(), failures: failures, err: err, calls: map[string]int{}}
	r := arcsync.NewRetry(f)
	var waits []time.Duration
	r.Sleep = func(ctx context.Context, d time.Duration) error { waits = append(waits, d); return ctx.Err() }
	return f, r, &waits
}

func TestRetry(t *testing.T) {
	ctx := context.Background()
	transient := arcsync.Transient(errors.New("503 slow down"))

	t.Run("OK", func(t *testing.T) {
		f, r, waits := newFlaky(3, transient)
		require.NoError(t, r.Put(ctx, "a", strings.NewReader("hello"), 5), "a seekable reader is rewound")
		assert.Equal(t, 4, f.calls["put"])
		assert.Len(t, *waits, 3)
		for i, d := range *waits {
			assert.LessOrEqual(t, d, r.Base<<i, "backoff %d is capped by the doubling base", i)
		}
		b, err := arcsync.Get(ctx, r, "a")
		require.NoError(t, err)
		assert.Equal(t, "hello", string(b))
	})
	t.Run("GivesUp", func(t *testing.T) {
		f, r, _ := newFlaky(10, transient)
		err := r.Put(ctx, "a", strings.NewReader("hello"), 5)
		assert.ErrorIs(t, err, transient)
		assert.Equal(t, r.Attempts, f.calls["put"])
	})
	t.Run("PermanentNotRetried", func(t *testing.T) {
		f, r, waits := newFlaky(1, errors.New("403 access denied"))
		require.Error(t, r.Put(ctx, "a", strings.NewReader("x"), 1))
		assert.Equal(t, 1, f.calls["put"])
		assert.Empty(t, *waits)
	})
	t.Run("ErrNotExistNotRetried", func(t *testing.T) {
		f, r, _ := newFlaky(0, nil)
		_, err := r.Open(ctx, "missing")
		assert.True(t, arcsync.IsNotExist(err))
		assert.Equal(t, 1, f.calls["open"])
	})
	t.Run("UnseekableReaderTriedOnce", func(t *testing.T) {
		f, r, _ := newFlaky(1, transient)
		err := r.Put(ctx, "a", io.MultiReader(strings.NewReader("x")), 1)
		assert.ErrorIs(t, err, transient)
		assert.Equal(t, 1, f.calls["put"])
	})
	t.Run("ListResumesWithoutDuplicates", func(t *testing.T) {
		f, r, _ := newFlaky(0, nil)
		for i := range 10 {
			require.NoError(t, r.Put(ctx, fmt.Sprintf("n/%02d", i), strings.NewReader("x"), 1))
		}
		f.listBreak = 4
		var names []string
		require.NoError(t, r.List(ctx, "n/", func(o arcsync.Object) error { names = append(names, o.Name); return nil }))
		assert.Len(t, names, 10)
		assert.IsIncreasing(t, names)
	})
	t.Run("ListCallerErrorNotRetried", func(t *testing.T) {
		f, r, _ := newFlaky(0, nil)
		require.NoError(t, r.Put(ctx, "n/1", strings.NewReader("x"), 1))
		mine := arcsync.Transient(errors.New("mine"))
		err := r.List(ctx, "", func(arcsync.Object) error { return mine })
		assert.Same(t, mine, err)
		assert.Equal(t, 1, f.calls["list"])
	})
	t.Run("CanceledDuringBackoff", func(t *testing.T) {
		_, r, _ := newFlaky(10, transient)
		cctx, cancel := context.WithCancel(ctx)
		r.Sleep = func(ctx context.Context, d time.Duration) error { cancel(); return ctx.Err() }
		err := r.Put(cctx, "a", strings.NewReader("x"), 1)
		assert.ErrorIs(t, err, context.Canceled)
	})
}

// The decorator is itself a Remote and passes the suite.
func TestRetryConformance(t *testing.T) {
	remotetest.Run(t, func(t *testing.T) arcsync.Remote { return arcsync.NewRetry(memremote.New()) })
}

func TestValidateName(t *testing.T) {
	for _, ok := range []string{"a", "data/ab/cd", "x.y-z_9", "a/b.c"} {
		assert.NoError(t, arcsync.ValidateName(ok), ok)
	}
	for _, bad := range []string{"", ".", "..", "a/..", "a/.b", "/a", "a/", "a//b", "a\\b", "a\nb"} {
		assert.ErrorIs(t, arcsync.ValidateName(bad), arcsync.ErrInvalidName, bad)
	}
}

// TestGetIsBounded: Get holds at most MaxGet bytes of an object, whatever the
// remote serves; a larger object is an error naming it.
func TestGetIsBounded(t *testing.T) {
	ctx := context.Background()
	r := memremote.New()
	full := strings.Repeat("k", arcsync.MaxGet)
	require.NoError(t, r.Put(ctx, "keys/fits", strings.NewReader(full), int64(len(full))))
	b, err := arcsync.Get(ctx, r, "keys/fits")
	require.NoError(t, err)
	assert.Len(t, b, arcsync.MaxGet)

	over := full + "!"
	require.NoError(t, r.Put(ctx, "keys/over", strings.NewReader(over), int64(len(over))))
	_, err = arcsync.Get(ctx, r, "keys/over")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "keys/over")
}
