package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/logbook/logbook/internal/atomicfile"
)

// ImportSettings are the user's choices for imports started from the UI, kept in
// DATA/import.json.
type ImportSettings struct {
	// LenientHeaders accepts session headers written by pre-release dsh versions
	// (no delegationDepth, read as 0 with a warning), like `logbook import
	// --lenient-headers`. Files refused for that reason are read again.
	LenientHeaders bool `json:"lenient_headers"`
}

func (a *App) importSettingsPath() string { return filepath.Join(a.deps.DataDir, "import.json") }

// ImportSettings returns the import settings (the defaults when none were saved).
func (a *App) ImportSettings() (ImportSettings, error) {
	var s ImportSettings
	if a.deps.DataDir == "" {
		return s, nil
	}
	data, err := os.ReadFile(a.importSettingsPath())
	if errors.Is(err, os.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, fmt.Errorf("read import settings: %w", err)
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return s, fmt.Errorf("import settings %s: %w", a.importSettingsPath(), err)
	}
	return s, nil
}

// SetImportSettings saves the import settings; the next import uses them.
func (a *App) SetImportSettings(s ImportSettings) error {
	if a.deps.DataDir == "" {
		return invalid("this app has no data directory to keep settings in")
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(a.importSettingsPath(), append(data, '\n')); err != nil {
		return fmt.Errorf("save import settings: %w", err)
	}
	return nil
}
