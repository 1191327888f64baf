package app

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/logbook/logbook/internal/atomicfile"
)

// ImportSettings are the user's choices for imports started from the UI, kept in
// DATA/import.json.
type ImportSettings struct {
	// LenientHeaders accepts session headers written by pre-release dsh versions
	// (no delegationDepth, read as 0 with a warning), like `logbook import
	// --lenient-headers`. Files refused for that reason are read again.
	LenientHeaders bool `json:"lenient_headers"`
	// Roots are folders the person added to the session roots Logbook finds by
	// itself: imported by Import now and followed live like them. Absolute paths;
	// one that does not exist (yet) is shown as missing.
	Roots []string `json:"roots"`
}

// roots returns the import roots: the ones found by default (Deps.Roots), then
// the ones the person added, once each.
func (a *App) roots() []string {
	out := slices.Clone(a.deps.Roots)
	s, err := a.ImportSettings()
	if err != nil {
		a.log.Warn("import settings unreadable; using the default roots", "err", err)
	}
	for _, r := range s.Roots {
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	if out == nil {
		out = []string{}
	}
	return out
}

// cleanRoots checks and tidies the roots a person typed: absolute, cleaned, once
// each.
func cleanRoots(in []string) ([]string, error) {
	out := []string{}
	for _, r := range in {
		r = strings.TrimSpace(r)
		if r == "" {
			continue
		}
		if !filepath.IsAbs(r) {
			return nil, invalid(fmt.Sprintf("%q is not a full path: a folder to follow starts at the root (/home/you/sessions)", r))
		}
		if r = filepath.Clean(r); !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out, nil
}

func (a *App) importSettingsPath() string { return filepath.Join(a.deps.DataDir, "import.json") }

// ImportSettings returns the import settings (the defaults when none were saved).
func (a *App) ImportSettings() (ImportSettings, error) {
	s := ImportSettings{Roots: []string{}}
	if a.deps.DataDir == "" {
		return s, nil
	}
	err := atomicfile.ReadJSON(a.importSettingsPath(), &s)
	if errors.Is(err, os.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, fmt.Errorf("read import settings: %w", err)
	}
	if s.Roots == nil {
		s.Roots = []string{} // a list in the JSON contract, never null
	}
	return s, nil
}

// SetImportSettings saves the import settings; the next import uses them, and
// live follow restarts on the new roots when they changed.
func (a *App) SetImportSettings(s ImportSettings) error {
	if a.deps.DataDir == "" {
		return invalid("this app has no data directory to keep settings in")
	}
	roots, err := cleanRoots(s.Roots)
	if err != nil {
		return err
	}
	s.Roots = roots
	before := a.roots()
	if err := atomicfile.WriteJSON(a.importSettingsPath(), s); err != nil {
		return fmt.Errorf("save import settings: %w", err)
	}
	if !slices.Equal(before, a.roots()) {
		a.startFollow() // follow the new roots from now
		a.events.Publish(EventFollowStatus, a.followStatus())
	}
	return nil
}
