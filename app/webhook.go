package app

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/internal/atomicfile"
	"github.com/logbook/logbook/sync/webhook"
)

// The OpenHands webhook (package sync/webhook): an agent server pushes its
// conversations' events to POST /api/v1/webhooks/events/{id} with an API key, and
// the archive keeps and imports them (archive.Pushed). Once a push is imported,
// the search index is brought level and the open views are told, as live follow
// does, so pushed events show within a second. A conversation takes pushes from
// the API key that created it alone (pushKey, apiKeyLive).

// webhookHandler is the receiver mounted under webhook.Prefix, or nil when the
// app does not accept the webhook (Deps.Webhook off, or a read-only archive).
func (a *App) webhookHandler() http.Handler {
	if !a.deps.Webhook || a.deps.Archive == nil || a.deps.Archive.ReadOnly() {
		return nil
	}
	p := archive.NewPushed(a.deps.Archive)
	p.KeyLive = a.apiKeyLive
	if settings, err := a.ImportSettings(); err == nil {
		p.Options.LenientHeaders = settings.LenientHeaders
	}
	changed := func(id string) { a.sessionsChanged([]string{id}) }
	return webhook.New(webhook.Archive(p, changed), webhook.Options{Prefix: webhook.Prefix, KeyOf: pushKey, Logger: a.deps.Logger})
}

// WebhookSettings say whether the desktop window accepts the OpenHands webhook,
// and on which loopback address; kept in DATA/webhook.json. (`logbook serve`
// accepts it unless started with --no-webhook, whatever they say.)
type WebhookSettings struct {
	Enabled bool   `json:"enabled"`
	Addr    string `json:"addr"` // host:port on loopback; DefaultWebhookAddr when empty
}

// WebhookStatus is the webhook settings and what this process does now.
type WebhookStatus struct {
	Enabled bool   `json:"enabled"`
	Addr    string `json:"addr"`
	// Serving is the webhook's base URL when this process accepts it now, else "".
	Serving string `json:"serving"`
	// Note says what the settings change and when, in words for the person.
	Note string `json:"note"`
}

// DefaultWebhookAddr is where the window listens for the webhook by default:
// the address `logbook serve` uses.
const DefaultWebhookAddr = "127.0.0.1:8765"

// webhookSettingsFile is the settings' file in the data directory.
const webhookSettingsFile = "webhook.json"

// LoadWebhookSettings reads the webhook settings of a data directory (the
// defaults, off, when none were saved).
func LoadWebhookSettings(dataDir string) (WebhookSettings, error) {
	s := WebhookSettings{Addr: DefaultWebhookAddr}
	if dataDir == "" {
		return s, nil
	}
	err := atomicfile.ReadJSON(filepath.Join(dataDir, webhookSettingsFile), &s)
	if errors.Is(err, os.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return WebhookSettings{Addr: DefaultWebhookAddr}, fmt.Errorf("read webhook settings: %w", err)
	}
	if s.Addr == "" {
		s.Addr = DefaultWebhookAddr
	}
	// SetWebhookSettings saves loopback addresses only; a hand-edited file that
	// names another is refused here too, so the window never listens on it.
	if err := checkWebhookAddr(s.Addr); err != nil {
		return WebhookSettings{Addr: DefaultWebhookAddr}, fmt.Errorf("read webhook settings %s: %w", webhookSettingsFile, err)
	}
	return s, nil
}

// WebhookSettings returns the webhook settings and whether this process accepts
// the webhook now.
func (a *App) WebhookSettings() (WebhookStatus, error) {
	s, err := LoadWebhookSettings(a.deps.DataDir)
	return a.webhookStatus(s), err
}

// SetWebhookSettings saves the webhook settings; the window takes them when it
// next opens. The address must be on loopback: accepting pushes from other
// machines is `logbook serve --allow-remote`'s, with its checks.
func (a *App) SetWebhookSettings(s WebhookSettings) (WebhookStatus, error) {
	if a.deps.DataDir == "" {
		return WebhookStatus{}, invalid("this app has no data directory to keep settings in")
	}
	s.Addr = strings.TrimSpace(s.Addr)
	if s.Addr == "" {
		s.Addr = DefaultWebhookAddr
	}
	if err := checkWebhookAddr(s.Addr); err != nil {
		return WebhookStatus{}, err
	}
	if err := atomicfile.WriteJSON(filepath.Join(a.deps.DataDir, webhookSettingsFile), s); err != nil {
		return WebhookStatus{}, fmt.Errorf("save webhook settings: %w", err)
	}
	return a.webhookStatus(s), nil
}

// checkWebhookAddr checks that the window's webhook address is host:port on
// loopback.
func checkWebhookAddr(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || port == "" {
		return invalid(fmt.Sprintf("%q is not an address: write it as host:port, for example %s", addr, DefaultWebhookAddr))
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return invalid(fmt.Sprintf("%q is not a port: a number from 1 to 65535", port))
	}
	if !IsLoopbackHost(host) {
		return invalid(fmt.Sprintf("%s is reachable from other machines: the window listens on loopback only (127.0.0.1); use `logbook serve --allow-remote` to accept pushes from elsewhere", addr))
	}
	return nil
}

// IsLoopbackHost reports whether a listen host only accepts connections from
// this machine ("" and 0.0.0.0 listen on every interface).
func IsLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// webhookStatus is s with what this process does.
func (a *App) webhookStatus(s WebhookSettings) WebhookStatus {
	st := WebhookStatus{Enabled: s.Enabled, Addr: s.Addr}
	a.mu.Lock()
	st.Serving = a.webhookURL
	a.mu.Unlock()
	switch {
	case st.Serving != "" && !a.events.desktop():
		st.Note = "logbook serve accepts the webhook (start it with --no-webhook to turn it off); these settings are the window's."
	case st.Serving != "" && !s.Enabled:
		st.Note = "Accepting until the window closes; off from the next start."
	case st.Serving != "":
		st.Note = "Accepting pushes with an API key."
	case s.Enabled:
		st.Note = "Takes effect when the window next opens."
	default:
		st.Note = "Off."
	}
	return st
}

// noteWebhook records the base URL the server accepts the webhook on.
func (a *App) noteWebhook(addr string) {
	a.mu.Lock()
	a.webhookURL = "http://" + addr + webhook.Prefix
	a.mu.Unlock()
}
