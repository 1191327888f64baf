package s3remote_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	arcsync "github.com/logbook/logbook/sync"
	"github.com/logbook/logbook/sync/remotetest"
	"github.com/logbook/logbook/sync/s3remote"
	"github.com/logbook/logbook/sync/s3remote/s3fake"
)

func newFake(t testing.TB, prefix string) *s3remote.Remote { return s3fake.Start(t, prefix, nil) }

func newFakeTransport(t testing.TB, prefix string, tr http.RoundTripper) *s3remote.Remote {
	return s3fake.Start(t, prefix, tr)
}

func TestConformance(t *testing.T) {
	remotetest.Run(t, func(t *testing.T) arcsync.Remote { return newFake(t, "") })
}

func TestConformancePrefix(t *testing.T) {
	remotetest.RunOptions(t, func(t *testing.T) arcsync.Remote { return newFake(t, "archives/alice") },
		remotetest.Options{ListObjects: 1100, LargeSize: 20 << 20})
}

// countingTransport counts list requests and can answer 503 to the next
// failures requests, as a throttling S3 does.
type countingTransport struct {
	lists    atomic.Int32
	failures atomic.Int32
}

func (c *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Query().Has("list-type") {
		c.lists.Add(1)
	}
	if c.failures.Add(-1) >= 0 {
		if req.Body != nil {
			req.Body.Close()
		}
		return &http.Response{
			StatusCode: http.StatusServiceUnavailable, Status: "503 Slow Down",
			Header:  http.Header{"Content-Type": {"application/xml"}},
			Body:    http.NoBody,
			Request: req,
		}, nil
	}
	return http.DefaultTransport.RoundTrip(req)
}

func TestListPaginates(t *testing.T) {
	tr := &countingTransport{}
	r := newFakeTransport(t, "", tr)
	ctx := context.Background()
	for i := range 2500 {
		require.NoError(t, r.Put(ctx, fmt.Sprintf("d/%05d", i), strings.NewReader(""), 0))
	}
	tr.lists.Store(0)
	n := 0
	require.NoError(t, r.List(ctx, "d/", func(arcsync.Object) error { n++; return nil }))
	assert.Equal(t, 2500, n)
	assert.GreaterOrEqual(t, tr.lists.Load(), int32(3), "the listing crossed S3's 1000-key pages")
}

func TestThrottlingIsRetried(t *testing.T) {
	tr := &countingTransport{}
	r := newFakeTransport(t, "", tr)
	rr := arcsync.NewRetry(r)
	rr.Base = time.Millisecond
	ctx := context.Background()

	tr.failures.Store(2)
	err := r.Put(ctx, "x", strings.NewReader("v"), 1)
	require.Error(t, err)
	assert.True(t, arcsync.IsRetryable(err), "a 503 is transient: %v", err)

	tr.failures.Store(2)
	require.NoError(t, rr.Put(ctx, "x", strings.NewReader("v"), 1))
	tr.failures.Store(2)
	b, err := arcsync.Get(ctx, rr, "x")
	require.NoError(t, err)
	assert.Equal(t, "v", string(b))
}
