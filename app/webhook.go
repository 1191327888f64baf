package app

import (
	"net/http"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/sync/webhook"
)

// The OpenHands webhook (package sync/webhook): an agent server pushes its
// conversations' events to POST /api/v1/webhooks/events/{id} with an API key, and
// the archive keeps and imports them (archive.Pushed). Once a push is imported,
// the search index is brought level and the open views are told, as live follow
// does, so pushed events show within a second.

// webhookHandler is the receiver mounted under webhook.Prefix, or nil when the
// app does not accept the webhook (Deps.Webhook off, or a read-only archive).
func (a *App) webhookHandler() http.Handler {
	if !a.deps.Webhook || a.deps.Archive == nil || a.deps.Archive.ReadOnly() {
		return nil
	}
	p := archive.NewPushed(a.deps.Archive)
	if settings, err := a.ImportSettings(); err == nil {
		p.Options.LenientHeaders = settings.LenientHeaders
	}
	changed := func(id string) { a.sessionsChanged([]string{id}) }
	return webhook.New(webhook.Archive(p, changed), webhook.Options{Prefix: webhook.Prefix, Logger: a.deps.Logger})
}
