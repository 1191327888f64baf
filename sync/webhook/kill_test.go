package webhook_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/openhands"
	"github.com/logbook/logbook/sync/webhook"
)

// childEnv names the data folder of a receiver run as a child process.
const childEnv = "LOGBOOK_WEBHOOK_CHILD"

// TestReceiverChild is the receiver of TestKillNineLosesNoAcknowledgedEvent,
// in a process of its own: it serves until it is killed.
func TestReceiverChild(t *testing.T) {
	dir := os.Getenv(childEnv)
	if dir == "" {
		t.Skip("the child process of TestKillNineLosesNoAcknowledgedEvent")
	}
	st, err := archive.Open(context.Background(), filepath.Join(dir, "logbook.db"))
	if err != nil {
		t.Fatal(err)
	}
	st.Logger = quiet
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h := webhook.New(webhook.Archive(archive.NewPushed(st), nil), webhook.Options{Logger: quiet})
	os.Stdout.WriteString("http://" + ln.Addr().String() + "\n")
	_ = http.Serve(ln, h)
}

// A receiver killed with SIGKILL while batches are in flight, again and again,
// loses no event it acknowledged: after each kill the archive holds every one,
// and once the sender is done it holds exactly the sender's events.
func TestKillNineLosesNoAcknowledgedEvent(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child process")
	}
	dir := t.TempDir()
	var mu sync.Mutex
	var target *url.URL
	var child *exec.Cmd
	start := func() {
		cmd := exec.Command(os.Args[0], "-test.run=^TestReceiverChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), childEnv+"="+dir)
		out, err := cmd.StdoutPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		line, err := bufio.NewReader(out).ReadString('\n')
		require.NoError(t, err)
		u, err := url.Parse(strings.TrimSpace(line))
		require.NoError(t, err)
		mu.Lock()
		target, child = u, cmd
		mu.Unlock()
	}
	start()
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		_ = child.Process.Kill()
		_ = child.Wait()
	})
	// The sender talks to whichever child runs now; between two it gets 502.
	proxy := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			mu.Lock()
			defer mu.Unlock()
			r.SetURL(target)
		},
		ErrorLog: nil,
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, _ error) {
			w.WriteHeader(http.StatusBadGateway)
		},
	}
	front := http.Server{Handler: proxy}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go func() { _ = front.Serve(ln) }()
	t.Cleanup(func() { _ = front.Close() })

	conv := genConversation(t, 11, 40)
	var ackMu sync.Mutex
	acked := map[string]string{}
	s := newSender("http://"+ln.Addr().String()+webhook.Prefix, "k", 5, 3)
	s.retryDelay = 20 * time.Millisecond
	s.acked = func(batch []json.RawMessage) {
		ackMu.Lock()
		defer ackMu.Unlock()
		for id, e := range byID(t, batch) {
			acked[id] = e
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var done atomic.Bool
	sent := make(chan error, 1)
	go func() { sent <- s.send(ctx, conv.id, conv.events); done.Store(true) }()

	kills := 0
	for kills < 4 && !done.Load() {
		time.Sleep(time.Duration(150+70*kills) * time.Millisecond)
		mu.Lock()
		cmd := child
		mu.Unlock()
		require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
		_ = cmd.Wait()
		kills++
		// Every acknowledged event is in the archive the dead process left.
		ackMu.Lock()
		want := map[string]string{}
		for id, e := range acked {
			want[id] = e
		}
		ackMu.Unlock()
		got := archivedAfterKill(t, dir, conv.id)
		for id, e := range want {
			if !assert.Equal(t, e, got[id], "acknowledged event %s after kill %d", id, kills) {
				break
			}
		}
		start()
	}
	require.NoError(t, <-sent)
	assert.GreaterOrEqual(t, kills, 2, "the receiver was killed while the sender was busy")
	mu.Lock()
	_ = child.Process.Kill()
	_ = child.Wait()
	mu.Unlock()
	assert.Equal(t, byID(t, conv.events), archivedAfterKill(t, dir, conv.id))
}

// archivedAfterKill opens the archive a killed receiver left and returns the
// conversation's archived events by id (none before its first import).
func archivedAfterKill(t *testing.T, dir, conv string) map[string]string {
	t.Helper()
	st, err := archive.Open(context.Background(), filepath.Join(dir, "logbook.db"))
	require.NoError(t, err)
	defer st.Close()
	if _, err := st.Session(context.Background(), openhands.NormalizeID(conv)); errors.Is(err, archive.ErrNotFound) {
		return map[string]string{}
	}
	return byID(t, archivedEvents(t, st, conv))
}
