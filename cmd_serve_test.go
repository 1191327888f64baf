package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/logbook/logbook/app"
	"github.com/logbook/logbook/internal/syncbuf"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lockedBuffer is a bytes.Buffer safe to read while a command writes to it.
type lockedBuffer = syncbuf.Buffer

// startServe runs `logbook serve` in the background on a free port and returns
// the printed link, the output and a channel with the exit status.
func startServe(t *testing.T, ctx context.Context, args ...string) (string, *lockedBuffer, <-chan int) {
	t.Helper()
	url, out, _, done := startServeIn(t, ctx, t.TempDir(), args...)
	return url, out, done
}

// startServeIn is startServe on the data directory data; it returns standard
// error too.
func startServeIn(t *testing.T, ctx context.Context, data string, args ...string) (string, *lockedBuffer, *lockedBuffer, <-chan int) {
	t.Helper()
	// No real session root may be imported.
	t.Setenv("HOME", t.TempDir())
	t.Setenv("DSH_HOME", "")
	var out, errOut lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, append([]string{"--data", data, "serve", "--addr", "127.0.0.1:0"}, args...), &out, &errOut)
	}()
	link := regexp.MustCompile(`Logbook UI: (http://127\.0\.0\.1:\d+/\?token=[A-Za-z0-9_-]{43})\n`)
	var url string
	require.Eventually(t, func() bool {
		m := link.FindStringSubmatch(out.String())
		if m != nil {
			url = m[1]
		}
		return m != nil
	}, 30*time.Second, 10*time.Millisecond, "stdout: %s\nstderr: %s", &out, &errOut)
	return url, &out, &errOut, done
}

// browser is an HTTP client like a browser tab of the UI: it keeps the token of
// the link it opened and sends it in the X-Logbook-Token header, as the page does.
func browser(t *testing.T) *http.Client {
	return &http.Client{Transport: &tab{base: http.DefaultTransport}, Timeout: 10 * time.Second}
}

type tab struct {
	mu    sync.Mutex
	token string
	base  http.RoundTripper
}

func (t *tab) RoundTrip(r *http.Request) (*http.Response, error) {
	t.mu.Lock()
	if tok := r.URL.Query().Get("token"); tok != "" {
		t.token = tok
	}
	tok := t.token
	t.mu.Unlock()
	if tok != "" {
		r = r.Clone(r.Context())
		r.Header.Set("X-Logbook-Token", tok)
	}
	return t.base.RoundTrip(r)
}

func postJSON(t *testing.T, c *http.Client, url, body string) (int, string) {
	t.Helper()
	resp, err := c.Post(url, "application/json", strings.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

func TestServe(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	link, _, done := startServe(t, ctx, "--demo-if-empty")
	base := link[:strings.Index(link, "/?token=")]

	c := browser(t)
	resp, err := c.Get(link)
	require.NoError(t, err)
	resp.Body.Close()
	// 200 with a built UI, 503 with the "not built" page; either way the token was taken.
	assert.Contains(t, []int{200, 503}, resp.StatusCode)
	assert.Empty(t, resp.Cookies(), "the token never rides a cookie")

	// The empty archive gets the demo (in the background after the start-up import).
	var info struct {
		Mode     string `json:"mode"`
		Sessions int    `json:"sessions"`
		Demo     bool   `json:"demo"`
	}
	require.Eventually(t, func() bool {
		status, body := postJSON(t, c, base+"/api/Info", "[]")
		return status == 200 && json.Unmarshal([]byte(body), &info) == nil && info.Demo && info.Sessions > 0
	}, 60*time.Second, 50*time.Millisecond)
	assert.Equal(t, "web", info.Mode)

	status, _ := postJSON(t, browser(t), base+"/api/Info", "[]")
	assert.Equal(t, http.StatusUnauthorized, status, "a client without the link's token is refused")

	cancel()
	select {
	case code := <-done:
		assert.Equal(t, 0, code)
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not stop when its context was cancelled")
	}
}

func TestServeSelfTest(t *testing.T) {
	t.Setenv("APP_SELFTEST", "1")
	link, out, done := startServe(t, context.Background(), "--no-import")
	c := browser(t)
	resp, err := c.Get(link)
	require.NoError(t, err)
	resp.Body.Close()
	base := link[:strings.Index(link, "/?token=")]
	status, body := postJSON(t, c, base+"/api/Info", "[]")
	require.Equal(t, 200, status)
	assert.Contains(t, body, `"self_test":true`)
	status, body = postJSON(t, c, base+"/api/SelfTest", `["ui-loaded"]`)
	require.Equal(t, 200, status)
	assert.Equal(t, "\"selftest:ui-loaded\"\n", body)
	select {
	case code := <-done:
		assert.Equal(t, 0, code)
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not stop after the self-test")
	}
	assert.Contains(t, out.String(), "SELFTEST OK ui-loaded mode=web\n")
}

func TestServeFlags(t *testing.T) {
	data := t.TempDir()
	tests := []struct {
		name string
		args []string
		msg  string
	}{
		{"every interface", []string{"serve", "--addr", "0.0.0.0:0"}, "--allow-remote"},
		{"no host", []string{"serve", "--addr", ":0"}, "--allow-remote"},
		{"bad address", []string{"serve", "--addr", "nonsense"}, "--addr"},
		{"extra argument", []string{"serve", "now"}, `unexpected argument "now"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := cliData(t, data, tt.args...)
			assert.Equal(t, 2, r.code, r.stderr)
			assert.Contains(t, r.stderr, tt.msg)
			assert.Empty(t, r.stdout)
		})
	}
	for _, h := range []string{"127.0.0.1", "localhost", "::1", "127.0.0.2"} {
		assert.True(t, app.IsLoopbackHost(h), h)
	}
	for _, h := range []string{"", "0.0.0.0", "::", "192.168.1.2", "example.com"} {
		assert.False(t, app.IsLoopbackHost(h), h)
	}
}

func TestServeDefaultPortTaken(t *testing.T) {
	// Hold the default port (if something else already holds it, that is as good).
	if ln, err := net.Listen("tcp", "127.0.0.1:8765"); err == nil {
		defer ln.Close()
	}
	t.Setenv("HOME", t.TempDir())
	t.Setenv("DSH_HOME", "")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errOut lockedBuffer
	done := make(chan int, 1)
	go func() { done <- run(ctx, []string{"--data", t.TempDir(), "serve", "--no-import"}, &out, &errOut) }()
	link := regexp.MustCompile(`Logbook UI: http://127\.0\.0\.1:(\d+)/\?token=`)
	require.Eventually(t, func() bool { return link.MatchString(out.String()) }, 30*time.Second, 10*time.Millisecond,
		"stdout: %s\nstderr: %s", &out, &errOut)
	assert.NotEqual(t, "8765", link.FindStringSubmatch(out.String())[1], "a free port instead of the taken default")
	assert.Contains(t, errOut.String(), "127.0.0.1:8765 is in use; using a free port instead")
	cancel()
	<-done

	// An explicit --addr is honoured or refused, never silently changed.
	var out2, err2 lockedBuffer
	code := run(context.Background(), []string{"--data", t.TempDir(), "serve", "--no-import", "--addr", "127.0.0.1:8765"}, &out2, &err2)
	assert.Equal(t, 1, code)
	assert.Contains(t, err2.String(), "listen on 127.0.0.1:8765")
}

func TestCLIWhileServeRuns(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("DSH_HOME", "")
	data := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errOut lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"--data", data, "serve", "--addr", "127.0.0.1:0", "--no-import"}, &out, &errOut)
	}()
	require.Eventually(t, func() bool { return strings.Contains(out.String(), "Logbook UI: ") }, 30*time.Second, 10*time.Millisecond)

	// Importing from a terminal works; the running serve owns the index and indexes it.
	root := t.TempDir()
	genLog(t, root, 21, "/home/u/terminal", false)
	var iout, ierr bytes.Buffer
	start := time.Now()
	require.Equal(t, 0, run(context.Background(), []string{"--data", data, "import", root}, &iout, &ierr), ierr.String())
	assert.Less(t, time.Since(start), 20*time.Second, "never hangs on the index")
	assert.Contains(t, ierr.String(), "`logbook serve` (pid ", "import names who holds the index")
	assert.Contains(t, ierr.String(), "indexed by a running Logbook within seconds")

	// Searching from a terminal says who holds the index instead of hanging.
	var sout, serr bytes.Buffer
	assert.Equal(t, 1, run(context.Background(), []string{"--data", data, "search", "anything"}, &sout, &serr))
	assert.Contains(t, serr.String(), "`logbook serve` (pid ")

	cancel()
	<-done
}
