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

// A conversation is bound to the API key that first pushed to it: another valid
// key gets 401 for its events and its ConversationInfo, and nothing of theirs is
// kept; once the bound key is revoked it gets 401 itself, and the next key to
// push claims the conversation (a key made under the revoked one's name is
// another key).
func TestWebhookKeyBinding(t *testing.T) {
	ts := newTestServerWith(t, func(d *Deps) { d.Webhook = true })
	ka, err := ts.NewAPIKey("server-a")
	require.NoError(t, err)
	kb, err := ts.NewAPIKey("server-b")
	require.NoError(t, err)

	dir := t.TempDir()
	f, err := openhandsgen.Generate(dir, openhandsgen.Options{Seed: 22, Layout: openhands.LayoutJSONL, Turns: 3})
	require.NoError(t, err)
	data, err := os.ReadFile(f.Unit.Path)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	require.Greater(t, len(lines), 6)
	conv := openhands.NormalizeID(f.Unit.SessionID)
	hexID := strings.ReplaceAll(conv, "-", "")
	send := func(key, path, body string) (int, string) {
		r, err := http.NewRequest(http.MethodPost, "http://"+ts.addr+"/api/v1/webhooks"+path, strings.NewReader(body))
		require.NoError(t, err)
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("X-Session-API-Key", key)
		resp, b := do(t, r)
		return resp.StatusCode, b
	}
	events := func(key string, from, to int) (int, string) {
		return send(key, "/events/"+hexID, "["+strings.Join(lines[from:to], ",")+"]")
	}
	info := func(key, title string) (int, string) {
		return send(key, "/conversations", fmt.Sprintf(`{"id":%q,"title":%q,"updated_at":"2030-01-01T00:00:00Z"}`, conv, title))
	}
	archived := func() int64 {
		s, err := ts.App.deps.Archive.Session(ts.App.ctx, conv)
		require.NoError(t, err)
		return s.Events
	}

	code, b := events(ka.Key, 0, 2)
	require.Equal(t, http.StatusOK, code, b)
	code, b = events(kb.Key, 2, 4)
	assert.Equal(t, http.StatusUnauthorized, code, b)
	assert.Contains(t, b, "belongs to another API key")
	assert.NotContains(t, b, "server-a", "the bound key's name is not told to another key")
	code, b = info(kb.Key, "hijacked")
	assert.Equal(t, http.StatusUnauthorized, code, b)
	assert.Equal(t, int64(2), archived(), "nothing of the refused push is kept")
	hist, err := os.ReadFile(filepath.Join(filepath.Dir(ts.App.deps.Archive.Path), "pushed", "openhands", hexID+".info.ndjson"))
	if err == nil {
		assert.NotContains(t, string(hist), "hijacked")
	}
	code, b = events(ka.Key, 2, 4)
	require.Equal(t, http.StatusOK, code, b)
	code, b = info(ka.Key, "Fix the build")
	require.Equal(t, http.StatusOK, code, b)
	assert.Equal(t, int64(4), archived())

	// A new conversation is the pushing key's: b is not refused elsewhere.
	other := strings.Repeat("b", 32)
	code, b = send(kb.Key, "/events/"+other, "["+lines[0]+"]")
	require.Equal(t, http.StatusOK, code, b)
	code, b = send(ka.Key, "/events/"+other, "["+lines[1]+"]")
	assert.Equal(t, http.StatusUnauthorized, code, b)

	// Revoked: a's own pushes are refused, and b claims a's conversation.
	require.NoError(t, ts.RevokeAPIKey("server-a"))
	code, _ = events(ka.Key, 4, 5)
	assert.Equal(t, http.StatusUnauthorized, code)
	code, b = events(kb.Key, 4, 5)
	require.Equal(t, http.StatusOK, code, b)
	assert.Equal(t, int64(5), archived())
	// A key made under the revoked name is another key: the conversation is b's now.
	ka2, err := ts.NewAPIKey("server-a")
	require.NoError(t, err)
	code, b = events(ka2.Key, 5, 6)
	assert.Equal(t, http.StatusUnauthorized, code, b)
	assert.Equal(t, int64(5), archived())
}
