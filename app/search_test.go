package app

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// newSearchServer is newTestServer over an archive holding a generated
// session, serving requests under contexts derived from base.
func newSearchServer(t *testing.T, base context.Context) *testServer {
	t.Helper()
	ta := newTestApp(t)
	ta.generate(t, 1, "/home/u/p")
	run := ta.importNow(t)
	require.Empty(t, run.Error)
	srv := httptest.NewUnstartedServer(nil)
	srv.Config.BaseContext = func(net.Listener) context.Context { return base }
	addr := srv.Listener.Addr().String()
	s := NewServer(ta.App, ta.hub, ServerOptions{Addr: addr, Token: testToken, Assets: testAssets})
	srv.Config.Handler = s
	srv.Start()
	t.Cleanup(srv.Close)
	t.Cleanup(s.Close)
	_, port, _ := net.SplitHostPort(addr)
	return &testServer{testApp: ta, srv: srv, s: s, addr: addr, port: port}
}

// TestSearchRunsUnderTheRequest: the HTTP server runs a search under the
// request's context, so it stops when the client goes. Here every request's
// context is cancelled from the start: the search stops at once, while a
// method that is not a search still answers.
func TestSearchRunsUnderTheRequest(t *testing.T) {
	live := newSearchServer(t, context.Background())
	code, body := live.call(t, "Search", `[{"query":"the"}]`)
	require.Equal(t, http.StatusOK, code, body)
	var res struct{ Total int }
	require.NoError(t, json.Unmarshal([]byte(body), &res))
	require.Positive(t, res.Total, "the generated session holds the word")

	gone, cancel := context.WithCancel(context.Background())
	cancel()
	ts := newSearchServer(t, gone)
	code, body = ts.call(t, "Search", `[{"query":"the"}]`)
	assert.Equal(t, http.StatusInternalServerError, code)
	assert.JSONEq(t, `{"error":"Cancelled"}`, body)
	code, body = ts.call(t, "Info", `[]`)
	assert.Equal(t, http.StatusOK, code, body)
}

// TestSearchHugeQuery: a query of a megabyte (what a client may POST) is
// refused at once, naming the limit, instead of running for minutes.
func TestSearchHugeQuery(t *testing.T) {
	ts := newSearchServer(t, context.Background())
	q := strings.Repeat("a~2 ", 250_000)
	b, err := json.Marshal([]any{map[string]string{"query": q}})
	require.NoError(t, err)
	start := time.Now()
	code, body := ts.call(t, "Search", string(b))
	assert.Equal(t, http.StatusUnprocessableEntity, code)
	assert.Contains(t, body, "the query is 1000000 bytes, over the limit of 4096 bytes")
	assert.Less(t, time.Since(start), 2*time.Second)
}

func TestSearchLimitRange(t *testing.T) {
	ta := newTestApp(t)
	for _, n := range []int{-1, 501} {
		_, err := ta.Search(SearchRequest{Query: "x", Limit: n})
		assert.EqualError(t, err, "limit must be between 1 and 500 (0 for the default, 20)")
	}
	_, err := ta.Search(SearchRequest{Query: "x", Limit: 0})
	assert.NoError(t, err)
}
