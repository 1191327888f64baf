package dsh

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestKnownEventType(t *testing.T) {
	require.Len(t, v0EventTypes, 51, "the V0 inventory has 51 event types")
	cases := []struct {
		typ                    string
		known, surface, legacy bool
	}{
		{"turn/start", true, false, false},
		{"assistant/chunk", true, false, false},
		{"user/message", true, true, false},
		{"assistant/message", true, true, false},
		{"tool/result", true, true, false},
		{"tool/call", true, false, false},
		{"session-log-deepseek/delivery-accepted", true, false, false},
		{"team/message/queued", true, false, false},
		{"compaction/start", true, false, false},
		{"compact/start", false, false, true},
		{"compact/summary", false, false, true},
		{"steering/message", false, false, true},
		{"request/header-delta", false, false, true},
		{"mode/set", false, false, true},
		{"assistant/attempt", false, false, false}, // V2+
		{"system/message", false, false, false},    // V3+
		{"text-chunks", false, false, false},       // a packed row tag, not an event
		{"", false, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.typ, func(t *testing.T) {
			assert.Equal(t, tc.known, KnownEventType(tc.typ), "known")
			assert.Equal(t, tc.surface, IsSurfaceType(tc.typ), "surface")
			assert.Equal(t, tc.legacy, LegacyEventType(tc.typ), "legacy")
		})
	}
}

// TestKnownEventTypeMatchesCatalogue cross-checks the inventory against the machine
// roots of the zh catalogue, when the shared seeds are present.
func TestKnownEventTypeMatchesCatalogue(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "seeds", "003_814db0b2fd8675a9.txt"))
	if os.IsNotExist(err) {
		t.Skip("catalogue seed is absent")
	}
	require.NoError(t, err)
	roots := regexp.MustCompile(`(?m)^"event:([^"]+)": [0-9a-f]{64}$`).FindAllSubmatch(raw, -1)
	require.Len(t, roots, 51)
	for _, m := range roots {
		assert.True(t, KnownEventType(string(m[1])), "catalogue root %s", m[1])
	}
}
