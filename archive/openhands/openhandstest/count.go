// Package openhandstest holds test support for package openhands and its
// callers: checks that count what a conversation holds without the reader.
package openhandstest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive/openhands"
)

var (
	eventFileName   = regexp.MustCompile(`^event-\d+-.*\.json$`)
	v0EventFileName = regexp.MustCompile(`^\d+\.json$`)
)

// CountEvents counts the events of the conversation at path, laid out as
// layout, without package openhands' reader: event file names for folders,
// non-blank lines for JSONL, top-level array items (or the "trajectory"
// member's) for a V0 trajectory. It fails t for a layout it cannot count.
func CountEvents(t testing.TB, path string, layout openhands.Layout) int {
	t.Helper()
	count := func(dir string, re *regexp.Regexp) int {
		entries, err := os.ReadDir(dir)
		if os.IsNotExist(err) {
			return 0
		}
		require.NoError(t, err)
		n := 0
		for _, e := range entries {
			if re.MatchString(e.Name()) {
				n++
			}
		}
		return n
	}
	switch layout {
	case openhands.LayoutSDK:
		return count(filepath.Join(path, "events"), eventFileName)
	case openhands.LayoutCLITrajectory:
		return count(path, eventFileName)
	case openhands.LayoutV0Session:
		return count(filepath.Join(path, "events"), v0EventFileName)
	case openhands.LayoutJSONL:
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		n := 0
		for _, l := range bytes.Split(data, []byte("\n")) {
			if len(bytes.TrimSpace(l)) > 0 {
				n++
			}
		}
		return n
	case openhands.LayoutV0Trajectory:
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		var items []json.RawMessage
		if json.Unmarshal(data, &items) != nil {
			var w struct{ Trajectory []json.RawMessage }
			require.NoError(t, json.Unmarshal(data, &w))
			items = w.Trajectory
		}
		return len(items)
	}
	t.Fatalf("layout %s not counted", layout)
	return 0
}
