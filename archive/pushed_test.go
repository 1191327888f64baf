package archive_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/archivetest"
	"github.com/logbook/logbook/archive/openhands"
	"github.com/logbook/logbook/archive/openhandsgen"
)

const pushedConv = "0b6c3f5e00004000800000000000abcd"

func pushedEvent(id, text string) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"id": id, "timestamp": "2026-03-01T09:00:00", "source": "user", "kind": "MessageEvent",
		"llm_message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": text}}}})
	return b
}

// eventFiles lists the conversation folder's event files.
func eventFiles(t *testing.T, p *archive.Pushed) []string {
	t.Helper()
	dir, err := p.ConversationDir(pushedConv)
	require.NoError(t, err)
	entries, err := os.ReadDir(filepath.Join(dir, "events"))
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

// Pushed keeps each event once across restarts (a new Pushed on the same data
// directory finds what the folder holds), removes what a killed process left
// half-written, names events whose ids are no hex by a digest, and keeps an event
// that repeats an id with other content beside the first.
func TestPushedEvents(t *testing.T) {
	ctx := context.Background()
	s := archivetest.MustOpen(t)
	p := archive.NewPushed(s)
	a := pushedEvent("5b8e8e8e-1111-4222-8333-944455556666", "first")
	b := pushedEvent("not hex at all", "second")
	res, err := p.Events(ctx, archive.PushKey{}, pushedConv, []json.RawMessage{a, b, a})
	require.NoError(t, err)
	assert.Equal(t, 2, res.Stored)
	assert.Equal(t, 1, res.Duplicates)
	assert.Equal(t, "0b6c3f5e-0000-4000-8000-00000000abcd", res.SessionID)
	require.True(t, res.Imported)
	assert.Equal(t, archive.VerdictOK, res.Report.Verdict)
	names := eventFiles(t, p)
	require.Len(t, names, 2)
	assert.Equal(t, "event-00000-5b8e8e8e-1111-4222-8333-944455556666.json", names[0])
	assert.Regexp(t, `^event-00001-[0-9a-f]{32}\.json$`, names[1])

	// A process killed mid-write leaves a temporary file; a restart removes it
	// and knows what is held.
	dir, _ := p.ConversationDir(pushedConv)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "events", ".push-123"), []byte(`{"id":`), 0o600))
	p2 := archive.NewPushed(s)
	c := pushedEvent("6c9f9f9f-1111-4222-8333-944455556666", "third")
	res, err = p2.Events(ctx, archive.PushKey{}, pushedConv, []json.RawMessage{b, a, c})
	require.NoError(t, err)
	assert.Equal(t, 1, res.Stored)
	assert.Equal(t, 2, res.Duplicates)
	names = eventFiles(t, p2)
	require.Len(t, names, 3)
	assert.Equal(t, "event-00002-6c9f9f9f-1111-4222-8333-944455556666.json", names[2])

	// The same id with other content is kept too; the views keep the first.
	a2 := pushedEvent("5b8e8e8e-1111-4222-8333-944455556666", "first, changed")
	res, err = p2.Events(ctx, archive.PushKey{}, pushedConv, []json.RawMessage{a2})
	require.NoError(t, err)
	assert.Equal(t, 1, res.Stored)
	assert.Len(t, eventFiles(t, p2), 4)
	sess, err := s.Session(ctx, res.SessionID)
	require.NoError(t, err)
	assert.EqualValues(t, 3, sess.Events)
	msgs, err := s.Messages(ctx, res.SessionID)
	require.NoError(t, err)
	var texts []string
	for _, m := range msgs {
		texts = append(texts, m.Text)
	}
	assert.Equal(t, []string{"first", "second", "third"}, texts)

	// Not objects, bad ids: nothing written.
	_, err = p2.Events(ctx, archive.PushKey{}, pushedConv, []json.RawMessage{c, json.RawMessage(`[1]`)})
	assert.ErrorIs(t, err, archive.ErrNotObject)
	_, err = p2.Events(ctx, archive.PushKey{}, "nope", []json.RawMessage{c})
	assert.ErrorIs(t, err, archive.ErrBadConversationID)
	assert.Len(t, eventFiles(t, p2), 4)
}

// Past the conversations Pushed keeps in memory, one let go is read again from
// its folder: a redelivery to it is still known, and its numbering goes on.
func TestPushedManyConversations(t *testing.T) {
	ctx := context.Background()
	s := archivetest.MustOpen(t)
	p := archive.NewPushed(s)
	conv := func(i int) string { return fmt.Sprintf("%032x", i+1) }
	ev := func(i, j int) json.RawMessage {
		return pushedEvent(fmt.Sprintf("%08x-0000-4000-8000-%012x", i, j), "hello")
	}
	for i := range 24 {
		res, err := p.Events(ctx, archive.PushKey{}, conv(i), []json.RawMessage{ev(i, 0), ev(i, 1)})
		require.NoError(t, err)
		require.Equal(t, 2, res.Stored)
	}
	res, err := p.Events(ctx, archive.PushKey{}, conv(0), []json.RawMessage{ev(0, 1), ev(0, 0), ev(0, 2)})
	require.NoError(t, err)
	assert.Equal(t, 1, res.Stored)
	assert.Equal(t, 2, res.Duplicates)
	dir, err := p.ConversationDir(conv(0))
	require.NoError(t, err)
	_, err = os.Stat(filepath.Join(dir, "events", "event-00002-00000000-0000-4000-8000-000000000002.json"))
	assert.NoError(t, err)
}

// A conversation pushed in small batches, with ConversationInfos between them,
// is archived as a fresh import of its folder is: each push reads only the files
// it wrote (an event file imported before is never looked at again, even when it
// is gone), yet the views, totals and title are the same.
func TestPushedReadsOnlyNewFiles(t *testing.T) {
	ctx := context.Background()
	gen := t.TempDir()
	f, err := openhandsgen.Generate(gen, openhandsgen.Options{Seed: 5, Layout: openhands.LayoutJSONL, Turns: 6, Confirmation: true, Extras: true})
	require.NoError(t, err)
	data, err := os.ReadFile(f.Unit.Path)
	require.NoError(t, err)
	var events []json.RawMessage
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		events = append(events, json.RawMessage(l))
	}
	require.Greater(t, len(events), 40)
	conv := openhands.NormalizeID(f.Unit.SessionID)

	s := archivetest.MustOpen(t)
	p := archive.NewPushed(s)
	info := func(title, at string) json.RawMessage {
		return json.RawMessage(fmt.Sprintf(`{"id":%q,"title":%q,"execution_status":"running","updated_at":%q}`, conv, title, at))
	}
	for i := 0; i < len(events); i += 7 {
		res, err := p.Events(ctx, archive.PushKey{}, conv, events[i:min(i+7, len(events))])
		require.NoError(t, err)
		require.Equal(t, archive.VerdictOK, res.Report.Verdict, res.Report.Error)
		if i > 0 {
			assert.Equal(t, "appended", res.Report.Action, "push at %d", i)
		}
		if i == 14 {
			_, err := p.Conversation(ctx, archive.PushKey{}, info("Mid-way title", "2026-03-01T10:00:00Z"))
			require.NoError(t, err)
		}
	}
	res, err := p.Conversation(ctx, archive.PushKey{}, info("Final title", "2026-03-01T11:00:00Z"))
	require.NoError(t, err)
	require.True(t, res.Imported)

	dir, err := p.ConversationDir(conv)
	require.NoError(t, err)
	fresh := archivetest.MustOpen(t)
	fr := fresh.ImportFile(ctx, dir, archive.ImportOptions{})
	require.Equal(t, archive.VerdictOK, fr.Verdict, fr.Error)

	got, err := s.Session(ctx, conv)
	require.NoError(t, err)
	want, err := fresh.Session(ctx, conv)
	require.NoError(t, err)
	assert.Equal(t, "Final title", got.Title)
	got.UpdatedAt, want.UpdatedAt = time.Time{}, time.Time{}
	assert.Equal(t, want, got)
	gm, err := s.Messages(ctx, conv)
	require.NoError(t, err)
	wm, err := fresh.Messages(ctx, conv)
	require.NoError(t, err)
	assert.Equal(t, wm, gm)
	gt, err := s.ToolCalls(ctx, conv)
	require.NoError(t, err)
	wt, err := fresh.ToolCalls(ctx, conv)
	require.NoError(t, err)
	assert.Equal(t, wt, gt)

	// The next push reads its own file alone: the first event file, gone, is not
	// noticed (a full comparison would read the conversation again as rewritten).
	entries, err := os.ReadDir(filepath.Join(dir, "events"))
	require.NoError(t, err)
	require.NoError(t, os.Rename(filepath.Join(dir, "events", entries[0].Name()), filepath.Join(t.TempDir(), "away")))
	extra := pushedEvent("7c0e0e0e-1111-4222-8333-944455556666", "one more")
	res, err = p.Events(ctx, archive.PushKey{}, conv, []json.RawMessage{extra})
	require.NoError(t, err)
	assert.Equal(t, "appended", res.Report.Action)
	assert.Equal(t, 1, res.Stored)
}

// A conversation is loaded from its index of event ids; the files it does not
// list (a process killed between writing them and indexing them) are read, and
// a damaged index is rebuilt from the files: redelivery stays a duplicate.
func TestPushedIndex(t *testing.T) {
	ctx := context.Background()
	s := archivetest.MustOpen(t)
	p := archive.NewPushed(s)
	var evs []json.RawMessage
	for i := range 6 {
		evs = append(evs, pushedEvent(fmt.Sprintf("5b8e8e8e-1111-4222-8333-%012d", i), fmt.Sprintf("event %d", i)))
	}
	_, err := p.Events(ctx, archive.PushKey{}, pushedConv, evs[:3])
	require.NoError(t, err)
	_, err = p.Events(ctx, archive.PushKey{}, pushedConv, evs[3:])
	require.NoError(t, err)
	dir, err := p.ConversationDir(pushedConv)
	require.NoError(t, err)
	index := dir + ".ids.ndjson"
	data, err := os.ReadFile(index)
	require.NoError(t, err)
	require.Equal(t, 6, strings.Count(string(data), "\n"))

	again := func(what string) {
		t.Helper()
		res, err := archive.NewPushed(s).Events(ctx, archive.PushKey{}, pushedConv, evs)
		require.NoError(t, err, what)
		assert.Equal(t, 0, res.Stored, what)
		assert.Equal(t, 6, res.Duplicates, what)
		assert.Len(t, eventFiles(t, p), 6, what)
	}
	again("from the index")
	// Killed before the last batch was indexed.
	lines := strings.SplitAfter(string(data), "\n")
	require.NoError(t, os.WriteFile(index, []byte(strings.Join(lines[:3], "")), 0o600))
	again("files past the index")
	data, err = os.ReadFile(index)
	require.NoError(t, err)
	assert.Equal(t, 6, strings.Count(string(data), "\n"), "the files it missed are indexed")
	// A line cut short.
	require.NoError(t, os.WriteFile(index, data[:len(data)-7], 0o600))
	again("a damaged index")
	data, err = os.ReadFile(index)
	require.NoError(t, err)
	assert.Equal(t, 6, strings.Count(string(data), "\n"), "rebuilt")
}
