package app

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/internal/apikey"
)

// The settings view's API keys: the same store `logbook apikey` manages
// (package apikey), so a key made in either works in both.

// APIKeys returns the API keys (never the keys themselves), oldest first.
func (a *App) APIKeys() ([]apikey.Info, error) {
	if a.deps.APIKeys == nil {
		return []apikey.Info{}, nil
	}
	return a.deps.APIKeys.List()
}

// NewAPIKey makes an API key named name ("" picks one) and returns it: the only
// time the key can be shown.
func (a *App) NewAPIKey(name string) (apikey.NewKey, error) {
	if a.deps.APIKeys == nil {
		return apikey.NewKey{}, invalid("this app has no data directory to keep API keys in")
	}
	name = strings.TrimSpace(name)
	k, err := a.deps.APIKeys.Create(name)
	switch {
	case errors.Is(err, apikey.ErrBadName):
		return k, invalid("A key name is 1 to 64 letters, digits, '.', '_' or '-'.")
	case errors.Is(err, apikey.ErrExists):
		return k, invalid("A key named “" + name + "” already exists: choose another name, or revoke that one first.")
	}
	return k, err
}

// RevokeAPIKey deletes the API key named name; requests with it are refused from
// then on. The webhook conversations bound to it are claimed by the next key
// that pushes to them (archive.Pushed).
func (a *App) RevokeAPIKey(name string) error {
	if a.deps.APIKeys == nil {
		return invalid("there are no API keys here")
	}
	err := a.deps.APIKeys.Revoke(name)
	if errors.Is(err, apikey.ErrNotFound) {
		return invalid("There is no API key named “" + name + "” (it may have been revoked already).")
	}
	return err
}

// The machine-to-machine endpoints: tools and scripts (the OpenHands-compatible
// events API, the webhook) authenticate with an API key in the X-Session-API-Key
// header, never with the browser's token or a cookie. Their answers are
// FastAPI-shaped ({"detail": …}), as the clients written for OpenHands expect.

// apiKeyHeader is the header a machine client sends its key in.
const apiKeyHeader = "X-Session-API-Key"

// machinePrefixes are the paths of the machine-to-machine endpoints: the app
// server's events API, the agent server's, and the webhook receiver. ServeHTTP
// leaves them to machine, not to the browser token.
var machinePrefixes = []string{"/api/v1/conversation/", "/api/conversations/", webhookPrefix}

// webhookPrefix is where the OpenHands webhook is served (webhook.go).
const webhookPrefix = "/api/v1/webhooks/"

// isMachinePath reports whether p is under a machine-to-machine prefix.
func isMachinePath(p string) bool {
	for _, pre := range machinePrefixes {
		if strings.HasPrefix(p, pre) {
			return true
		}
	}
	return false
}

type keyCtx struct{}

// APIKeyName returns the name of the API key a machine request was authenticated
// with ("" outside machine).
func APIKeyName(ctx context.Context) string {
	return apiKeyOf(ctx).Name
}

// apiKeyOf is the API key a machine request was authenticated with (zero
// outside machine): its name and fingerprint, never the key.
func apiKeyOf(ctx context.Context) apikey.Info {
	k, _ := ctx.Value(keyCtx{}).(apikey.Info)
	return k
}

// pushKey is the key a webhook push is bound by (archive.Pushed): the name and
// fingerprint of the key it was authenticated with.
func pushKey(r *http.Request) archive.PushKey {
	k := apiKeyOf(r.Context())
	return archive.PushKey{Name: k.Name, Fingerprint: k.Fingerprint}
}

// apiKeyLive reports whether the key a conversation is bound to still exists:
// the same name and fingerprint (a key made later under a revoked key's name is
// another key).
func (a *App) apiKeyLive(k archive.PushKey) (bool, error) {
	if a.deps.APIKeys == nil {
		return false, nil
	}
	keys, err := a.deps.APIKeys.List()
	if err != nil {
		return false, err
	}
	for _, info := range keys {
		if info.Name == k.Name && info.Fingerprint == k.Fingerprint {
			return true, nil
		}
	}
	return false, nil
}

// machine wraps the handler of a machine-to-machine endpoint: requests without a
// key, or with a key that is unknown or revoked, get 401 and never reach h.
func (s *Server) machine(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get(apiKeyHeader)
		if key == "" {
			s.refuseMachine(w, r, http.StatusUnauthorized, apiKeyHeader+" header is required")
			return
		}
		store := s.app.deps.APIKeys
		if store == nil {
			s.refuseMachine(w, r, http.StatusUnauthorized, "Invalid session API key")
			return
		}
		k, err := store.Check(key)
		if errors.Is(err, apikey.ErrInvalid) {
			s.refuseMachine(w, r, http.StatusUnauthorized, "Invalid session API key")
			return
		}
		if err != nil {
			// Closed, not open: a damaged key file lets nobody in.
			s.log.Error("API keys unreadable; refusing machine requests", "err", err)
			s.refuseMachine(w, r, http.StatusServiceUnavailable, "API keys could not be read; see the server's log")
			return
		}
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), keyCtx{}, k)))
	})
}

// refuseMachine is refuse for a machine endpoint: its body is {"detail": msg}.
func (s *Server) refuseMachine(w http.ResponseWriter, r *http.Request, status int, msg string) {
	dropBody(w, r)
	writeDetail(w, status, msg)
}

// writeDetail writes a FastAPI-shaped error: {"detail": msg}.
func writeDetail(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"detail": msg})
}

// reservedMachine answers a machine path no endpoint serves yet, as FastAPI
// answers an unknown route.
func reservedMachine(w http.ResponseWriter, _ *http.Request) {
	writeDetail(w, http.StatusNotFound, "Not Found")
}
