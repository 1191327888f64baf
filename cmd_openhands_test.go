package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/openhands"
	"github.com/logbook/logbook/archive/openhandsgen"
)

// openhandsCorpusConv is a real Sept 2025 agent-server conversation with two
// Condensations (see ../shared/corpus/openhands/PROVENANCE.md).
const openhandsCorpusConv = "../shared/corpus/openhands/benchmarks/workspace/conversations/3749ed60c63e4def840a46f15f4ee18c/event_service"

// TestOpenHandsInListings imports a real OpenHands conversation and a generated
// one in confirmation mode beside a dsh session: sessions and show name their
// agent, compactions lists the real one's condensations, and approvals the
// generated one's confirmations.
func TestOpenHandsInListings(t *testing.T) {
	conv, err := filepath.Abs(openhandsCorpusConv)
	require.NoError(t, err)
	if _, err := os.Stat(conv); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("OpenHands corpus absent under CI: %v", err)
		}
		t.Skipf("OpenHands corpus absent: %v", err)
	}
	// The report names the folder it read, links resolved (../shared may be one).
	conv, err = filepath.EvalSymlinks(conv)
	require.NoError(t, err)
	data := t.TempDir()
	dshLog, dshPath := genLog(t, t.TempDir(), 3, "/home/u/dsh", false)
	facts, err := openhandsgen.Generate(t.TempDir(), openhandsgen.Options{Layout: openhands.LayoutSDK, Seed: 8, Turns: 10, Confirmation: true})
	require.NoError(t, err)
	require.Positive(t, facts.Rejections)
	rep := mustJSON[archive.ImportReport](t, data, "import", "--json", conv, facts.Unit.Path, dshPath)
	agents := map[string]string{} // session id → agent
	var real, confirm string
	for _, f := range rep.Files {
		require.Equal(t, archive.VerdictOK, f.Verdict, "%s: %+v", f.Path, f.Error)
		agents[f.SessionID] = f.Agent
		switch f.Path {
		case conv:
			real = f.SessionID
		case facts.Unit.Path:
			confirm = f.SessionID
		}
	}
	require.NotEmpty(t, real)
	require.NotEmpty(t, confirm)
	assert.Equal(t, "openhands", agents[real])
	assert.Equal(t, "openhands", agents[confirm])
	agents[dshLog.ID()] = "dsh" // a dsh file's report leaves agent out

	ss := objs(t, mustJSON[any](t, data, "sessions", "--json"))
	require.Len(t, ss, 3)
	for _, s := range ss {
		id := s["id"].(string)
		assert.Equal(t, agents[id], s["agent"], id)
	}
	show := obj(t, obj(t, mustJSON[any](t, data, "show", real, "--json"))["session"])
	assert.Equal(t, "openhands", show["agent"], "show names the agent")

	comps := objs(t, mustJSON[any](t, data, "compactions", "--json", "--session", real))
	assert.Len(t, comps, 2, "both Condensations")
	for _, c := range comps {
		assert.Equal(t, real, c["session_id"])
		assert.Equal(t, "openhands", c["agent"])
		assert.NotEmpty(t, arr(t, c["shadowedSeqs"]), "a condensation names what it forgot")
	}
	all := sessionIDs(objs(t, mustJSON[any](t, data, "compactions", "--json")))
	assert.Equal(t, 2, all[real], "the unfiltered list holds them too")

	apps := objs(t, mustJSON[any](t, data, "approvals", "--json", "--session", confirm))
	rejected := 0
	for _, a := range apps {
		assert.Equal(t, confirm, a["session_id"])
		assert.Equal(t, "openhands", a["agent"])
		if a["outcome"] == "rejected" {
			rejected++
		}
	}
	assert.Equal(t, facts.Rejections, rejected, "every rejection decides an approval")
	assert.Positive(t, sessionIDs(objs(t, mustJSON[any](t, data, "approvals", "--json")))[confirm])
}
