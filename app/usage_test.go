package app

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
)

// TestPrices: the defaults until a table is saved, the saved table after, the
// defaults again when an empty one is saved; bad rows are refused with the row
// named and leave the saved table alone.
func TestPrices(t *testing.T) {
	ta := newTestApp(t)
	p, err := ta.Prices()
	require.NoError(t, err)
	assert.Equal(t, DefaultPrices(), p)

	mine := Prices{Models: []ModelPrice{{Match: " my-model ", Input: 1, Output: 2, CacheRead: 0.5}}}
	require.NoError(t, ta.SetPrices(mine))
	p, err = ta.Prices()
	require.NoError(t, err)
	assert.Equal(t, Prices{Models: []ModelPrice{{Match: "my-model", Input: 1, Output: 2, CacheRead: 0.5}}}, p)

	for name, bad := range map[string]ModelPrice{
		"NoName":   {Match: "  ", Input: 1},
		"Negative": {Match: "x", Output: -1},
	} {
		t.Run(name, func(t *testing.T) {
			err := ta.SetPrices(Prices{Models: []ModelPrice{{Match: "ok"}, bad}})
			require.Error(t, err)
			assert.Contains(t, FormatError(err), "row 2")
			after, err := ta.Prices()
			require.NoError(t, err)
			assert.Equal(t, "my-model", after.Models[0].Match, "a refused table is not saved")
		})
	}

	require.NoError(t, ta.SetPrices(Prices{}))
	p, err = ta.Prices()
	require.NoError(t, err)
	assert.Equal(t, DefaultPrices(), p)

	t.Run("Unreadable", func(t *testing.T) {
		require.NoError(t, os.WriteFile(filepath.Join(ta.deps.DataDir, "prices.json"), []byte("{not json"), 0o644))
		_, err := ta.Prices()
		assert.ErrorContains(t, err, "prices.json")
	})
}

// TestUsageMethodsValidate: the per-session methods want a session id, and the
// dashboard a sane time zone offset; a real session answers.
func TestUsageMethodsValidate(t *testing.T) {
	ta := newTestApp(t)
	_, err := ta.FileEdits(" ")
	assert.Contains(t, FormatError(err), "session id is required")
	_, err = ta.SessionUsage("")
	assert.Contains(t, FormatError(err), "session id is required")
	_, err = ta.Usage(archive.UsageFilter{TZOffsetMinutes: 15 * 60})
	assert.Contains(t, FormatError(err), "±14 hours")

	l := ta.generate(t, 9, "/home/u/p")
	require.NoError(t, ta.StartImport())
	ta.waitImport(t)
	rows, err := ta.SessionUsage(l.ID())
	require.NoError(t, err)
	assert.NotEmpty(t, rows)
	r, err := ta.Usage(archive.UsageFilter{TZOffsetMinutes: 120})
	require.NoError(t, err)
	assert.Equal(t, int64(1), r.Sessions)
	gists, err := ta.SessionGists()
	require.NoError(t, err)
	require.Len(t, gists, 1)
	assert.Equal(t, l.ID(), gists[0].ID)
	assert.NotEmpty(t, gists[0].LastPrompt)
}
