package openhands_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive/openhands"
	"github.com/logbook/logbook/archive/openhands/openhandstest"
)

// corpusDir is the shared real corpus, read in place and never copied.
const corpusDir = "../../../shared/corpus/openhands"

// corpus returns the corpus path, skipping outside CI when it is absent and
// failing under CI.
func corpus(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat(corpusDir); err != nil {
		if os.Getenv("CI") == "" {
			t.Skipf("corpus %s absent: %v", corpusDir, err)
		}
		t.Fatalf("corpus %s absent under CI: %v", corpusDir, err)
	}
	return corpusDir
}

var condensationKind = regexp.MustCompile(`"kind":\s*"Condensation"`)

func TestCorpus(t *testing.T) {
	root := corpus(t)
	ctx := context.Background()
	units, err := openhands.Discover(ctx, []string{root})
	require.NoError(t, err)

	// Every folder holding event files, and every JSONL/array file, must be
	// found: list them independently with a plain walk.
	var wantPaths []string
	require.NoError(t, filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		require.NoError(t, err)
		switch {
		case !d.IsDir() && strings.HasSuffix(p, ".jsonl"):
			wantPaths = append(wantPaths, p)
		case !d.IsDir() && strings.Contains(p, "/trajs/") && strings.HasSuffix(p, ".json"):
			wantPaths = append(wantPaths, p)
		case !d.IsDir() && d.Name() == "base_state.json":
			wantPaths = append(wantPaths, filepath.Dir(p))
		case !d.IsDir() && regexp.MustCompile(`^event-\d+-.*\.json$`).MatchString(d.Name()) && filepath.Base(filepath.Dir(p)) != "events":
			wantPaths = append(wantPaths, filepath.Dir(p))
		case d.IsDir() && d.Name() == "events" && fileExists(filepath.Join(filepath.Dir(p), "metadata.json")):
			wantPaths = append(wantPaths, filepath.Dir(p))
		}
		return nil
	}))
	slices.Sort(wantPaths)
	wantPaths = slices.Compact(wantPaths)
	var gotPaths []string
	for _, u := range units {
		gotPaths = append(gotPaths, u.Path)
	}
	require.Equal(t, wantPaths, gotPaths)

	conversations := 0
	for _, u := range units {
		t.Run(strings.TrimPrefix(u.Path, root+"/"), func(t *testing.T) {
			c, err := openhands.Read(ctx, u)
			require.NoError(t, err)
			assert.Equal(t, openhands.VerdictOK, c.Verdict, "problems: %v", c.Problems)
			if c.Meta.ConversationID != "" {
				assert.Equal(t, c.Meta.ConversationID, u.SessionID, "the unit carries the conversation's own id")
			}
			want := openhandstest.CountEvents(t, u.Path, u.Layout)
			assert.Equal(t, want, len(c.Records))
			if want > 0 {
				conversations++
			}
			for i, r := range c.Records {
				assert.Equal(t, i, r.Index)
				assert.NotEmpty(t, r.Event.ID)
				_, ok := openhands.ParseTime(r.Event.Timestamp, time.UTC)
				assert.True(t, ok, "timestamp %q of %s", r.Event.Timestamp, r.File)
			}

			// Condensations: as many compactions as files/lines naming the kind.
			wantCond := 0
			for _, f := range c.Files {
				if f.Role == openhands.RoleEvent || f.Role == openhands.RoleContainer {
					wantCond += len(condensationKind.FindAll(f.Data, -1))
				}
			}
			p := openhands.Project(c.Records)
			assert.Len(t, p.Compactions, wantCond)
			for _, cp := range p.Compactions {
				assert.NotEmpty(t, cp.Forgotten)
				assert.NotEmpty(t, cp.Summary)
			}

			assertCorpusProjection(t, c, p)
			assertCorpusMetadata(t, c)

			// Re-export, then compare every original file but the skipped ones.
			out := t.TempDir()
			require.NoError(t, openhands.Export(ctx, c, out))
			assertSameTree(t, u, c, out)
		})
	}
	assert.GreaterOrEqual(t, conversations, 15)
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// assertSameTree compares the unit's files on disk with the exported copy,
// byte for byte, in both directions (skipped pickles aside).
func assertSameTree(t *testing.T, u openhands.Unit, c *openhands.Conversation, out string) {
	t.Helper()
	if u.Layout.SingleFile() {
		orig, err := os.ReadFile(u.Path)
		require.NoError(t, err)
		got, err := os.ReadFile(filepath.Join(out, filepath.Base(u.Path)))
		require.NoError(t, err)
		assert.True(t, bytes.Equal(orig, got), "single file differs")
		return
	}
	n := 0
	require.NoError(t, filepath.WalkDir(u.Path, func(p string, d os.DirEntry, err error) error {
		require.NoError(t, err)
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(u.Path, p)
		if slices.Contains(c.Skipped, filepath.ToSlash(rel)) {
			assert.True(t, strings.HasSuffix(rel, ".pkl"), "only pickles may be skipped, got %s", rel)
			return nil
		}
		orig, err := os.ReadFile(p)
		require.NoError(t, err)
		got, err := os.ReadFile(filepath.Join(out, rel))
		if assert.NoError(t, err, rel) {
			assert.True(t, bytes.Equal(orig, got), "%s differs", rel)
		}
		n++
		return nil
	}))
	assert.Len(t, c.Files, n, "exported files are exactly the kept ones")
}

// kindCount counts top-level-looking "kind": "<k>" members in the kept
// bytes: nested kinds (TerminalObservation, ...) never share these names.
func kindCount(c *openhands.Conversation, k string) int {
	re := regexp.MustCompile(`"kind":\s*"` + k + `"`)
	n := 0
	for _, f := range c.Files {
		if f.Role == openhands.RoleEvent || f.Role == openhands.RoleContainer {
			n += len(re.FindAll(f.Data, -1))
		}
	}
	return n
}

// assertCorpusProjection checks the projection against counts taken from
// the raw bytes, and that legacy names never leak through.
func assertCorpusProjection(t *testing.T, c *openhands.Conversation, p openhands.Projection) {
	t.Helper()
	for _, tc := range p.ToolCalls {
		assert.NotContains(t, []string{"execute_bash", "str_replace_editor"}, tc.Name)
		assert.False(t, strings.HasPrefix(tc.ActionKind, "ExecuteBash") || strings.HasPrefix(tc.ActionKind, "StrReplaceEditor"), tc.ActionKind)
		if tc.Result != nil {
			assert.False(t, strings.HasPrefix(tc.Result.ObservationKind, "ExecuteBash") || strings.HasPrefix(tc.Result.ObservationKind, "StrReplaceEditor"))
		}
	}
	if len(c.Records) == 0 || c.Records[0].Event.Dialect != openhands.DialectV1 {
		return
	}
	assert.Equal(t, kindCount(c, "MessageEvent"), len(p.Messages), "messages")
	assert.Equal(t, kindCount(c, "ActionEvent"), len(p.ToolCalls), "tool calls")
	paired := 0
	for _, tc := range p.ToolCalls {
		if tc.Result != nil {
			paired++
		}
	}
	results := kindCount(c, "ObservationEvent") + kindCount(c, "AgentErrorEvent") + kindCount(c, "UserRejectObservation")
	assert.Equal(t, results, paired+len(p.Orphans), "every result is paired or an orphan")
	assert.Equal(t, kindCount(c, "ConversationStateUpdateEvent"), len(p.States), "states")
}

// assertCorpusMetadata checks metadata against the side files, decoded
// here with a plain map.
func assertCorpusMetadata(t *testing.T, c *openhands.Conversation) {
	t.Helper()
	side := func(name string) map[string]any {
		f := c.File(name)
		if f == nil {
			return nil
		}
		var m map[string]any
		require.NoError(t, json.Unmarshal(f.Data, &m))
		return m
	}
	if st := side("base_state.json"); st != nil {
		assert.Equal(t, openhands.NormalizeID(st["id"].(string)), c.Meta.ConversationID)
		llm := st["agent"].(map[string]any)["llm"].(map[string]any)
		assert.Equal(t, llm["model"], c.Meta.Model)
		if cp, ok := st["confirmation_policy"].(map[string]any); ok {
			assert.Equal(t, cp["kind"], c.Meta.ConfirmationPolicy)
		}
	}
	if md := side("metadata.json"); md != nil {
		assert.Equal(t, md["title"], c.Meta.Title)
		assert.Equal(t, md["llm_model"], c.Meta.Model)
		assert.InDelta(t, md["accumulated_cost"], c.Meta.Usage.Cost, 1e-12)
	}
	if m := side("meta.json"); m != nil {
		assert.Equal(t, m["created_at"], c.Meta.CreatedAt)
	}
	if c.Meta.Title == "" {
		assert.Zero(t, kindCount(c, "MessageEvent"), "a conversation with messages has a title")
	}
}
