package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCLIAPIKey(t *testing.T) {
	data := t.TempDir()

	r := cliData(t, data, "apikey", "list")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Empty(t, r.stdout)
	assert.Contains(t, r.stderr, "logbook apikey new")

	r = cliData(t, data, "apikey", "new", "--name", "ci")
	require.Equal(t, 0, r.code, r.stderr)
	key := strings.TrimSpace(r.stdout)
	assert.Regexp(t, `^lbk_[A-Za-z0-9_-]{43}$`, key, "stdout is the key alone: KEY=$(logbook apikey new)")
	assert.Contains(t, r.stderr, `"ci"`)
	assert.Contains(t, r.stderr, "shown only now")
	assert.NotContains(t, r.stderr, key)

	created := mustJSON[map[string]any](t, data, "apikey", "new", "--json")
	assert.Equal(t, "key-1", created["name"])
	assert.Regexp(t, `^lbk_`, created["key"])
	assert.Regexp(t, `^[0-9a-f]{12}$`, created["fingerprint"])
	assert.NotEmpty(t, created["created"])

	keys := mustJSON[[]map[string]any](t, data, "apikey", "list", "--json")
	require.Len(t, keys, 2)
	assert.Equal(t, "ci", keys[0]["name"])
	assert.Nil(t, keys[0]["last_used"])
	assert.Equal(t, created["fingerprint"], keys[1]["fingerprint"])

	r = cliData(t, data, "apikey", "list")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "NAME")
	assert.Contains(t, r.stdout, "never")
	assert.Contains(t, r.stdout, created["fingerprint"].(string))
	for _, out := range []string{r.stdout, r.stderr} {
		assert.NotContains(t, out, key, "the list never shows a key")
		assert.NotContains(t, out, created["key"].(string))
	}
	raw, err := os.ReadFile(filepath.Join(data, "apikeys.json"))
	require.NoError(t, err)
	assert.NotContains(t, string(raw), key, "the file keeps only hashes")
	st, err := os.Stat(filepath.Join(data, "apikeys.json"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())

	t.Run("name taken", func(t *testing.T) {
		r := cliData(t, data, "apikey", "new", "--name", "ci")
		assert.Equal(t, 1, r.code)
		assert.Contains(t, r.stderr, "already exists")
		assert.Empty(t, r.stdout)
	})
	t.Run("bad name", func(t *testing.T) {
		r := cliData(t, data, "apikey", "new", "--name", "two words")
		assert.Equal(t, 2, r.code)
		assert.Contains(t, r.stderr, "letters, digits")
	})
	t.Run("revoke", func(t *testing.T) {
		r := cliData(t, data, "apikey", "revoke", "ci")
		require.Equal(t, 0, r.code, r.stderr)
		assert.Equal(t, "API key \"ci\" revoked\n", r.stdout)
		keys := mustJSON[[]map[string]any](t, data, "apikey", "list", "--json")
		require.Len(t, keys, 1)
		assert.Equal(t, "key-1", keys[0]["name"])
	})
	t.Run("revoke unknown", func(t *testing.T) {
		r := cliData(t, data, "apikey", "revoke", "ci")
		assert.Equal(t, 1, r.code)
		assert.Equal(t, "logbook apikey revoke: no API key named \"ci\" (see `logbook apikey list`)\n", r.stderr)
		assert.Empty(t, r.stdout)
	})
	t.Run("usage", func(t *testing.T) {
		for _, args := range [][]string{{"apikey", "revoke"}, {"apikey", "revoke", "a", "b"}, {"apikey", "list", "extra"}, {"apikey", "new", "extra"}, {"apikey"}, {"apikey", "rotate"}} {
			r := cliData(t, data, args...)
			assert.Equal(t, 2, r.code, "%v: %s", args, r.stderr)
		}
		r := cliData(t, data, "help", "apikey")
		require.Equal(t, 0, r.code)
		for _, c := range []string{"new [--name NAME] [--json]", "list [--json]", "revoke NAME"} {
			assert.Contains(t, r.stdout, c)
		}
		assert.Contains(t, cli(t, "help").stdout, "apikey")
	})
}

// machineGet GETs a reserved machine path of a running serve with key (when set)
// in X-Session-API-Key, and returns the status and body.
func machineGet(t *testing.T, base, key string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("GET", base+"api/v1/conversation/abc/events/search", nil)
	require.NoError(t, err)
	if key != "" {
		req.Header.Set("X-Session-API-Key", key)
	}
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

// TestServeAPIKeys runs serve and the apikey commands side by side, as a person
// does in two terminals: serve says how to make a key, a key made meanwhile
// works at once, and a revoked one stops working at once.
func TestServeAPIKeys(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	data := t.TempDir()
	url, _, errOut, done := startServeIn(t, ctx, data)
	base := url[:strings.Index(url, "?")]
	assert.Contains(t, errOut.String(), "no API key yet")
	assert.Contains(t, errOut.String(), "logbook apikey new")

	code, body := machineGet(t, base, "")
	assert.Equal(t, http.StatusUnauthorized, code)
	assert.JSONEq(t, `{"detail":"X-Session-API-Key header is required"}`, body)

	r := cliData(t, data, "apikey", "new", "--name", "script")
	require.Equal(t, 0, r.code, r.stderr)
	key := strings.TrimSpace(r.stdout)
	code, body = machineGet(t, base, key)
	assert.Equal(t, http.StatusNotFound, code, body)
	assert.JSONEq(t, `{"detail":"Not Found"}`, body)
	var used []map[string]any
	require.NoError(t, json.Unmarshal([]byte(cliData(t, data, "apikey", "list", "--json").stdout), &used))
	assert.NotNil(t, used[0]["last_used"], "serve recorded the use")

	r = cliData(t, data, "apikey", "revoke", "script")
	require.Equal(t, 0, r.code, r.stderr)
	code, body = machineGet(t, base, key)
	assert.Equal(t, http.StatusUnauthorized, code)
	assert.JSONEq(t, `{"detail":"Invalid session API key"}`, body)
	cancel()
	assert.Equal(t, 0, <-done)
}

func TestServePublicNeedsAKey(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("DSH_HOME", "")
	data := t.TempDir()
	r := cliData(t, data, "serve", "--addr", "0.0.0.0:0", "--allow-remote", "--no-import")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "need an API key")
	assert.Contains(t, r.stderr, "logbook apikey new")
	assert.Empty(t, r.stdout)

	require.Equal(t, 0, cliData(t, data, "apikey", "new").code)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, _, errOut, done := startServeIn(t, ctx, data, "--addr", "0.0.0.0:0", "--allow-remote", "--no-import")
	assert.Contains(t, errOut.String(), "reachable from other machines")
	assert.NotContains(t, errOut.String(), "no API key yet")
	cancel()
	assert.Equal(t, 0, <-done)
}
