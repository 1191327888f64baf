package webhook_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/openhands"
	"github.com/logbook/logbook/archive/openhandsgen"
	"github.com/logbook/logbook/sync/webhook"
)

// quiet drops the logs of faults the tests cause on purpose.
var quiet = slog.New(slog.DiscardHandler)

// receiver is a webhook receiver on a real archive, served over real HTTP.
type receiver struct {
	store  *archive.Store
	pushed *archive.Pushed
	srv    *httptest.Server
	url    string // the webhook base_url
}

// newReceiver serves a receiver on a fresh archive in dir; wrap, when set, sits
// in front of it (a flaky network).
func newReceiver(t testing.TB, dir string, o webhook.Options, wrap func(http.Handler) http.Handler) *receiver {
	t.Helper()
	st, err := archive.Open(context.Background(), filepath.Join(dir, "logbook.db"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close() })
	st.Logger = quiet
	p := archive.NewPushed(st)
	if o.Logger == nil {
		o.Logger = quiet
	}
	var h http.Handler = webhook.New(webhook.Archive(p, nil), o)
	if wrap != nil {
		h = wrap(h)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return &receiver{store: st, pushed: p, srv: srv, url: srv.URL + webhook.Prefix}
}

// conversation is what an agent server would push: a conversation id and its
// events, each as model_dump(mode="json") writes it (nulls included).
type conversation struct {
	id     string // 32 hex
	events []json.RawMessage
}

// genConversation generates a realistic conversation of about turns×10 events.
func genConversation(t testing.TB, seed uint64, turns int) conversation {
	t.Helper()
	dir := t.TempDir()
	f, err := openhandsgen.Generate(dir, openhandsgen.Options{Seed: seed, Layout: openhands.LayoutJSONL, Turns: turns})
	require.NoError(t, err)
	data, err := os.ReadFile(f.Unit.Path)
	require.NoError(t, err)
	var c conversation
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		if line := bytes.TrimSpace(sc.Bytes()); len(line) > 0 {
			c.events = append(c.events, json.RawMessage(append([]byte(nil), line...)))
		}
	}
	require.NoError(t, sc.Err())
	require.Len(t, c.events, f.Events)
	c.id = strings.ReplaceAll(openhands.NormalizeID(f.Unit.SessionID), "-", "")
	require.Len(t, c.id, 32)
	return c
}

var eventFile = regexp.MustCompile(`^event-(\d+)-.*\.json$`)

// archivedEvents exports the conversation's original files from the archive
// and returns its event files' bytes, in idx order.
func archivedEvents(t testing.TB, st *archive.Store, convHex string) []json.RawMessage {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "export")
	require.NoError(t, st.ExportOriginal(context.Background(), openhands.NormalizeID(convHex), dir))
	entries, err := os.ReadDir(filepath.Join(dir, "events"))
	require.NoError(t, err)
	type file struct {
		idx  int
		data []byte
	}
	var files []file
	for _, e := range entries {
		m := eventFile.FindStringSubmatch(e.Name())
		require.NotNil(t, m, "an exported file that is no event file: %s", e.Name())
		idx, _ := strconv.Atoi(m[1])
		data, err := os.ReadFile(filepath.Join(dir, "events", e.Name()))
		require.NoError(t, err)
		files = append(files, file{idx, data})
	}
	sort.Slice(files, func(i, j int) bool { return files[i].idx < files[j].idx })
	out := make([]json.RawMessage, len(files))
	for i, f := range files {
		require.Equal(t, i, f.idx, "event files are numbered without gaps")
		out[i] = f.data
	}
	return out
}

// byID maps events to their ids.
func byID(t testing.TB, events []json.RawMessage) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, e := range events {
		var h struct {
			ID string `json:"id"`
		}
		require.NoError(t, json.Unmarshal(e, &h))
		_, dup := out[h.ID]
		require.False(t, dup, "event %s twice", h.ID)
		out[h.ID] = string(e)
	}
	return out
}

// post sends one request to the receiver and returns its status and body.
func post(t testing.TB, url, key string, body []byte) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("X-Session-API-Key", key)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var b bytes.Buffer
	_, _ = b.ReadFrom(resp.Body)
	return resp.StatusCode, b.String()
}

// array is a JSON array of events, each element byte for byte.
func array(events []json.RawMessage) []byte {
	return append(append([]byte{'['}, bytes.Join(rawBytes(events), []byte{','})...), ']')
}

func rawBytes(events []json.RawMessage) [][]byte {
	out := make([][]byte, len(events))
	for i, e := range events {
		out[i] = e
	}
	return out
}
