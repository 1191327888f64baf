package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestExportTurnsAndAround: --turns and --around cut md and html to some turns;
// a hit from `search --json` names its session.
func TestExportTurnsAndAround(t *testing.T) {
	data, a, _ := importGenerated(t)
	r := cliData(t, data, "export", a.ID(), "--format", "md", "--turns", "2-3")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "## Turn 2\n")
	assert.Contains(t, r.stdout, "## Turn 3\n")
	assert.NotContains(t, r.stdout, "## Turn 1\n")
	assert.NotContains(t, r.stdout, "## Turn 4\n")

	res := mustJSON[map[string]any](t, data, "search", "--json", "session:"+a.ID(), "kind:human")
	hits := objs(t, res["hits"])
	require.NotEmpty(t, hits)
	hit := hits[0]["id"].(string)
	r = cliData(t, data, "export", "--format", "html", "--around", hit, "--context", "0")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "excerpt: turns ")
	assert.Contains(t, r.stdout, "around seq ")

	for _, args := range [][]string{
		{"export", a.ID(), "--turns", "1-2"},                                  // jsonl is whole
		{"export", a.ID(), "--format", "bundle", "--turns", "1", "-o", "x"},   // so is a bundle
		{"export", a.ID(), "--format", "md", "--turns", "x"},                  // not a range
		{"export", a.ID(), "--format", "md", "--turns", "1", "--around", hit}, // one or the other
		{"export", "--format", "md", "--around", "nope"},                      // not a hit
		{"export", "other-session", "--format", "md", "--around", hit},        // another session's hit
	} {
		r := cliData(t, data, args...)
		assert.Equal(t, 2, r.code, "%v: %s", args, r.stderr)
	}
	r = cliData(t, data, "export", a.ID(), "--format", "md", "--turns", "40-50")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "has turns 1-8")
}
