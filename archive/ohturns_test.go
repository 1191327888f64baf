package archive_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/openhands"
	"github.com/logbook/logbook/archive/openhandsgen"
)

// wholeTimeline reads every item of a session's timeline, page by page, and
// checks the pages' total against what they held.
func wholeTimeline(t *testing.T, s *archive.Store, id string) []archive.TimelineItem {
	t.Helper()
	var items []archive.TimelineItem
	var after *int64
	for {
		page, err := s.Timeline(context.Background(), id, archive.TimelineQuery{After: after, Limit: archive.MaxTimelineLimit})
		require.NoError(t, err)
		items = append(items, page.Items...)
		if !page.HasAfter || len(page.Items) == 0 {
			assert.EqualValues(t, len(items), page.Total, "%s: the total counts every item, turn starts included", id)
			return items
		}
		last := page.Items[len(page.Items)-1].Seq
		after = &last
	}
}

// isPromptItem is the export's rule for what starts a turn: a user message that
// is not injected context.
func isPromptItem(it archive.TimelineItem) bool {
	return it.Kind == archive.ItemMessage && it.Message != nil && it.Message.Role == "user" && it.Message.Kind != "injected"
}

// assertPromptTurns checks one OpenHands session's turns against its prompts: each
// prompt starts the next turn, with a synthetic turn start just before it; every
// item from a prompt to the next is in its turn, and none before the first; the
// turn summaries, the session's count and the per-turn usage agree. It returns
// the number of turns.
func assertPromptTurns(t *testing.T, s *archive.Store, id string) int64 {
	t.Helper()
	ctx := context.Background()
	items := wholeTimeline(t, s, id)
	type want struct {
		seq    int64
		prompt string
		tools  int64
		errors int64
	}
	var turns []want
	var n int64
	for i, it := range items {
		if it.Synthetic {
			require.Less(t, i+1, len(items), "%s: a turn start ends the timeline", id)
			assert.Equal(t, archive.ItemTurn, it.Kind)
			assert.Equal(t, "turn/start", it.Type)
			assert.True(t, isPromptItem(items[i+1]), "%s seq %d: a turn start not before a prompt", id, it.Seq)
			assert.Equal(t, items[i+1].Seq, it.Seq)
			if assert.NotNil(t, it.Turn) {
				assert.Equal(t, n+1, *it.Turn, "%s seq %d", id, it.Seq)
			}
			continue
		}
		if isPromptItem(it) {
			n++
			assert.True(t, i > 0 && items[i-1].Synthetic, "%s seq %d: a prompt without its turn start", id, it.Seq)
			turns = append(turns, want{seq: it.Seq, prompt: firstLine(it.Message.Text)})
		}
		if n == 0 {
			assert.Nil(t, it.Turn, "%s seq %d (%s) comes before the first prompt", id, it.Seq, it.Type)
			continue
		}
		if assert.NotNil(t, it.Turn, "%s seq %d (%s)", id, it.Seq, it.Type) {
			assert.Equal(t, n, *it.Turn, "%s seq %d (%s)", id, it.Seq, it.Type)
		}
	}
	// Every tool call counts in the turn its call falls in, by seq.
	calls, err := db(t, s).Query(`
		SELECT t.call_seq, t.is_error FROM tool_calls t JOIN sessions s ON s.pk = t.session_pk
		WHERE s.id = ? AND t.name <> ''`, id)
	require.NoError(t, err)
	for calls.Next() {
		var seq int64
		var bad bool
		require.NoError(t, calls.Scan(&seq, &bad))
		for i := len(turns) - 1; i >= 0; i-- {
			if turns[i].seq <= seq {
				turns[i].tools++
				if bad {
					turns[i].errors++
				}
				break
			}
		}
	}
	require.NoError(t, calls.Close())
	sess, err := s.Session(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, n, sess.Turns, "%s: the session's turn count", id)

	got, err := s.Turns(ctx, id)
	require.NoError(t, err)
	require.Len(t, got, len(turns), id)
	for i, g := range got {
		w := turns[i]
		assert.EqualValues(t, i+1, g.Turn, id)
		assert.Equal(t, w.seq, g.StartSeq, "%s turn %d starts at its prompt", id, g.Turn)
		assert.Equal(t, w.prompt, g.Prompt, "%s turn %d", id, g.Turn)
		assert.Equal(t, w.tools, g.Tools, "%s turn %d: tool calls", id, g.Turn)
		assert.Equal(t, w.errors, g.Errors, "%s turn %d: failed calls", id, g.Turn)
		assert.False(t, g.End.Before(g.Start), "%s turn %d", id, g.Turn)
	}

	// Usage per turn adds up to the session's, and names only its turns.
	rows, err := s.SessionUsage(ctx, id)
	require.NoError(t, err)
	var sum archive.Tokens
	for _, r := range rows {
		sum = sum.Add(r.Tokens)
		if r.Key != "" {
			assert.Contains(t, turnKeys(got), r.Key, "%s: usage of a turn the session does not have", id)
		}
	}
	if len(rows) > 0 {
		assert.Equal(t, sess.Tokens, sum, id)
	}
	return n
}

func turnKeys(ts []archive.TurnSummary) []string {
	var out []string
	for _, t := range ts {
		out = append(out, fmt.Sprint(t.Turn))
	}
	return out
}

// firstLine is the first non-blank line of a prompt as the turn navigator shows
// it: at most 160 characters, the last of them an ellipsis when cut.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			if r := []rune(l); len(r) > 160 {
				return string(r[:159]) + "…"
			}
			return l
		}
	}
	return ""
}

// TestOpenHandsTurnsCorpus: every conversation of the real OpenHands corpus, whose
// logs name no turns, has one turn per prompt a person sent, numbered as its
// export numbers them, in the timeline, the turn map and the usage per turn.
func TestOpenHandsTurnsCorpus(t *testing.T) {
	root := ohCorpus(t)
	s := openAt(t, filepath.Join(t.TempDir(), "logbook.db"))
	rep, err := s.Import(context.Background(), []string{root}, archive.ImportOptions{})
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(rep.Files), 16)
	var all, multi int64
	for _, f := range rep.Files {
		n := assertPromptTurns(t, s, f.SessionID)
		all += n
		if n > 1 {
			multi++
		}
	}
	assert.Greater(t, all, int64(len(rep.Files)), "the corpus holds prompts")
	assert.Positive(t, multi, "some corpus conversations have follow-up prompts")
}

// openAt opens the archive at path, closed when the test ends.
func openAt(t *testing.T, path string) *archive.Store {
	t.Helper()
	s, err := archive.Open(context.Background(), path)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// turnColumns lists every turn an archive stores (the derived rows' and the
// sessions'), one line a row, in a fixed order.
func turnColumns(t *testing.T, d *sql.DB) []string {
	t.Helper()
	var out []string
	for _, q := range []string{
		`SELECT 'events', session_pk, seq, turn FROM events ORDER BY session_pk, seq`,
		`SELECT 'messages', session_pk, seq, turn FROM messages ORDER BY session_pk, seq`,
		`SELECT 'usage', session_pk, seq, turn FROM usage ORDER BY session_pk, seq`,
		`SELECT 'tool_calls', session_pk, call_id, turn FROM tool_calls ORDER BY session_pk, call_id`,
		`SELECT 'approvals', session_pk, approval_id, turn FROM approvals ORDER BY session_pk, approval_id`,
		`SELECT 'compactions', session_pk, compaction_id, turn FROM compactions ORDER BY session_pk, compaction_id`,
		`SELECT 'sessions', pk, turn_count, json_extract(state, '$.turns') || '/' || COALESCE(json_extract(state, '$.openTurn'), '-')
			FROM sessions ORDER BY pk`,
	} {
		rows, err := d.Query(q)
		require.NoError(t, err)
		for rows.Next() {
			var table string
			var pk int64
			var key, turn any
			require.NoError(t, rows.Scan(&table, &pk, &key, &turn))
			out = append(out, fmt.Sprintf("%s %d %v %v", table, pk, key, turn))
		}
		require.NoError(t, rows.Close())
	}
	return out
}

// keptBytes sums what an archive keeps of the logs, to show a change left it alone.
func keptBytes(t *testing.T, d *sql.DB) string {
	t.Helper()
	var blocks, files string
	require.NoError(t, d.QueryRow(`SELECT COUNT(*) || ':' || COALESCE(SUM(length(data)), 0) || ':' || COALESCE(SUM(raw_size), 0) FROM blocks`).Scan(&blocks))
	require.NoError(t, d.QueryRow(`SELECT COUNT(*) || ':' || COALESCE(SUM(length(data)), 0) || ':' || group_concat(hex(hash), '') FROM source_files`).Scan(&files))
	return blocks + " " + files
}

// makeOld puts an archive's OpenHands sessions back as an archive made before
// their turns were numbered holds them (no turn anywhere, a state that started
// none), and forgets that the migration ran, as on an archive of that version.
func makeOld(t *testing.T, path string) {
	t.Helper()
	d, err := sql.Open("sqlite", path)
	require.NoError(t, err)
	defer d.Close()
	oh := `(SELECT pk FROM sessions WHERE format = 'openhands')`
	for _, q := range []string{
		`UPDATE events SET turn = NULL WHERE session_pk IN ` + oh,
		`UPDATE messages SET turn = NULL WHERE session_pk IN ` + oh,
		`UPDATE usage SET turn = NULL WHERE session_pk IN ` + oh,
		`UPDATE tool_calls SET turn = NULL WHERE session_pk IN ` + oh,
		`UPDATE approvals SET turn = NULL WHERE session_pk IN ` + oh,
		`UPDATE compactions SET turn = NULL WHERE session_pk IN ` + oh,
		`UPDATE sessions SET turn_count = 0, state = json_remove(json_set(state, '$.turns', 0), '$.openTurn') WHERE pk IN ` + oh,
		`DELETE FROM schema_migrations WHERE name LIKE '%_ohturns_%'`,
	} {
		_, err := d.Exec(q)
		require.NoError(t, err, q)
	}
	var n int
	require.NoError(t, d.QueryRow(`SELECT COUNT(*) FROM events WHERE turn IS NOT NULL AND session_pk IN `+oh).Scan(&n))
	require.Zero(t, n)
}

// TestOpenHandsTurnsAfterUpgrade: an archive made before OpenHands turns were
// numbered gets them when it is opened, without an import: the same turns,
// everywhere, as a fresh import gives, and not a byte of the logs changed.
func TestOpenHandsTurnsAfterUpgrade(t *testing.T) {
	ctx := context.Background()
	root := ohCorpus(t)
	path := filepath.Join(t.TempDir(), "logbook.db")
	s, err := archive.Open(ctx, path)
	require.NoError(t, err)
	rep, err := s.Import(ctx, []string{root}, archive.ImportOptions{})
	require.NoError(t, err)
	fresh := turnColumns(t, db(t, s))
	kept := keptBytes(t, db(t, s))
	require.NoError(t, s.Close())

	makeOld(t, path)
	old, err := archive.Open(ctx, path)
	require.NoError(t, err)
	t.Cleanup(func() { _ = old.Close() })
	assert.Equal(t, fresh, turnColumns(t, db(t, old)))
	assert.Equal(t, kept, keptBytes(t, db(t, old)), "the logs' bytes are as they were")
	for _, f := range rep.Files {
		assertPromptTurns(t, old, f.SessionID)
	}

	// Opened again: nothing to do, nothing changes.
	require.NoError(t, old.Close())
	again := openAt(t, path)
	assert.Equal(t, fresh, turnColumns(t, db(t, again)))
}

// TestOpenHandsTurnsAppendAfterUpgrade: a conversation archived before the
// upgrade goes on growing; the events appended after it go on from its last
// turn, as a fresh archive of the whole conversation numbers them.
func TestOpenHandsTurnsAppendAfterUpgrade(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	facts, err := openhandsgen.Generate(dir, openhandsgen.Options{Layout: openhands.LayoutSDK, Seed: 7, Turns: 5})
	require.NoError(t, err)
	conv := facts.Unit.Path
	names, err := filepath.Glob(filepath.Join(conv, "events", "event-*.json"))
	require.NoError(t, err)
	require.Greater(t, len(names), 20)
	hold := t.TempDir()
	late := names[len(names)/2:]
	for _, n := range late {
		require.NoError(t, os.Rename(n, filepath.Join(hold, filepath.Base(n))))
	}
	path := filepath.Join(t.TempDir(), "logbook.db")
	s, err := archive.Open(ctx, path)
	require.NoError(t, err)
	first := importOne(t, s, conv)
	require.Equal(t, archive.VerdictOK, first.Verdict, "%+v", first.Error)
	require.NoError(t, s.Close())
	makeOld(t, path)

	up := openAt(t, path)
	for _, n := range late {
		require.NoError(t, os.Rename(filepath.Join(hold, filepath.Base(n)), n))
	}
	grown := importOne(t, up, conv)
	require.Equal(t, "appended", grown.Action)
	n := assertPromptTurns(t, up, first.SessionID)
	assert.EqualValues(t, 5, n)

	whole := openAt(t, filepath.Join(t.TempDir(), "whole.db"))
	importOne(t, whole, conv)
	a, err := up.Turns(ctx, first.SessionID)
	require.NoError(t, err)
	b, err := whole.Turns(ctx, first.SessionID)
	require.NoError(t, err)
	assert.Equal(t, b, a)
}
