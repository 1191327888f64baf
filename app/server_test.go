package app

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const testToken = "test-token-123"

// testServer is a real HTTP server over a testApp.
type testServer struct {
	*testApp
	srv  *httptest.Server
	s    *Server
	addr string // 127.0.0.1:PORT
	port string
}

var testAssets = fstest.MapFS{
	"index.html":             {Data: []byte(`<!doctype html><title>Logbook</title><script src="./assets/index-abc123.js"></script>`)},
	"assets/index-abc123.js": {Data: []byte(`console.log("hi")`)},
	".gitkeep":               {Data: nil},
}

func newTestServer(t *testing.T, opts ...func(*ServerOptions)) *testServer {
	t.Helper()
	return newTestServerWith(t, func(*Deps) {}, opts...)
}

// newTestServer is newTestServer on an app whose Deps deps changes.
func newTestServerWith(t *testing.T, deps func(*Deps), opts ...func(*ServerOptions)) *testServer {
	t.Helper()
	ta := newTestApp(t, deps)
	srv := httptest.NewUnstartedServer(nil)
	addr := srv.Listener.Addr().String()
	o := ServerOptions{Addr: addr, Token: testToken, Assets: testAssets, KeepAlive: 50 * time.Millisecond}
	for _, f := range opts {
		f(&o)
	}
	s := NewServer(ta.App, ta.hub, o)
	srv.Config.Handler = s
	srv.Start()
	t.Cleanup(srv.Close)
	t.Cleanup(s.Close) // runs first: ends event streams so srv.Close does not wait on them
	_, port, _ := net.SplitHostPort(addr)
	return &testServer{testApp: ta, srv: srv, s: s, addr: addr, port: port}
}

// req builds a request to the server; with auth it carries the token header.
func (ts *testServer) req(t *testing.T, method, path, body string, auth bool) *http.Request {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	r, err := http.NewRequest(method, "http://"+ts.addr+path, rd)
	require.NoError(t, err)
	if body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	if auth {
		r.Header.Set("X-Logbook-Token", testToken)
	}
	return r
}

// do sends r without following redirects and returns the status and body.
func do(t *testing.T, r *http.Request) (*http.Response, string) {
	t.Helper()
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(r)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(b)
}

// call POSTs /api/method with a JSON body and the token header.
func (ts *testServer) call(t *testing.T, method, body string) (int, string) {
	t.Helper()
	resp, b := do(t, ts.req(t, "POST", "/api/"+method, body, true))
	return resp.StatusCode, b
}

func TestServerToken(t *testing.T) {
	ts := newTestServer(t)
	assert.Equal(t, "http://"+ts.addr+"/?token="+testToken, ts.s.URL())

	t.Run("the link serves the page and sets no cookie", func(t *testing.T) {
		resp, body := do(t, ts.req(t, "GET", "/?token="+testToken, "", false))
		assert.Equal(t, http.StatusOK, resp.StatusCode)
		assert.Contains(t, body, "<title>Logbook</title>")
		assert.Empty(t, resp.Cookies(), "a cookie for 127.0.0.1 would go to every port of the host")
		assert.Equal(t, "no-store", resp.Header.Get("Cache-Control"), "the URL with the token stays out of the cache")
		assert.Equal(t, "no-referrer", resp.Header.Get("Referrer-Policy"))
		assert.NotContains(t, body, testToken)
	})
	t.Run("a wrong token on the link is refused", func(t *testing.T) {
		resp, body := do(t, ts.req(t, "GET", "/?token=guess", "", false))
		assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
		assert.Empty(t, resp.Cookies())
		assert.Contains(t, body, "logbook serve")
	})
	t.Run("the page itself holds no data and needs no token (a reload has none in its URL)", func(t *testing.T) {
		resp, body := do(t, ts.req(t, "GET", "/", "", false))
		assert.Equal(t, http.StatusOK, resp.StatusCode)
		assert.NotContains(t, body, testToken)
	})
	t.Run("the API needs the header", func(t *testing.T) {
		resp, body := do(t, ts.req(t, "POST", "/api/Info", "[]", false))
		assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
		assert.Contains(t, body, `"error"`)

		r := ts.req(t, "POST", "/api/Info", "[]", true)
		resp, _ = do(t, r)
		assert.Equal(t, 200, resp.StatusCode)
		r = ts.req(t, "POST", "/api/Info", "[]", false)
		r.Header.Set("X-Logbook-Token", "wrong")
		resp, _ = do(t, r)
		assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	})
	t.Run("a cookie is no credential", func(t *testing.T) {
		for _, name := range []string{"logbook_token_" + ts.port, "logbook_token", "token"} {
			r := ts.req(t, "POST", "/api/Info", "[]", false)
			r.AddCookie(&http.Cookie{Name: name, Value: testToken})
			resp, _ := do(t, r)
			assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, name)
		}
	})
	t.Run("an old version's cookie is expired", func(t *testing.T) {
		r := ts.req(t, "GET", "/", "", false)
		r.AddCookie(&http.Cookie{Name: "logbook_token_" + ts.port, Value: testToken})
		resp, _ := do(t, r)
		cs := resp.Cookies()
		require.Len(t, cs, 1)
		assert.Equal(t, "logbook_token_"+ts.port, cs[0].Name)
		assert.Empty(t, cs[0].Value)
		assert.Negative(t, cs[0].MaxAge)
	})
	t.Run("only the event stream takes the token in its URL", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		resp, err := http.DefaultClient.Do(ts.req(t, "GET", "/api/events?token="+testToken, "", false).WithContext(ctx))
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, 200, resp.StatusCode)
		resp, _ = do(t, ts.req(t, "GET", "/api/events?token=wrong", "", false))
		assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
		resp, _ = do(t, ts.req(t, "GET", "/api/events", "", false))
		assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
		resp, _ = do(t, ts.req(t, "POST", "/api/Info?token="+testToken, "[]", false))
		assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "a call's URL is no place for the token")
	})
}

func TestServerHostAndOrigin(t *testing.T) {
	ts := newTestServer(t)
	tests := []struct {
		name   string
		host   string
		origin string
		status int
	}{
		{"listen address", ts.addr, "", 200},
		{"localhost alias", "localhost:" + ts.port, "", 200},
		{"IPv6 loopback alias", "[::1]:" + ts.port, "", 200},
		{"same origin", ts.addr, "http://" + ts.addr, 200},
		{"DNS rebinding", "attacker.example:" + ts.port, "", http.StatusMisdirectedRequest},
		{"DNS rebinding with its own origin", "attacker.example:" + ts.port, "http://attacker.example:" + ts.port, http.StatusMisdirectedRequest},
		{"loopback on another port", "127.0.0.1:1", "", http.StatusMisdirectedRequest},
		{"another local page", ts.addr, "http://127.0.0.1:9999", http.StatusForbidden},
		{"another site", ts.addr, "https://evil.example", http.StatusForbidden},
		{"opaque origin", ts.addr, "null", http.StatusForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ts.req(t, "POST", "/api/Info", "[]", true)
			r.Host = tt.host
			if tt.origin != "" {
				r.Header.Set("Origin", tt.origin)
			}
			resp, body := do(t, r)
			assert.Equal(t, tt.status, resp.StatusCode, body)
		})
	}

	t.Run("AllowRemote accepts other host names, not other origins", func(t *testing.T) {
		rs := newTestServer(t, func(o *ServerOptions) { o.AllowRemote = true })
		r := rs.req(t, "POST", "/api/Info", "[]", true)
		r.Host = "workstation.lan:" + rs.port
		resp, _ := do(t, r)
		assert.Equal(t, 200, resp.StatusCode)
		r = rs.req(t, "POST", "/api/Info", "[]", false)
		r.Host = "workstation.lan:" + rs.port
		resp, _ = do(t, r)
		assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "the token still applies")
		r = rs.req(t, "POST", "/api/Info", "[]", true)
		r.Header.Set("Origin", "http://evil.example")
		resp, _ = do(t, r)
		assert.Equal(t, http.StatusForbidden, resp.StatusCode)
	})
}

func TestServerCalls(t *testing.T) {
	ts := newTestServer(t)
	l := ts.generate(t, 20, "/home/u/web")
	ts.importNow(t)

	t.Run("Info", func(t *testing.T) {
		status, body := ts.call(t, "Info", "[]")
		require.Equal(t, 200, status, body)
		var info Info
		require.NoError(t, json.Unmarshal([]byte(body), &info))
		assert.Equal(t, "web", info.Mode)
		assert.Equal(t, 1, info.Sessions)
	})
	t.Run("an empty body is no arguments", func(t *testing.T) {
		status, _ := ts.call(t, "Sessions", " ")
		assert.Equal(t, 200, status)
	})
	t.Run("Sessions", func(t *testing.T) {
		status, body := ts.call(t, "Sessions", "[]")
		require.Equal(t, 200, status)
		var ss []map[string]any
		require.NoError(t, json.Unmarshal([]byte(body), &ss))
		require.Len(t, ss, 1)
		assert.Equal(t, l.ID(), ss[0]["id"])
	})
	t.Run("struct argument", func(t *testing.T) {
		status, body := ts.call(t, "Search", `[{"query":"anything","sort":"recent","limit":5}]`)
		assert.Equal(t, 200, status, body)
		assert.Contains(t, body, `"hits"`)
		assert.Contains(t, body, `"total_exact":true`)
		status, body = ts.call(t, "Search", `[{"query":"anything","limit":5,"exhaustive":true}]`)
		assert.Equal(t, 200, status, body)
		assert.Contains(t, body, `"total_exact":true`)
		assert.NotContains(t, body, `"ranked_among"`, "omitted when ranked across all matches")
	})
	t.Run("error-only method", func(t *testing.T) {
		status, body := ts.call(t, "StartImport", "[]")
		assert.Equal(t, 200, status, body)
		assert.Equal(t, "null\n", body)
		ts.waitImport(t)
	})
	errs := []struct {
		name, method, body string
		status             int
		msg                string
	}{
		{"ErrNotFound", "Session", `["session-nosuch"]`, 404, `Not found: session \"session-nosuch\"`},
		{"invalid input", "Session", `[""]`, 422, "a session id is required"},
		{"query error", "Search", `[{"query":"\"open"}]`, 422, "query: col"},
		{"unknown method", "DropTables", `[]`, 404, "no such method"},
		{"lifecycle hooks are not API", "Shutdown", `[null]`, 404, "no such method"},
		{"too few arguments", "Session", `[]`, 400, "Session takes 1 arguments, got 0"},
		{"too many arguments", "Info", `[1]`, 400, "Info takes 0 arguments, got 1"},
		{"wrong argument type", "Session", `[42]`, 400, "Session argument 1"},
		{"not an array", "Session", `{"id":"x"}`, 400, "JSON array"},
	}
	for _, tt := range errs {
		t.Run(tt.name, func(t *testing.T) {
			status, body := ts.call(t, tt.method, tt.body)
			assert.Equal(t, tt.status, status, body)
			assert.Contains(t, body, `"error":`)
			assert.Contains(t, body, tt.msg)
		})
	}
	t.Run("JSON content type required", func(t *testing.T) {
		r := ts.req(t, "POST", "/api/Info", "[]", true)
		r.Header.Set("Content-Type", "text/plain")
		resp, _ := do(t, r)
		assert.Equal(t, http.StatusUnsupportedMediaType, resp.StatusCode)
		r = ts.req(t, "POST", "/api/Info", "[]", true)
		r.Header.Set("Content-Type", "application/json; charset=utf-8")
		resp, _ = do(t, r)
		assert.Equal(t, 200, resp.StatusCode)
	})
	t.Run("GET is not a call", func(t *testing.T) {
		resp, _ := do(t, ts.req(t, "GET", "/api/Info", "", true))
		assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
	})
}

func TestServerEvents(t *testing.T) {
	ts := newTestServer(t)
	resp, err := http.DefaultClient.Do(ts.req(t, "GET", "/api/events", "", true))
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode)
	assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))

	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	next := func() string {
		select {
		case l, ok := <-lines:
			if !ok {
				return "<EOF>"
			}
			return l
		case <-time.After(5 * time.Second):
			t.Fatal("no line from the event stream")
			return ""
		}
	}
	// Wait until the stream is subscribed (its first comment), then publish.
	for next() != ": connected" {
	}
	ts.hub.Publish(EventArchiveChanged, ArchiveChanged{Sessions: []string{"s-1"}})
	var got []string
	keepAlive := false
	for len(got) < 2 {
		l := next()
		switch {
		case l == ": keep-alive":
			keepAlive = true
		case l != "" && !strings.HasPrefix(l, ":"):
			got = append(got, l)
		}
	}
	assert.Equal(t, []string{"event: archive:changed", `data: {"sessions":["s-1"]}`}, got)
	for !keepAlive {
		keepAlive = next() == ": keep-alive"
	}

	// Closing the server ends the stream (graceful shutdown would wait for it).
	ts.s.Close()
	for l := next(); l != "<EOF>"; l = next() {
	}
}

func TestServerStatic(t *testing.T) {
	ts := newTestServer(t)
	t.Run("page", func(t *testing.T) {
		resp, body := do(t, ts.req(t, "GET", "/", "", true))
		assert.Equal(t, 200, resp.StatusCode)
		assert.Equal(t, "no-store", resp.Header.Get("Cache-Control"))
		assert.Contains(t, resp.Header.Get("Content-Type"), "text/html")
		assert.Contains(t, resp.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'")
		assert.Contains(t, body, "index-abc123.js")
	})
	t.Run("hashed asset without the token", func(t *testing.T) {
		resp, body := do(t, ts.req(t, "GET", "/assets/index-abc123.js", "", false))
		assert.Equal(t, 200, resp.StatusCode)
		assert.Equal(t, "public, max-age=31536000, immutable", resp.Header.Get("Cache-Control"))
		assert.Contains(t, resp.Header.Get("Content-Type"), "javascript")
		assert.Equal(t, `console.log("hi")`, body)
	})
	t.Run("missing file", func(t *testing.T) {
		resp, _ := do(t, ts.req(t, "GET", "/assets/nope.js", "", true))
		assert.Equal(t, 404, resp.StatusCode)
		resp, body := do(t, ts.req(t, "GET", "/../../etc/passwd", "", true))
		assert.NotEqual(t, 200, resp.StatusCode, "the mux cleans the path (a redirect), the FS is rooted at the bundle")
		assert.NotContains(t, body, "root:")
		resp, _ = do(t, ts.req(t, "GET", "/etc/passwd", "", true))
		assert.Equal(t, 404, resp.StatusCode)
	})
	t.Run("UI not built", func(t *testing.T) {
		nb := newTestServer(t, func(o *ServerOptions) { o.Assets = fstest.MapFS{".gitkeep": {}} })
		resp, body := do(t, nb.req(t, "GET", "/", "", true))
		assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
		assert.Contains(t, body, "The UI bundle is not built: run <code>make build</code>")
	})
}

func TestListenAndServeShutsDownWithOpenStream(t *testing.T) {
	ta := newTestApp(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s := NewServer(ta.App, ta.hub, ServerOptions{Addr: ln.Addr().String(), Assets: testAssets})
	assert.Len(t, s.Token(), 43, "32 random bytes, base64url")
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- ListenAndServe(ctx, ln, s) }()

	u, err := url.Parse(s.URL())
	require.NoError(t, err)
	r, err := http.NewRequest("GET", "http://"+u.Host+"/api/events", nil)
	require.NoError(t, err)
	r.Header.Set("X-Logbook-Token", s.Token())
	resp, err := http.DefaultClient.Do(r)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode)

	start := time.Now()
	cancel()
	select {
	case err := <-errc:
		require.NoError(t, err)
		assert.Less(t, time.Since(start), 3*time.Second)
	case <-time.After(10 * time.Second):
		t.Fatal("ListenAndServe did not return")
	}
}
