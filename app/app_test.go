package app

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/index"
)

// someWord returns a word of a session's assistant text, to search for.
func someWord(t *testing.T, s *archive.Store, id string) string {
	t.Helper()
	var word string
	_, err := s.SessionBlocks(context.Background(), id, func(b archive.Block) error {
		if word != "" || b.Kind != archive.BlockAssistant {
			return nil
		}
		for _, w := range strings.Fields(b.Text) {
			if len(w) >= 6 && strings.IndexFunc(w, func(r rune) bool { return r < 'a' || r > 'z' }) < 0 {
				word = w
				break
			}
		}
		return nil
	})
	require.NoError(t, err)
	require.NotEmpty(t, word, "no plain word in the session's assistant text")
	return word
}

func TestInfo(t *testing.T) {
	ta := newTestApp(t, func(d *Deps) { d.SelfTest = true })
	info, err := ta.Info()
	require.NoError(t, err)
	assert.Equal(t, Info{Version: "test", Mode: "web", DataDir: ta.deps.DataDir, Roots: []string{ta.root},
		Sessions: 0, SelfTest: true}, info)

	ta.generate(t, 1, "/home/u/one")
	ta.importNow(t)
	info, err = ta.Info()
	require.NoError(t, err)
	assert.Equal(t, 1, info.Sessions)
	assert.False(t, info.Importing)

	t.Run("desktop mode once a window is attached", func(t *testing.T) {
		ta.hub.attach(&fakeShell{})
		defer ta.hub.attach(nil)
		info, err := ta.Info()
		require.NoError(t, err)
		assert.Equal(t, "desktop", info.Mode)
	})
}

func TestStartupIgnoresNonWailsContext(t *testing.T) {
	// A plain context, or one that merely has Wails' keys, must not be taken for the
	// window: the Wails runtime would end the process.
	type key string
	for _, ctx := range []context.Context{
		context.Background(),
		context.WithValue(context.WithValue(context.Background(), "frontend", "x"), "events", 1), //nolint:staticcheck // Wails' own string keys
		context.WithValue(context.Background(), key("frontend"), "x"),
	} {
		assert.False(t, isWailsContext(ctx))
	}
	ta := newTestApp(t)
	ta.Startup(context.WithValue(context.Background(), "frontend", "x")) //nolint:staticcheck // Wails' own string key
	assert.False(t, ta.hub.desktop())
}

func TestSessionMethods(t *testing.T) {
	ta := newTestApp(t)
	l := ta.generate(t, 2, "/home/u/two")
	ta.importNow(t)

	t.Run("Sessions", func(t *testing.T) {
		ss, err := ta.Sessions()
		require.NoError(t, err)
		require.Len(t, ss, 1)
		assert.Equal(t, l.ID(), ss[0].ID)
	})
	t.Run("Session OK by prefix", func(t *testing.T) {
		d, err := ta.Session(l.ID()[:16])
		require.NoError(t, err)
		assert.Equal(t, l.ID(), d.Session.ID)
		require.Len(t, d.Files, 1)
		assert.Equal(t, l.ID(), d.Files[0].SessionID)
		assert.NotNil(t, d.Problems)
		assert.NotNil(t, d.Relations.Children)
	})
	t.Run("Session ErrNotFound", func(t *testing.T) {
		_, err := ta.Session("session-nosuch")
		require.ErrorIs(t, err, archive.ErrNotFound)
		assert.Equal(t, `Not found: session "session-nosuch"`, FormatError(err))
	})
	t.Run("Session invalid", func(t *testing.T) {
		_, err := ta.Session("  ")
		assert.Equal(t, "a session id is required", FormatError(err))
	})
	t.Run("Timeline", func(t *testing.T) {
		p, err := ta.Timeline(l.ID(), archive.TimelineQuery{Limit: 10})
		require.NoError(t, err)
		assert.Equal(t, l.ID(), p.SessionID)
		assert.Len(t, p.Items, 10)
		assert.True(t, p.HasAfter)
	})
	t.Run("Timeline bad limit", func(t *testing.T) {
		_, err := ta.Timeline(l.ID(), archive.TimelineQuery{Limit: archive.MaxTimelineLimit + 1})
		assert.Equal(t, 422, errorStatus(err))
		assert.Contains(t, FormatError(err), "limit must be between")
	})
	t.Run("Approvals and Compactions", func(t *testing.T) {
		ap, err := ta.Approvals()
		require.NoError(t, err)
		assert.NotEmpty(t, ap, "a four-turn generated session asks for approval")
		_, err = ta.Compactions()
		require.NoError(t, err)
	})
	t.Run("FileProblems", func(t *testing.T) {
		_, err := ta.FileProblems("")
		assert.Equal(t, "a file path is required", FormatError(err))
		d, err := ta.Session(l.ID())
		require.NoError(t, err)
		ps, err := ta.FileProblems(d.Files[0].Path)
		require.NoError(t, err)
		assert.Equal(t, d.Problems, ps, "the session's one file holds all its problems")
	})
}

func TestSearch(t *testing.T) {
	ta := newTestApp(t)
	l := ta.generate(t, 3, "/home/u/three")
	ta.importNow(t)
	word := someWord(t, ta.deps.Archive, l.ID())

	t.Run("OK", func(t *testing.T) {
		res, err := ta.Search(SearchRequest{Query: word})
		require.NoError(t, err)
		require.NotZero(t, res.Total, "the import synced the index, so %q is found", word)
		assert.Equal(t, l.ID(), res.Hits[0].SessionID)
	})
	t.Run("query error", func(t *testing.T) {
		_, err := ta.Search(SearchRequest{Query: `"unterminated`})
		var qe *index.QueryError
		require.ErrorAs(t, err, &qe)
		assert.Equal(t, qe.Error(), FormatError(err))
		assert.Equal(t, 422, errorStatus(err))
	})
	t.Run("bad sort", func(t *testing.T) {
		_, err := ta.Search(SearchRequest{Query: word, Sort: "sideways"})
		assert.Equal(t, `sort must be "relevance" or "recent"`, FormatError(err))
	})
	t.Run("bad cursor", func(t *testing.T) {
		_, err := ta.Search(SearchRequest{Query: word, Cursor: "nonsense"})
		assert.Equal(t, 422, errorStatus(err))
		assert.Contains(t, FormatError(err), "run the search again")
	})
	t.Run("exhaustive", func(t *testing.T) {
		q := "session:" + l.ID() // every block of the session: several pages of 2
		planned, err := ta.Search(SearchRequest{Query: q, Limit: 2})
		require.NoError(t, err)
		all, err := ta.Search(SearchRequest{Query: q, Limit: 2, Exhaustive: true})
		require.NoError(t, err)
		require.Greater(t, all.Total, uint64(4))
		assert.Equal(t, planned.Total, all.Total, "a filter's total is exact either way")
		assert.True(t, all.TotalExact)
		assert.Zero(t, all.RankedAmong, "ranked across every match")
		require.NotEmpty(t, all.NextCursor)
		// Its cursor pages the exhaustive search only.
		next, err := ta.Search(SearchRequest{Query: q, Limit: 2, Exhaustive: true, Cursor: all.NextCursor})
		require.NoError(t, err)
		assert.Len(t, next.Hits, 2)
		assert.NotEqual(t, all.Hits[0].ID, next.Hits[0].ID)
		_, err = ta.Search(SearchRequest{Query: q, Limit: 2, Cursor: all.NextCursor})
		require.ErrorIs(t, err, index.ErrBadCursor)
		assert.Equal(t, 422, errorStatus(err))
		_, err = ta.Search(SearchRequest{Query: q, Limit: 2, Exhaustive: true, Cursor: planned.NextCursor})
		require.ErrorIs(t, err, index.ErrBadCursor)
	})
}

func TestSelfTest(t *testing.T) {
	var got []string
	ta := newTestApp(t, func(d *Deps) { d.OnSelfTest = func(m string) { got = append(got, m) } })
	out, err := ta.SelfTest("ui-loaded")
	require.NoError(t, err)
	assert.Equal(t, "selftest:ui-loaded", out)
	assert.Equal(t, []string{"ui-loaded"}, got)
}
