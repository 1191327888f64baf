package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestShowAndExportGenerated(t *testing.T) {
	data, a, _ := importGenerated(t)

	r := cliData(t, data, "show", a.ID())
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, a.ID())
	assert.Contains(t, r.stdout, "shadowed by compaction")

	v := mustJSON[map[string]any](t, data, "show", "--json", a.ID())
	assert.Equal(t, a.ID(), obj(t, v["session"])["id"])
	assert.Positive(t, assertInstantsUTC(t, v))

	r = cliData(t, data, "export", a.ID())
	require.Equal(t, 0, r.code, r.stderr)
	assert.True(t, r.stdout == string(a.JSONL()), "export differs from the generated JSONL")
}
