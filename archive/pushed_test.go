package archive_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/archivetest"
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
