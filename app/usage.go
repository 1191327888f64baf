package app

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/internal/atomicfile"
)

// FileEdits returns the file changes a session's tool calls made, for the
// Files-changed panel.
func (a *App) FileEdits(id string) ([]archive.FileEdit, error) {
	if id = strings.TrimSpace(id); id == "" {
		return nil, invalid("a session id is required")
	}
	return a.deps.Archive.FileEdits(a.ctx, id)
}

// SessionUsage returns a session's token usage per turn and model.
func (a *App) SessionUsage(id string) ([]archive.UsageRow, error) {
	if id = strings.TrimSpace(id); id == "" {
		return nil, invalid("a session id is required")
	}
	return a.deps.Archive.SessionUsage(a.ctx, id)
}

// Usage returns the usage dashboard across sessions and projects.
func (a *App) Usage(f archive.UsageFilter) (archive.UsageReport, error) {
	if f.TZOffsetMinutes < -14*60 || f.TZOffsetMinutes > 14*60 {
		return archive.UsageReport{}, invalid("the time zone offset must be within ±14 hours")
	}
	return a.deps.Archive.Usage(a.ctx, f)
}

// SessionGists returns, for every session, what its row in the sessions list
// says happened: last prompt, files changed, tool errors.
func (a *App) SessionGists() ([]archive.SessionGist, error) {
	m, err := a.deps.Archive.SessionGists(a.ctx)
	if err != nil {
		return nil, err
	}
	out := make([]archive.SessionGist, 0, len(m))
	for _, g := range m {
		out = append(out, g)
	}
	return out, nil
}

// ModelPrice is what one model costs in US dollars per million tokens. A model
// matches when its name (as logged, e.g. "anthropic/claude-sonnet-4-20250514")
// contains Match; the longest match wins.
type ModelPrice struct {
	Match     string  `json:"match"`
	Input     float64 `json:"input"`
	Output    float64 `json:"output"`
	CacheRead float64 `json:"cache_read"`
}

// Prices is the price table usage costs are estimated from, kept in DATA/prices.json.
type Prices struct {
	Models []ModelPrice `json:"models"`
}

// DefaultPrices are list prices (USD per million tokens) of the models seen in the
// logs Logbook was built against; the person edits them in Settings.
func DefaultPrices() Prices {
	return Prices{Models: []ModelPrice{
		{Match: "deepseek-v4-flash", Input: 0.27, Output: 1.10, CacheRead: 0.07},
		{Match: "deepseek-v4-pro", Input: 0.55, Output: 2.19, CacheRead: 0.14},
		{Match: "deepseek-chat", Input: 0.27, Output: 1.10, CacheRead: 0.07},
		{Match: "deepseek-reasoner", Input: 0.55, Output: 2.19, CacheRead: 0.14},
		{Match: "claude-sonnet-4", Input: 3, Output: 15, CacheRead: 0.30},
		{Match: "claude-3-7-sonnet", Input: 3, Output: 15, CacheRead: 0.30},
		{Match: "claude-3-5-sonnet", Input: 3, Output: 15, CacheRead: 0.30},
		{Match: "gpt-4o-mini", Input: 0.15, Output: 0.60, CacheRead: 0.075},
		{Match: "minimax-m2", Input: 0.30, Output: 1.20, CacheRead: 0.03},
	}}
}

func (a *App) pricesPath() string { return filepath.Join(a.deps.DataDir, "prices.json") }

// Prices returns the price table (the defaults until the person saves one).
func (a *App) Prices() (Prices, error) {
	if a.deps.DataDir == "" {
		return DefaultPrices(), nil
	}
	var p Prices
	err := atomicfile.ReadJSON(a.pricesPath(), &p)
	if errors.Is(err, os.ErrNotExist) {
		return DefaultPrices(), nil
	}
	if err != nil {
		return Prices{}, fmt.Errorf("read prices: %w", err)
	}
	if p.Models == nil {
		p.Models = []ModelPrice{}
	}
	return p, nil
}

// SetPrices saves the price table; an empty Models list restores the defaults.
func (a *App) SetPrices(p Prices) error {
	if a.deps.DataDir == "" {
		return invalid("this app has no data directory to keep settings in")
	}
	if len(p.Models) == 0 {
		p = DefaultPrices()
	}
	for i, m := range p.Models {
		p.Models[i].Match = strings.TrimSpace(m.Match)
		if p.Models[i].Match == "" {
			return invalid(fmt.Sprintf("price row %d names no model", i+1))
		}
		for _, v := range []float64{m.Input, m.Output, m.CacheRead} {
			if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
				return invalid(fmt.Sprintf("price row %d (%s): a price is a number of dollars, 0 or more", i+1, m.Match))
			}
		}
	}
	if err := atomicfile.WriteJSON(a.pricesPath(), p); err != nil {
		return fmt.Errorf("save prices: %w", err)
	}
	return nil
}
