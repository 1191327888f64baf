package app

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// serveReal runs s under ListenAndServe (the server `logbook serve` runs, with its
// header timeout) on a loopback port until the test ends.
func serveReal(t *testing.T, o ServerOptions) (addr string, stop func() error) {
	t.Helper()
	_, addr, stop = serveRealApp(t, o)
	return addr, stop
}

// serveRealApp is serveReal that also returns the app it serves (its hub
// publishes to the event stream).
func serveRealApp(t *testing.T, o ServerOptions) (ta *testApp, addr string, stop func() error) {
	t.Helper()
	ta = newTestApp(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	o.Addr, o.Token, o.Logger = ln.Addr().String(), testToken, quietLogger()
	if o.Assets == nil {
		o.Assets = testAssets
	}
	s := NewServer(ta.App, ta.hub, o)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- ListenAndServe(ctx, ln, s) }()
	var once sync.Once
	var serr error
	stop = func() error {
		once.Do(func() { cancel(); serr = <-errc })
		return serr
	}
	t.Cleanup(func() { _ = stop() })
	return ta, ln.Addr().String(), stop
}

// stallMidBody opens n connections that each send a call's headers and the first
// byte of a 100-byte body, then nothing more, and returns what each got back
// within wait: its status line ("" for none) and whether the server then closed it.
func stallMidBody(t *testing.T, addr string, n int, header string, wait time.Duration) (statuses []string, closed int) {
	t.Helper()
	conns := make([]net.Conn, n)
	for i := range conns {
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		t.Cleanup(func() { c.Close() })
		_, err = fmt.Fprintf(c, "POST /api/Info HTTP/1.1\r\nHost: %s\r\n%sContent-Type: application/json\r\nContent-Length: 100\r\n\r\n[", addr, header)
		require.NoError(t, err)
		conns[i] = c
	}
	deadline := time.Now().Add(wait)
	statuses = make([]string, n)
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i, c := range conns {
		wg.Go(func() {
			_ = c.SetReadDeadline(deadline)
			br := bufio.NewReader(c)
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			statuses[i] = resp.Status
			if _, err := br.ReadByte(); err == io.EOF {
				mu.Lock()
				closed++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return statuses, closed
}

func TestServerRefusesStalledUnauthenticatedBodiesAtOnce(t *testing.T) {
	addr, _ := serveReal(t, ServerOptions{BodyTimeout: time.Minute}) // the body deadline plays no part
	const n = 50
	start := time.Now()
	statuses, closed := stallMidBody(t, addr, n, "", 3*time.Second)
	took := time.Since(start)
	for i, s := range statuses {
		assert.Equal(t, "401 Unauthorized", s, "connection %d: refused without waiting for its body", i)
	}
	assert.Equal(t, n, closed, "each connection is closed (its unread body is never parsed as a request)")
	t.Logf("%d stalled unauthenticated calls answered and closed in %v", n, took.Round(time.Millisecond))
}

func TestServerBodyDeadline(t *testing.T) {
	ta, addr, _ := serveRealApp(t, ServerOptions{BodyTimeout: 300 * time.Millisecond})
	const n = 20
	start := time.Now()
	statuses, closed := stallMidBody(t, addr, n, "X-Logbook-Token: "+testToken+"\r\n", 3*time.Second)
	took := time.Since(start)
	for i, s := range statuses {
		assert.Equal(t, "408 Request Timeout", s, "connection %d", i)
	}
	assert.Equal(t, n, closed)
	assert.Less(t, took, 2*time.Second)
	t.Logf("%d stalled signed-in calls timed out and closed in %v", n, took.Round(time.Millisecond))

	t.Run("a body sent in time is read, and the connection serves the next call", func(t *testing.T) {
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		defer c.Close()
		br := bufio.NewReader(c)
		for range 2 {
			_, err = fmt.Fprintf(c, "POST /api/Info HTTP/1.1\r\nHost: %s\r\nX-Logbook-Token: %s\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n[", addr, testToken)
			require.NoError(t, err)
			time.Sleep(100 * time.Millisecond) // slow, within the deadline
			_, err = fmt.Fprint(c, "]")
			require.NoError(t, err)
			require.NoError(t, c.SetReadDeadline(time.Now().Add(5*time.Second)))
			resp, err := http.ReadResponse(br, nil)
			require.NoError(t, err)
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			assert.Equal(t, 200, resp.StatusCode)
			time.Sleep(500 * time.Millisecond) // idle past the body deadline: it was a body's, not the connection's
		}
	})
	t.Run("a body too large is refused before it is read", func(t *testing.T) {
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		defer c.Close()
		_, err = fmt.Fprintf(c, "POST /api/Info HTTP/1.1\r\nHost: %s\r\nX-Logbook-Token: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n[", addr, testToken, maxBody+1)
		require.NoError(t, err)
		require.NoError(t, c.SetReadDeadline(time.Now().Add(2*time.Second)))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode)
	})
	t.Run("the event stream outlives the body deadline", func(t *testing.T) {
		r, err := http.NewRequest("GET", "http://"+addr+"/api/events", nil)
		require.NoError(t, err)
		r.Header.Set("X-Logbook-Token", testToken)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		resp, err := http.DefaultClient.Do(r.WithContext(ctx))
		require.NoError(t, err)
		defer resp.Body.Close()
		require.Equal(t, 200, resp.StatusCode)
		sc := bufio.NewScanner(resp.Body)
		require.True(t, sc.Scan())
		assert.Equal(t, "retry: 2000", sc.Text())
		for sc.Scan() && sc.Text() != ": connected" { // subscribed
		}
		// Past the body deadline the stream still delivers: it is read from an
		// open connection, not from what was written before a cut one closed.
		time.Sleep(time.Second)
		ta.hub.Publish(EventArchiveChanged, ArchiveChanged{Sessions: []string{"s-1"}})
		var got []string
		for len(got) < 2 && sc.Scan() {
			if l := sc.Text(); l != "" && !strings.HasPrefix(l, ":") {
				got = append(got, l)
			}
		}
		assert.Equal(t, []string{"event: archive:changed", `data: {"sessions":["s-1"]}`}, got, "stream error: %v", sc.Err())
	})
}

// TestServerDropsAClientThatNeverReadsItsAnswer: a download nobody reads must not
// hold its handler (and a graceful shutdown) until ShutdownTimeout.
func TestServerDropsAClientThatNeverReadsItsAnswer(t *testing.T) {
	big := fstest.MapFS{"index.html": {Data: []byte("<!doctype html>")}, "assets/big.js": {Data: []byte(strings.Repeat("x", 32<<20))}}
	addr, stop := serveReal(t, ServerOptions{Assets: big, WriteTimeout: 300 * time.Millisecond, ShutdownTimeout: 20 * time.Second})
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.(*net.TCPConn).SetReadBuffer(4096))
	_, err = fmt.Fprintf(c, "GET /assets/big.js HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
	require.NoError(t, err)
	time.Sleep(1500 * time.Millisecond) // the socket buffers fill; the write deadline passes
	start := time.Now()
	require.NoError(t, stop())
	assert.Less(t, time.Since(start), 3*time.Second, "shutdown waited for the stuck download")
}
