// Package s3fake starts gofakes3, an in-process S3, on a real loopback
// HTTP server, for tests of anything that syncs over S3. Only tests import
// it, so gofakes3 never links into Logbook itself.
package s3fake

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/logbook/logbook/sync/s3remote"
)

// Start serves a fresh in-memory S3 until tb ends and returns a Remote on
// bucket "logbook" under prefix, through transport tr (nil: default).
func Start(tb testing.TB, prefix string, tr http.RoundTripper) *s3remote.Remote {
	tb.Helper()
	srv := httptest.NewServer(gofakes3.New(s3mem.New()).Server())
	tb.Cleanup(srv.Close)
	r, err := s3remote.New(s3remote.Config{
		Endpoint:  strings.TrimPrefix(srv.URL, "http://"),
		Bucket:    "logbook",
		Prefix:    prefix,
		AccessKey: "test",
		SecretKey: "test-secret",
		Region:    "us-east-1",
		Insecure:  true,
		PathStyle: true,
		Transport: tr,
	})
	if err != nil {
		tb.Fatal(err)
	}
	if err := r.EnsureBucket(context.Background()); err != nil {
		tb.Fatal(err)
	}
	return r
}
