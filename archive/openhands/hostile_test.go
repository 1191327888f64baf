package openhands_test

import (
	"archive/zip"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive/openhands"
	"github.com/logbook/logbook/archive/openhandsgen"
)

func kinds(c *openhands.Conversation) map[openhands.ProblemKind]int {
	m := map[openhands.ProblemKind]int{}
	for _, p := range c.Problems {
		m[p.Kind]++
	}
	return m
}

func TestSizeCap(t *testing.T) {
	ctx := context.Background()
	r := &openhands.Reader{MaxFileSize: 4096}

	t.Run("EventFile", func(t *testing.T) {
		facts, err := openhandsgen.Generate(t.TempDir(), openhandsgen.Options{Layout: openhands.LayoutSDK, Seed: 3, PadOutput: 5000})
		require.NoError(t, err)
		c, err := r.Read(ctx, facts.Unit)
		require.NoError(t, err)
		assert.Positive(t, kinds(c)[openhands.ProblemTooLarge])
		assert.Equal(t, openhands.VerdictRecovered, c.Verdict)
		for _, f := range c.Files {
			assert.LessOrEqual(t, f.Size, int64(4096))
		}
		for _, p := range c.Problems {
			if p.Kind == openhands.ProblemTooLarge {
				assert.Contains(t, p.Message, "over the size cap")
			}
		}
	})

	t.Run("JSONLLine", func(t *testing.T) {
		dir := t.TempDir()
		p := filepath.Join(dir, "events.jsonl")
		long := `{"id":"a","kind":"PauseEvent","pad":"` + strings.Repeat("x", 5000) + `"}` + "\n"
		require.NoError(t, os.WriteFile(p, []byte(long), 0o644))
		c, err := (&openhands.Reader{MaxFileSize: 1 << 20}).Read(ctx, openhands.Unit{Path: p, Layout: openhands.LayoutJSONL})
		require.NoError(t, err)
		assert.Equal(t, openhands.VerdictOK, c.Verdict)
		c, err = r.Read(ctx, openhands.Unit{Path: p, Layout: openhands.LayoutJSONL})
		require.NoError(t, err)
		assert.Equal(t, openhands.VerdictCorrupt, c.Verdict)
		assert.Equal(t, 1, kinds(c)[openhands.ProblemTooLarge])
	})

	t.Run("ZipBomb", func(t *testing.T) {
		var b bytes.Buffer
		zw := zip.NewWriter(&b)
		w, err := zw.Create("event_000000_x.json")
		require.NoError(t, err)
		_, err = w.Write([]byte(`{"id":"x","kind":"PauseEvent","pad":"` + strings.Repeat("0", 1<<20) + `"}`))
		require.NoError(t, err)
		require.NoError(t, zw.Close())
		require.Less(t, b.Len(), 4096, "the bomb compresses under the cap")
		p := filepath.Join(t.TempDir(), "conversation_x.zip")
		require.NoError(t, os.WriteFile(p, b.Bytes(), 0o644))
		c, err := r.Read(ctx, openhands.Unit{Path: p, Layout: openhands.LayoutZip})
		require.NoError(t, err)
		assert.Equal(t, 1, kinds(c)[openhands.ProblemTooLarge])
		assert.Equal(t, openhands.VerdictCorrupt, c.Verdict)
	})
}

func TestNonRegularFiles(t *testing.T) {
	ctx := context.Background()
	facts, err := openhandsgen.Generate(t.TempDir(), openhandsgen.Options{Layout: openhands.LayoutCLITrajectory, Seed: 4})
	require.NoError(t, err)
	dir := facts.Unit.Path
	outside := filepath.Join(t.TempDir(), "secret.json")
	require.NoError(t, os.WriteFile(outside, []byte(`{"id":"s","kind":"PauseEvent"}`), 0o644))
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "event-90000-aaaaaaaa.json")))
	specials := 1 + mkfifo(t, filepath.Join(dir, "event-90001-bbbbbbbb.json"))

	done := make(chan *openhands.Conversation, 1)
	go func() {
		c, err := openhands.Read(ctx, facts.Unit)
		assert.NoError(t, err)
		done <- c
	}()
	select {
	case c := <-done:
		assert.Equal(t, specials, kinds(c)[openhands.ProblemNotRegular], "%v", c.Problems)
		assert.Equal(t, facts.Events, len(c.Records))
		for _, r := range c.Records {
			assert.NotEqual(t, "s", r.Event.ID, "the symlink target must not be read")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("reading a FIFO blocked")
	}

	// Discover does not follow a symlinked folder either.
	root := t.TempDir()
	require.NoError(t, os.Symlink(dir, filepath.Join(root, "link")))
	units, err := openhands.Discover(ctx, []string{root})
	require.NoError(t, err)
	assert.Empty(t, units)
}

func TestPickleNeverKept(t *testing.T) {
	facts, err := openhandsgen.Generate(t.TempDir(), openhandsgen.Options{Layout: openhands.LayoutV0Session, Seed: 5})
	require.NoError(t, err)
	c, err := openhands.Read(context.Background(), facts.Unit)
	require.NoError(t, err)
	assert.Equal(t, []string{"agent_state.pkl"}, c.Skipped)
	assert.Nil(t, c.File("agent_state.pkl"))
	assert.Equal(t, openhands.VerdictOK, c.Verdict)
}

func TestUnsupported(t *testing.T) {
	ctx := context.Background()
	p := filepath.Join(t.TempDir(), "notes.json")
	require.NoError(t, os.WriteFile(p, []byte(`{"hello": "world"}`), 0o644))
	units, err := openhands.Discover(ctx, []string{filepath.Dir(p)})
	require.NoError(t, err)
	assert.Empty(t, units, "plain JSON is not a conversation")
	c, err := openhands.Read(ctx, openhands.Unit{Path: p, Layout: openhands.LayoutV0Trajectory})
	require.NoError(t, err)
	assert.Equal(t, openhands.VerdictUnsupported, c.Verdict)
	c, err = openhands.Read(ctx, openhands.Unit{Path: p, Layout: "mystery"})
	require.NoError(t, err)
	assert.Equal(t, openhands.VerdictUnsupported, c.Verdict)
}

func TestProblemLocations(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "conv")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	write := func(name, body string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}
	write("event-00000-aaaaaaaa.json", `{"id":"a","timestamp":"2026-01-01T00:00:00","source":"user","kind":"PauseEvent"}`)
	write("event-00001-bbbbbbbb.json", `{"id":"b","kind":"PauseEvent",,}`)
	write("event-00003-cccccccc.json", `{"id":"c","kind":"PauseEvent"}`)
	write("event-00004-dddddddd.json", `{"id":"a","kind":"PauseEvent"}`)
	write("event-00005-eeeeeeee.json", `{"id":"e","timestamp":"2026-01-01T00:00:01"}`)
	write("event-00006-ffffffff.json", `{"id":"f","kind":"ActionEvent","action":{"kind":"QuantumAction"}}`)
	c, err := openhands.Read(context.Background(), openhands.Unit{Path: dir, Layout: openhands.LayoutCLITrajectory})
	require.NoError(t, err)
	assert.Equal(t, openhands.VerdictRecovered, c.Verdict)
	require.Equal(t, 3, len(c.Records))
	assert.Equal(t, []string{"a", "c", "f"}, []string{c.Records[0].Event.ID, c.Records[1].Event.ID, c.Records[2].Event.ID})
	byKind := map[openhands.ProblemKind]openhands.Problem{}
	for _, p := range c.Problems {
		byKind[p.Kind] = p
	}
	assert.Equal(t, "event-00001-bbbbbbbb.json", byKind[openhands.ProblemUnparseable].File)
	assert.Equal(t, int64(len(`{"id":"b","kind":"PauseEvent",,`)), byKind[openhands.ProblemUnparseable].Offset)
	assert.Equal(t, "event-00003-cccccccc.json", byKind[openhands.ProblemGap].File)
	assert.Equal(t, "event-00004-dddddddd.json", byKind[openhands.ProblemDuplicateID].File)
	assert.Equal(t, "event-00005-eeeeeeee.json", byKind[openhands.ProblemMissingKind].File)
	assert.Equal(t, openhands.SeverityNote, byKind[openhands.ProblemUnknownAction].Severity)
	assert.Equal(t, "event-00006-ffffffff.json", byKind[openhands.ProblemUnknownAction].File)
	assert.Len(t, c.Files, 6, "damaged files are kept for export")
}

func TestDefaultRoots(t *testing.T) {
	env := map[string]string{"OPENHANDS_CONVERSATIONS_DIR": "/srv/oh/convs", "OH_PERSISTENCE_DIR": "/home/u/.openhands/v1", "OH_CONVERSATIONS_PATH": "workspace/conversations"}
	roots := openhands.DefaultRoots("/home/u", func(k string) string { return env[k] })
	assert.Equal(t, []string{"/home/u/.openhands", "/srv/oh/convs"}, roots,
		"relative paths are dropped and roots inside another root folded in")
}

func TestNormalizeID(t *testing.T) {
	for in, want := range map[string]string{
		"3749ED60C63E4DEF840A46F15F4EE18C":     "3749ed60-c63e-4def-840a-46f15f4ee18c",
		"3749ed60-c63e-4def-840a-46f15f4ee18c": "3749ed60-c63e-4def-840a-46f15f4ee18c",
		"confirmation_mode":                    "confirmation_mode",
		"3749ed60c63e4def840a46f15f4ee18":      "3749ed60c63e4def840a46f15f4ee18",
	} {
		assert.Equal(t, want, openhands.NormalizeID(in), in)
	}
}

func TestCancelled(t *testing.T) {
	facts, err := openhandsgen.Generate(t.TempDir(), openhandsgen.Options{Layout: openhands.LayoutSDK, Seed: 6, Turns: 20})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = openhands.Read(ctx, facts.Unit)
	assert.ErrorIs(t, err, context.Canceled)
	_, err = openhands.Discover(ctx, []string{filepath.Dir(facts.Unit.Path)})
	assert.ErrorIs(t, err, context.Canceled)
	_, err = openhands.Changed(ctx, openhands.Snapshot{Unit: facts.Unit})
	assert.ErrorIs(t, err, context.Canceled)
	assert.ErrorIs(t, openhands.Export(ctx, &openhands.Conversation{Files: []openhands.SourceFile{{Name: "a"}}}, t.TempDir()), context.Canceled)
}

func TestExportRefusesUnsafeNames(t *testing.T) {
	for _, name := range []string{"../escape.json", "/abs.json", ".."} {
		c := &openhands.Conversation{Files: []openhands.SourceFile{{Name: name, Data: []byte("x")}}}
		assert.Error(t, openhands.Export(context.Background(), c, t.TempDir()), name)
	}
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.json"), []byte("old"), 0o644))
	c := &openhands.Conversation{Files: []openhands.SourceFile{{Name: "a.json", Data: []byte("new")}}}
	assert.Error(t, openhands.Export(context.Background(), c, dir), "an existing file is never overwritten")
	got, err := os.ReadFile(filepath.Join(dir, "a.json"))
	require.NoError(t, err)
	assert.Equal(t, "old", string(got))
}
