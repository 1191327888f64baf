package app

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive/openhands"
	"github.com/logbook/logbook/archive/openhandsgen"
)

// The webhook through the app server: the API key is required (401 without one,
// or with a wrong one, before the body is looked at), a bad body is 422, and a
// good batch is archived, indexed and told to the views within a second.
func TestWebhookThroughServer(t *testing.T) {
	ts := newTestServerWith(t, func(d *Deps) { d.Webhook = true })
	k, err := ts.NewAPIKey("agent-server")
	require.NoError(t, err)

	dir := t.TempDir()
	f, err := openhandsgen.Generate(dir, openhandsgen.Options{Seed: 21, Layout: openhands.LayoutJSONL, Turns: 3})
	require.NoError(t, err)
	data, err := os.ReadFile(f.Unit.Path)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	body := "[" + strings.Join(lines, ",") + "]"
	conv := openhands.NormalizeID(f.Unit.SessionID)
	path := "/api/v1/webhooks/events/" + strings.ReplaceAll(conv, "-", "")

	send := func(key, body string) (int, string) {
		r, err := http.NewRequest(http.MethodPost, "http://"+ts.addr+path, strings.NewReader(body))
		require.NoError(t, err)
		r.Header.Set("Content-Type", "application/json")
		if key != "" {
			r.Header.Set("X-Session-API-Key", key)
		}
		resp, b := do(t, r)
		return resp.StatusCode, b
	}
	code, b := send("", body)
	assert.Equal(t, http.StatusUnauthorized, code)
	assert.Contains(t, b, "X-Session-API-Key header is required")
	code, b = send(k.Key+"x", body)
	assert.Equal(t, http.StatusUnauthorized, code)
	assert.Contains(t, b, "Invalid session API key")
	code, _ = send("", "{not json")
	assert.Equal(t, http.StatusUnauthorized, code, "no body is read without a key")
	code, b = send(k.Key, "{not json")
	assert.Equal(t, http.StatusUnprocessableEntity, code, b)
	code, b = send(k.Key, `{"id":"x"}`)
	assert.Equal(t, http.StatusUnprocessableEntity, code, b)
	_, err = ts.App.deps.Archive.Session(ts.App.ctx, conv)
	require.Error(t, err, "nothing refused was archived")

	sub := ts.hub.subscribe()
	defer ts.hub.unsubscribe(sub)
	start := time.Now()
	code, b = send(k.Key, body)
	require.Equal(t, http.StatusOK, code, b)
	assert.JSONEq(t, `{"success":true}`, b)
	sess, err := ts.App.deps.Archive.Session(ts.App.ctx, conv)
	require.NoError(t, err, "archived before the answer")
	assert.Equal(t, int64(f.Events), sess.Events)

	// The views hear of it, with the index level, within a second.
	deadline := time.After(time.Second)
	for seen := false; !seen; {
		select {
		case <-sub.wake:
			for _, e := range sub.take() {
				var ch ArchiveChanged
				if e.Name == EventArchiveChanged && json.Unmarshal(e.Data, &ch) == nil && slices.Contains(ch.Sessions, conv) {
					seen = true
				}
			}
		case <-deadline:
			t.Fatalf("no %s for %s within 1 s", EventArchiveChanged, conv)
		}
	}
	t.Logf("push to visible: %v", time.Since(start))
	res, err := ts.App.Search(SearchRequest{Query: firstUserWords(t, lines)})
	require.NoError(t, err)
	assert.NotZero(t, res.Total, "the pushed conversation is searchable")

	// The archive owns the conversation's folder, in the data directory.
	_, err = os.Stat(filepath.Join(filepath.Dir(ts.App.deps.Archive.Path), "pushed", "openhands", strings.ReplaceAll(conv, "-", ""), "events"))
	assert.NoError(t, err)
}

// Without Deps.Webhook the prefix stays reserved: 404 with a key.
func TestWebhookOff(t *testing.T) {
	ts := newTestServer(t)
	k, err := ts.NewAPIKey("x")
	require.NoError(t, err)
	r, err := http.NewRequest(http.MethodPost, "http://"+ts.addr+"/api/v1/webhooks/events/"+strings.Repeat("a", 32), bytes.NewReader([]byte("[]")))
	require.NoError(t, err)
	r.Header.Set("X-Session-API-Key", k.Key)
	resp, _ := do(t, r)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
}

// firstUserWords are two words of the first user message's text.
func firstUserWords(t *testing.T, lines []string) string {
	t.Helper()
	for _, l := range lines {
		var ev struct {
			Kind       string `json:"kind"`
			Source     string `json:"source"`
			LLMMessage struct {
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"llm_message"`
		}
		require.NoError(t, json.Unmarshal([]byte(l), &ev))
		if ev.Kind == "MessageEvent" && ev.Source == "user" && len(ev.LLMMessage.Content) > 0 {
			w := strings.Fields(ev.LLMMessage.Content[0].Text)
			require.GreaterOrEqual(t, len(w), 2)
			return fmt.Sprintf("%s %s", w[0], w[1])
		}
	}
	t.Fatal("no user message")
	return ""
}

// The window's webhook settings: off by default, kept in the data directory,
// loopback addresses only; the status says what this process does.
func TestWebhookSettings(t *testing.T) {
	ta := newTestApp(t)
	st, err := ta.WebhookSettings()
	require.NoError(t, err)
	assert.False(t, st.Enabled)
	assert.Equal(t, DefaultWebhookAddr, st.Addr)
	assert.Empty(t, st.Serving)

	for _, bad := range []string{"0.0.0.0:8765", "192.168.1.2:80", "nohost", "127.0.0.1:99999", "example.com:80"} {
		_, err := ta.SetWebhookSettings(WebhookSettings{Enabled: true, Addr: bad})
		var ie *inputError
		assert.ErrorAs(t, err, &ie, bad)
	}
	st, err = ta.SetWebhookSettings(WebhookSettings{Enabled: true, Addr: " 127.0.0.1:9911 "})
	require.NoError(t, err)
	assert.Equal(t, "127.0.0.1:9911", st.Addr)
	assert.Contains(t, st.Note, "next opens")
	got, err := LoadWebhookSettings(ta.deps.DataDir)
	require.NoError(t, err)
	assert.Equal(t, WebhookSettings{Enabled: true, Addr: "127.0.0.1:9911"}, got)

	// A hand-edited file naming an address other machines reach is refused, and
	// the webhook stays off.
	path := filepath.Join(ta.deps.DataDir, webhookSettingsFile)
	require.NoError(t, os.WriteFile(path, []byte(`{"enabled": true, "addr": "0.0.0.0:8765"}`), 0o644))
	got, err = LoadWebhookSettings(ta.deps.DataDir)
	assert.ErrorContains(t, err, "reachable from other machines")
	assert.Equal(t, WebhookSettings{Addr: DefaultWebhookAddr}, got)
	_, err = ta.SetWebhookSettings(WebhookSettings{Enabled: true, Addr: "127.0.0.1:9911"})
	require.NoError(t, err)

	// A server that accepts the webhook says where.
	ts := newTestServerWith(t, func(d *Deps) { d.Webhook = true })
	st, err = ts.WebhookSettings()
	require.NoError(t, err)
	assert.Equal(t, "http://"+ts.addr+"/api/v1/webhooks", st.Serving)
	assert.Contains(t, st.Note, "logbook serve accepts the webhook")
}
