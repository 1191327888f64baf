package app

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/internal/apikey"
)

// machineCall sends a request to a machine path, with key in X-Session-API-Key
// when set, and returns the status and the decoded {"detail": …}.
func (ts *testServer) machineCall(t *testing.T, method, path, key string, browserToken bool) (int, string) {
	t.Helper()
	r := ts.req(t, method, path, "", browserToken)
	if key != "" {
		r.Header.Set("X-Session-API-Key", key)
	}
	resp, body := do(t, r)
	assert.Equal(t, "application/json; charset=utf-8", resp.Header.Get("Content-Type"), "%s %s", method, path)
	var d struct {
		Detail *string `json:"detail"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &d), body)
	require.NotNil(t, d.Detail, "a FastAPI-shaped answer: %s", body)
	return resp.StatusCode, *d.Detail
}

func TestMachineEndpoints(t *testing.T) {
	ts := newTestServer(t)
	k, err := ts.NewAPIKey("script")
	require.NoError(t, err)
	paths := []string{
		"/api/v1/conversation/0b6c3f5e-0000-4000-8000-000000000000/events/search",
		"/api/conversations/abc/events/count",
		"/api/v1/webhooks/events/abc",
	}
	for _, p := range paths {
		t.Run(p, func(t *testing.T) {
			code, detail := ts.machineCall(t, "GET", p, "", false)
			assert.Equal(t, http.StatusUnauthorized, code)
			assert.Equal(t, "X-Session-API-Key header is required", detail)

			code, detail = ts.machineCall(t, "GET", p, "", true)
			assert.Equal(t, http.StatusUnauthorized, code, "the browser's token opens no machine endpoint")
			assert.Equal(t, "X-Session-API-Key header is required", detail)

			for _, wrong := range []string{testToken, k.Key + "x", "lbk_" + k.Info.Fingerprint} {
				code, detail = ts.machineCall(t, "GET", p, wrong, true)
				assert.Equal(t, http.StatusUnauthorized, code, wrong)
				assert.Equal(t, "Invalid session API key", detail)
			}

			code, detail = ts.machineCall(t, "GET", p, k.Key, false)
			assert.Equal(t, http.StatusNotFound, code, "no such conversation, or reserved: no endpoint yet")
			assert.Equal(t, "Not Found", detail)
			code, _ = ts.machineCall(t, "POST", p, k.Key, false)
			if strings.Contains(p, "/events/search") || strings.Contains(p, "/events/count") {
				assert.Equal(t, http.StatusMethodNotAllowed, code, "the events API is read with GET")
			} else {
				assert.Equal(t, http.StatusNotFound, code)
			}
		})
	}
	t.Run("a key is no browser token", func(t *testing.T) {
		r := ts.req(t, "POST", "/api/Info", "[]", false)
		r.Header.Set("X-Session-API-Key", k.Key)
		resp, _ := do(t, r)
		assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	})
	t.Run("revoked", func(t *testing.T) {
		require.NoError(t, ts.RevokeAPIKey("script"))
		code, detail := ts.machineCall(t, "GET", paths[0], k.Key, false)
		assert.Equal(t, http.StatusUnauthorized, code)
		assert.Equal(t, "Invalid session API key", detail)
	})
	t.Run("made by another process", func(t *testing.T) {
		// The CLI's store: another Store on the same file.
		other, err := apikey.New(filepath.Join(ts.deps.DataDir, apikey.FileName)).Create("cli")
		require.NoError(t, err)
		code, _ := ts.machineCall(t, "GET", paths[1], other.Key, false)
		assert.Equal(t, http.StatusNotFound, code)
		require.NoError(t, apikey.New(filepath.Join(ts.deps.DataDir, apikey.FileName)).Revoke("cli"))
		code, _ = ts.machineCall(t, "GET", paths[1], other.Key, false)
		assert.Equal(t, http.StatusUnauthorized, code)
	})
	t.Run("a damaged key file lets nobody in", func(t *testing.T) {
		k2, err := ts.NewAPIKey("second")
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(ts.deps.DataDir, apikey.FileName), []byte("{"), 0o600))
		code, _ := ts.machineCall(t, "GET", paths[0], k2.Key, false)
		assert.Equal(t, http.StatusServiceUnavailable, code)
	})
}

func TestAPIKeyMethods(t *testing.T) {
	ta := newTestApp(t)
	list, err := ta.APIKeys()
	require.NoError(t, err)
	assert.NotNil(t, list)
	assert.Empty(t, list)

	k, err := ta.NewAPIKey(" ci ")
	require.NoError(t, err)
	assert.Equal(t, "ci", k.Info.Name)
	_, err = ta.NewAPIKey(" ci")
	assert.Equal(t, "A key named “ci” already exists: choose another name, or revoke that one first.", FormatError(err))
	assert.Equal(t, http.StatusUnprocessableEntity, errorStatus(err))
	_, err = ta.NewAPIKey("no spaces")
	assert.Contains(t, FormatError(err), "1 to 64 letters")

	list, err = ta.APIKeys()
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, k.Info.Fingerprint, list[0].Fingerprint)
	b, err := json.Marshal(list)
	require.NoError(t, err)
	assert.NotContains(t, string(b), k.Key, "the list never carries the key")

	require.NoError(t, ta.RevokeAPIKey("ci"))
	err = ta.RevokeAPIKey("ci")
	assert.Contains(t, FormatError(err), "no API key named “ci”")
}

// TestMachineWrapper is machine as a later endpoint uses it: the handler runs only
// for a valid key, and learns the key's name.
func TestMachineWrapper(t *testing.T) {
	ts := newTestServer(t)
	k, err := ts.NewAPIKey("hook")
	require.NoError(t, err)
	var reached []string
	h := ts.s.machine(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached = append(reached, APIKeyName(r.Context()))
		writeJSON(w, http.StatusOK, map[string]bool{"success": true})
	}))
	for _, key := range []string{"", "lbk_nope", testToken} {
		w := httptest.NewRecorder()
		r := httptest.NewRequest("POST", "/api/v1/webhooks/events/abc", strings.NewReader("[]"))
		r.Header.Set("X-Logbook-Token", testToken)
		if key != "" {
			r.Header.Set("X-Session-API-Key", key)
		}
		h.ServeHTTP(w, r)
		assert.Equal(t, http.StatusUnauthorized, w.Code, key)
		assert.Equal(t, "close", w.Header().Get("Connection"), "a refused body is not read")
	}
	assert.Empty(t, reached, "no request without a valid key reaches the endpoint")
	w := httptest.NewRecorder()
	r := httptest.NewRequest("POST", "/api/v1/webhooks/events/abc", strings.NewReader("[]"))
	r.Header.Set("X-Session-API-Key", k.Key)
	h.ServeHTTP(w, r)
	assert.Equal(t, http.StatusOK, w.Code)
	assert.Equal(t, []string{"hook"}, reached)
}
