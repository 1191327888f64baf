package openhands_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive/openhands"
	"github.com/logbook/logbook/archive/openhandsgen"
)

// generated writes one conversation and reads it in full.
func generated(t *testing.T, opt openhandsgen.Options) (openhandsgen.Facts, *openhands.Conversation) {
	t.Helper()
	facts, err := openhandsgen.Generate(t.TempDir(), opt)
	require.NoError(t, err)
	c, err := openhands.Read(context.Background(), facts.Unit)
	require.NoError(t, err)
	require.Equal(t, facts.Events, len(c.Records))
	return facts, c
}

func messageJSON(id string) string {
	return fmt.Sprintf(`{"id":%q,"timestamp":"2030-01-01T00:00:00.5","source":"user","llm_message":{"role":"user","content":[{"type":"text","text":"later"}]},"kind":"MessageEvent"}`, id)
}

// touch moves a file's mtime so a stat sees the change even within the
// filesystem's timestamp granularity.
func touch(t *testing.T, p string) {
	t.Helper()
	later := time.Now().Add(time.Hour)
	require.NoError(t, os.Chtimes(p, later, later))
}

func TestReadSinceFolder(t *testing.T) {
	ctx := context.Background()
	facts, c := generated(t, openhandsgen.Options{Layout: openhands.LayoutSDK, Seed: 7})
	snap := c.Snapshot()

	t.Run("Unchanged", func(t *testing.T) {
		changed, err := openhands.Changed(ctx, snap)
		require.NoError(t, err)
		assert.False(t, changed)
		d, err := openhands.ReadSince(ctx, snap)
		require.NoError(t, err)
		assert.True(t, d.Unchanged)
		assert.Zero(t, len(d.Conversation.Records))
	})

	t.Run("NewFile", func(t *testing.T) {
		name := fmt.Sprintf("event-%05d-%s.json", facts.Events, "0000aaaa-0000-4000-8000-000000000001")
		require.NoError(t, os.WriteFile(filepath.Join(facts.Unit.Path, "events", name), []byte(messageJSON("0000aaaa-0000-4000-8000-000000000001")), 0o644))
		changed, err := openhands.Changed(ctx, snap)
		require.NoError(t, err)
		require.True(t, changed)
		d, err := openhands.ReadSince(ctx, snap)
		require.NoError(t, err)
		assert.False(t, d.Reset)
		require.Equal(t, 1, len(d.Conversation.Records))
		r := d.Conversation.Records[0]
		assert.Equal(t, facts.Events, r.Index, "indexes continue the snapshot's")
		assert.Equal(t, int64(facts.Events), r.Seq)
		require.Len(t, d.Conversation.Files, 1, "only the new file is read")
		assert.Equal(t, "events/"+name, d.Conversation.Files[0].Name)
		assert.Equal(t, openhands.VerdictOK, d.Conversation.Verdict, "%v", d.Conversation.Problems)
		snap = d.Next
		assert.Len(t, snap.EventIDs, facts.Events+1)

		again, err := openhands.ReadSince(ctx, snap)
		require.NoError(t, err)
		assert.True(t, again.Unchanged)
	})

	t.Run("DuplicateAcrossReads", func(t *testing.T) {
		name := fmt.Sprintf("event-%05d-%s.json", facts.Events+1, "0000aaaa-0000-4000-8000-000000000001")
		p := filepath.Join(facts.Unit.Path, "events", name)
		require.NoError(t, os.WriteFile(p, []byte(messageJSON("0000aaaa-0000-4000-8000-000000000001")), 0o644))
		d, err := openhands.ReadSince(ctx, snap)
		require.NoError(t, err)
		assert.Zero(t, len(d.Conversation.Records))
		assert.Equal(t, openhands.ProblemDuplicateID, d.Conversation.Problems[0].Kind)
		require.NoError(t, os.Remove(p))
	})

	t.Run("SideFileChanged", func(t *testing.T) {
		p := filepath.Join(facts.Unit.Path, "base_state.json")
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(p, append(data, ' '), 0o644))
		d, err := openhands.ReadSince(ctx, snap)
		require.NoError(t, err)
		assert.False(t, d.Reset)
		assert.Empty(t, d.Rewritten)
		assert.Zero(t, len(d.Conversation.Records))
		require.Len(t, d.Conversation.Files, 1)
		assert.Equal(t, "base_state.json", d.Conversation.Files[0].Name)
		snap = d.Next
	})

	t.Run("RewrittenEarlierFile", func(t *testing.T) {
		victim := filepath.Join(facts.Unit.Path, facts.Files[5])
		data, err := os.ReadFile(victim)
		require.NoError(t, err)
		data[len(data)-3] ^= 0x01 // same size, other bytes
		require.NoError(t, os.WriteFile(victim, data, 0o644))
		touch(t, victim)
		d, err := openhands.ReadSince(ctx, snap)
		require.NoError(t, err)
		assert.True(t, d.Reset)
		assert.Equal(t, []string{facts.Files[5]}, d.Rewritten)
		assert.Equal(t, facts.Events+1, len(d.Conversation.Records), "a full re-read")
	})

	t.Run("TouchedButSame", func(t *testing.T) {
		_, c := generated(t, openhandsgen.Options{Layout: openhands.LayoutAppB, Seed: 8})
		s := c.Snapshot()
		touch(t, filepath.Join(c.Unit.Path, c.Files[0].Name))
		d, err := openhands.ReadSince(ctx, s)
		require.NoError(t, err)
		assert.False(t, d.Reset, "a new mtime with the same bytes is no rewrite")
		assert.Zero(t, len(d.Conversation.Records))
	})
}

func TestReadSinceJSONL(t *testing.T) {
	ctx := context.Background()
	facts, c := generated(t, openhandsgen.Options{Layout: openhands.LayoutJSONL, Seed: 9})
	require.NotNil(t, c.Cursor)
	snap := c.Snapshot()
	p := facts.Unit.Path
	size := func() int64 {
		fi, err := os.Stat(p)
		require.NoError(t, err)
		return fi.Size()
	}
	assert.Equal(t, size(), c.Cursor.Offset)
	appendTo := func(s string) {
		f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
		require.NoError(t, err)
		_, err = f.WriteString(s)
		require.NoError(t, err)
		require.NoError(t, f.Close())
	}

	line := messageJSON("0000bbbb-0000-4000-8000-000000000002")
	appendTo(line[:20]) // a torn tail: the writer is mid-line
	d, err := openhands.ReadSince(ctx, snap)
	require.NoError(t, err)
	assert.Zero(t, len(d.Conversation.Records))
	assert.Equal(t, snap.Cursor.Offset, d.Next.Cursor.Offset, "the cursor stays before the torn line")
	snap = d.Next

	appendTo(line[20:] + "\n")
	d, err = openhands.ReadSince(ctx, snap)
	require.NoError(t, err)
	require.Equal(t, 1, len(d.Conversation.Records))
	r := d.Conversation.Records[0]
	assert.Equal(t, facts.Events+1, r.Line)
	assert.Equal(t, c.Cursor.Offset, r.Offset, "offsets are in the whole file")
	assert.Equal(t, line, string(r.Raw))
	assert.Equal(t, size(), d.Next.Cursor.Offset)
	snap = d.Next

	// A whole event without its newline is read; the newline that follows
	// is no new line.
	second := messageJSON("0000bbbb-0000-4000-8000-000000000003")
	appendTo(second)
	d, err = openhands.ReadSince(ctx, snap)
	require.NoError(t, err)
	require.Equal(t, 1, len(d.Conversation.Records))
	assert.Equal(t, facts.Events+2, d.Conversation.Records[0].Line)
	snap = d.Next
	third := messageJSON("0000bbbb-0000-4000-8000-000000000004")
	appendTo("\n" + third + "\n")
	d, err = openhands.ReadSince(ctx, snap)
	require.NoError(t, err)
	require.Equal(t, 1, len(d.Conversation.Records))
	assert.Equal(t, facts.Events+3, d.Conversation.Records[0].Line, "line numbers stay physical")
	assert.Equal(t, third, string(d.Conversation.Records[0].Raw))
	snap = d.Next

	// Rewrite the last line read: same length, other bytes.
	data, err := os.ReadFile(p)
	require.NoError(t, err)
	data[len(data)-10] ^= 0x01
	require.NoError(t, os.WriteFile(p, append(data, []byte(line+"\n")...), 0o644))
	d, err = openhands.ReadSince(ctx, snap)
	require.NoError(t, err)
	assert.True(t, d.Reset)
	assert.Equal(t, []string{"events.jsonl"}, d.Rewritten)
}

func TestReadSinceSingleFile(t *testing.T) {
	ctx := context.Background()
	facts, c := generated(t, openhandsgen.Options{Layout: openhands.LayoutZip, Seed: 10})
	snap := c.Snapshot()
	d, err := openhands.ReadSince(ctx, snap)
	require.NoError(t, err)
	assert.True(t, d.Unchanged)

	f, err := os.OpenFile(facts.Unit.Path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString("trailing garbage")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	d, err = openhands.ReadSince(ctx, snap)
	require.NoError(t, err)
	assert.True(t, d.Reset)
	assert.Equal(t, []string{filepath.Base(facts.Unit.Path)}, d.Rewritten)
}

// TestNewestEventFileCaughtMidWrite: an agent writes each event file in place,
// so a read can find the newest one cut short. That is a torn tail (recovered,
// its bytes kept as read), not damage, and once the file is whole the next read
// takes its event as a new one, with no rewrite. A cut-short file that is not
// the newest stays unparseable.
func TestNewestEventFileCaughtMidWrite(t *testing.T) {
	ctx := context.Background()
	facts, c := generated(t, openhandsgen.Options{Layout: openhands.LayoutSDK, Seed: 9})
	id := "0000bbbb-0000-4000-8000-000000000002"
	whole := []byte(messageJSON(id))
	p := filepath.Join(facts.Unit.Path, "events", fmt.Sprintf("event-%05d-%s.json", facts.Events, id))
	for _, cut := range []int{0, 1, len(whole) / 2, len(whole) - 1} {
		require.NoError(t, os.WriteFile(p, whole[:cut], 0o644))
		d, err := openhands.ReadSince(ctx, c.Snapshot())
		require.NoError(t, err)
		assert.Equal(t, openhands.VerdictRecovered, d.Conversation.Verdict, "cut at %d", cut)
		require.Len(t, d.Conversation.Problems, 1, "cut at %d", cut)
		pr := d.Conversation.Problems[0]
		assert.Equal(t, openhands.ProblemTornTail, pr.Kind)
		assert.EqualValues(t, cut, pr.Offset)
		require.Len(t, d.Conversation.Files, 1)
		assert.Equal(t, openhands.RoleTorn, d.Conversation.Files[0].Role)
		assert.Equal(t, whole[:cut], d.Conversation.Files[0].Data, "the bytes read are kept")

		// The writer finishes the file.
		require.NoError(t, os.WriteFile(p, whole, 0o644))
		touch(t, p)
		d2, err := openhands.ReadSince(ctx, d.Next)
		require.NoError(t, err)
		assert.False(t, d2.Reset, "finishing the newest file rewrites nothing")
		assert.Empty(t, d2.Rewritten)
		assert.Equal(t, openhands.VerdictOK, d2.Conversation.Verdict)
		require.Len(t, d2.Conversation.Records, 1)
		assert.Equal(t, id, d2.Conversation.Records[0].Event.ID)
		require.NoError(t, os.Remove(p))
	}

	// Cut short but followed by a later file: damage, not a write under way.
	require.NoError(t, os.WriteFile(p, whole[:10], 0o644))
	later := "0000cccc-0000-4000-8000-000000000003"
	require.NoError(t, os.WriteFile(filepath.Join(facts.Unit.Path, "events", fmt.Sprintf("event-%05d-%s.json", facts.Events+1, later)), []byte(messageJSON(later)), 0o644))
	d, err := openhands.ReadSince(ctx, c.Snapshot())
	require.NoError(t, err)
	kinds := map[openhands.ProblemKind]int{}
	for _, pr := range d.Conversation.Problems {
		kinds[pr.Kind]++
	}
	assert.Equal(t, 1, kinds[openhands.ProblemUnparseable])
	assert.Zero(t, kinds[openhands.ProblemTornTail])
}
