package app

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/logbook/logbook/internal/syncbuf"
	"github.com/logbook/logbook/scheduler"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rawRequest sends req as written (no client normalising its path) and returns the
// status line and the body.
func rawRequest(t *testing.T, addr, req string) (status, body string) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SetDeadline(time.Now().Add(5*time.Second)))
	_, err = fmt.Fprint(c, req)
	require.NoError(t, err)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	require.NoError(t, err)
	defer resp.Body.Close()
	var b bytes.Buffer
	_, _ = b.ReadFrom(resp.Body)
	return resp.Status, b.String()
}

func TestServerAPINeedsTokenWhateverThePath(t *testing.T) {
	ts := newTestServer(t)
	for _, p := range []string{"/api/Info", "/api/Info/", "/api/%49nfo", "/api/../api/Info", "/api/./Info", "/api//Info", "/api/events"} {
		t.Run(p, func(t *testing.T) {
			status, body := rawRequest(t, ts.addr, "POST "+p+" HTTP/1.1\r\nHost: "+ts.addr+
				"\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n[]")
			assert.NotEqual(t, "200 OK", status)
			assert.NotContains(t, body, `"version"`, "no answer of Info")
		})
	}
	t.Run("the page and its assets are the public bundle", func(t *testing.T) {
		for _, p := range []string{"/", "/index.html", "/assets/index-abc123.js"} {
			status, body := rawRequest(t, ts.addr, "GET "+p+" HTTP/1.1\r\nHost: "+ts.addr+"\r\nConnection: close\r\n\r\n")
			assert.Equal(t, "200 OK", status, p)
			assert.NotContains(t, body, testToken, p)
		}
	})
}

func TestServerRefusesCrossSiteRequests(t *testing.T) {
	ts := newTestServer(t)
	tests := []struct {
		name, method, path, site, mode string
		status                         int
	}{
		{"same-origin call", "POST", "/api/Info", "same-origin", "cors", 200},
		{"not a browser", "POST", "/api/Info", "", "", 200},
		{"page on another port calls the API", "POST", "/api/Info", "same-site", "cors", 403},
		{"page on another port opens the stream", "GET", "/api/events", "same-site", "no-cors", 403},
		{"other site embeds the stream", "GET", "/api/events", "cross-site", "no-cors", 403},
		{"other site frames the page", "GET", "/", "cross-site", "nested-navigate", 403},
		{"link from another site to the page", "GET", "/", "cross-site", "navigate", 200},
		{"link from another site to the API", "GET", "/api/events", "cross-site", "navigate", 403},
		{"typed into the address bar", "GET", "/", "none", "navigate", 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := ""
			if tt.method == "POST" {
				body = "[]"
			}
			r := ts.req(t, tt.method, tt.path, body, true)
			if tt.site != "" {
				r.Header.Set("Sec-Fetch-Site", tt.site)
				r.Header.Set("Sec-Fetch-Mode", tt.mode)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			resp, err := http.DefaultClient.Do(r.WithContext(ctx))
			require.NoError(t, err)
			resp.Body.Close() // the event stream answers 200 and stays open
			assert.Equal(t, tt.status, resp.StatusCode)
		})
	}
}

// lockedBuffer is a log sink safe for the server's goroutines.
type lockedBuffer = syncbuf.Buffer

func TestServerMethodPanicIs500(t *testing.T) {
	// An App without an archive: Sessions dereferences a nil store and panics.
	a := New(Deps{Roots: []string{}, Logger: quietLogger()})
	t.Cleanup(func() { a.Shutdown(context.Background()) })
	var logs lockedBuffer
	s := NewServer(a, NewHub(), ServerOptions{Addr: "127.0.0.1:8765", Token: testToken, Assets: testAssets,
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	call := func(method, body string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("POST", "http://127.0.0.1:8765/api/"+method, strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("X-Logbook-Token", testToken)
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		return w
	}
	w := call("Sessions", "[]")
	assert.Equal(t, http.StatusInternalServerError, w.Code)
	assert.JSONEq(t, `{"error":"Something went wrong; see the log"}`, w.Body.String(), "no panic text or stack for the client")
	assert.Contains(t, logs.String(), "API method panicked")
	assert.Contains(t, logs.String(), "goroutine", "the stack is in the log")
	w = call("SelfTest", `["still here"]`)
	assert.Equal(t, http.StatusOK, w.Code, "the server goes on")
	assert.Contains(t, w.Body.String(), "selftest:still here")
}

func TestServerDefaultPortHost(t *testing.T) {
	a := New(Deps{Roots: []string{}, Logger: quietLogger()})
	t.Cleanup(func() { a.Shutdown(context.Background()) })
	s := NewServer(a, NewHub(), ServerOptions{Addr: "127.0.0.1:80", Token: testToken, Assets: testAssets})
	for host, want := range map[string]int{"127.0.0.1": 200, "localhost": 200, "127.0.0.1:80": 200,
		"evil.example": http.StatusMisdirectedRequest} {
		r := httptest.NewRequest("GET", "http://"+host+"/", nil)
		r.Header.Set("X-Logbook-Token", testToken)
		r.Header.Set("Origin", "http://"+host)
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		assert.Equal(t, want, w.Code, host)
	}
}

func TestServerEventsDropsAClientThatStopsReading(t *testing.T) {
	ts := newTestServer(t, func(o *ServerOptions) { o.WriteTimeout = 300 * time.Millisecond })
	c, err := net.Dial("tcp", ts.addr)
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.(*net.TCPConn).SetReadBuffer(4096))
	_, err = fmt.Fprintf(c, "GET /api/events HTTP/1.1\r\nHost: %s\r\nX-Logbook-Token: %s\r\n\r\n", ts.addr, testToken)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return ts.hub.Streams() == 1 }, 5*time.Second, 10*time.Millisecond)

	// The client never reads: once the socket buffers are full, a write blocks until
	// the deadline drops the stream (and its subscription).
	big := strings.Repeat("x", 256<<10)
	require.Eventually(t, func() bool {
		ts.hub.Publish(EventArchiveChanged, ArchiveChanged{Sessions: []string{big}})
		return ts.hub.Streams() == 0
	}, 20*time.Second, 20*time.Millisecond, "a stuck client keeps its stream forever")
}

func TestListenAndServeClosesStuckRequests(t *testing.T) {
	ta := newTestApp(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s := NewServer(ta.App, ta.hub, ServerOptions{Addr: ln.Addr().String(), Token: testToken, Assets: testAssets,
		ShutdownTimeout: 300 * time.Millisecond, Logger: quietLogger()})
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- ListenAndServe(ctx, ln, s) }()

	// A call whose body never arrives: its handler waits in the body read.
	c, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	_, err = fmt.Fprintf(c, "POST /api/Info HTTP/1.1\r\nHost: %s\r\nX-Logbook-Token: %s\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n[",
		ln.Addr(), testToken)
	require.NoError(t, err)
	time.Sleep(100 * time.Millisecond) // let the handler start

	start := time.Now()
	cancel()
	select {
	case err := <-errc:
		assert.NoError(t, err)
		assert.Less(t, time.Since(start), 3*time.Second)
	case <-time.After(10 * time.Second):
		t.Fatal("ListenAndServe waits for a stuck request")
	}
	// The stuck connection was closed, not left to its handler. Read to the end:
	// one Read that returns a byte (an answer written before the close) says
	// nothing about whether the server then closed the connection.
	require.NoError(t, c.SetReadDeadline(time.Now().Add(3*time.Second)))
	_, err = io.Copy(io.Discard, c)
	var ne net.Error
	assert.False(t, errors.As(err, &ne) && ne.Timeout(), "the connection is still open: %v", err)
}

func TestServerEventsClientsLeaveNoSubscription(t *testing.T) {
	ts := newTestServer(t)
	const n = 20
	var cancels []context.CancelFunc
	for range n {
		ctx, cancel := context.WithCancel(context.Background())
		cancels = append(cancels, cancel)
		resp, err := http.DefaultClient.Do(ts.req(t, "GET", "/api/events", "", true).WithContext(ctx))
		require.NoError(t, err)
		require.Equal(t, 200, resp.StatusCode)
		defer resp.Body.Close()
	}
	require.Eventually(t, func() bool { return ts.hub.Streams() == n }, 5*time.Second, 10*time.Millisecond)
	ts.hub.Publish(EventArchiveChanged, ArchiveChanged{Sessions: []string{"s"}})
	for _, c := range cancels {
		c() // the browser tab closes
	}
	require.Eventually(t, func() bool { return ts.hub.Streams() == 0 }, 5*time.Second, 10*time.Millisecond,
		"a closed stream must unsubscribe")
}

func TestServerSetSchedulerConfigCannotChooseTheCommand(t *testing.T) {
	path := filepath.Join(t.TempDir(), "scheduler.json")
	ta := newTestApp(t, func(d *Deps) {
		d.Logger = quietLogger()
		d.Scheduler = scheduler.New(d.Archive, scheduler.Options{Logger: quietLogger(), ConfigPath: path})
	})
	s := NewServer(ta.App, ta.hub, ServerOptions{Addr: "127.0.0.1:8765", Token: testToken, Assets: testAssets})
	call := func(body string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("POST", "http://127.0.0.1:8765/api/SetSchedulerConfig", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("X-Logbook-Token", testToken)
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		return w
	}
	const base = `"action":"command","timeout_seconds":30,"retries":0,"backoff_seconds":1,"catch_up":"fire"`
	for name, body := range map[string]string{
		"plain":          `[{` + base + `,"command":["/bin/sh","-c","id"]}]`,
		"other casing":   `[{` + base + `,"COMMAND":["/bin/sh","-c","id"]}]`,
		"duplicate keys": `[{` + base + `,"command":[],"Command":["/bin/sh","-c","id"]}]`,
		"extra fields":   `[{` + base + `,"command":["/bin/sh"],"desktop":true,"mode":"desktop"}]`,
		"extra argument": `[{` + base + `,"command":["/bin/sh"]},{"desktop":true}]`,
	} {
		t.Run(name, func(t *testing.T) {
			w := call(body)
			assert.Contains(t, []int{http.StatusBadRequest, http.StatusUnprocessableEntity}, w.Code, w.Body.String())
			_, err := os.Stat(path)
			assert.True(t, errors.Is(err, os.ErrNotExist), "nothing was saved")
			assert.Empty(t, ta.deps.Scheduler.Config().Command)
		})
	}
	t.Run("webhook URL", func(t *testing.T) {
		w := call(`[{"action":"webhook","webhook_url":"http://10.0.0.1/collect","command":[],"timeout_seconds":30,"retries":0,"backoff_seconds":1,"catch_up":"fire"}]`)
		assert.Equal(t, http.StatusUnprocessableEntity, w.Code, w.Body.String())
		assert.Contains(t, w.Body.String(), "webhook URL can only be changed")
		assert.Empty(t, ta.deps.Scheduler.Config().WebhookURL)
	})
	t.Run("the policy may change", func(t *testing.T) {
		w := call(`[{"action":"notify","command":[],"timeout_seconds":30,"retries":0,"backoff_seconds":1,"catch_up":"skip"}]`)
		assert.Equal(t, http.StatusOK, w.Code, w.Body.String())
		assert.Equal(t, scheduler.CatchUpSkip, ta.deps.Scheduler.Config().CatchUp)
	})
}
