package export_test

import (
	"bytes"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive/dshgen"
	"github.com/logbook/logbook/export"
)

func TestParseTurns(t *testing.T) {
	tests := []struct {
		in       string
		from, to int64
		err      string
	}{
		{in: "3-5", from: 3, to: 5},
		{in: " 2 - 2 ", from: 2, to: 2},
		{in: "4", from: 4, to: 4},
		{in: "4-", from: 4, to: 1<<63 - 1},
		{in: "-2", from: 0, to: 2},
		{in: "5-3", err: "5 comes after 3"},
		{in: "-", err: "want A-B"},
		{in: "x", err: "want A-B"},
		{in: "1-2-3", err: "want A-B"},
		{in: "", err: "want A-B"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			r, err := export.ParseTurns(tc.in)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, export.TurnRange{From: tc.from, To: tc.to}, r)
		})
	}
}

func TestParseHit(t *testing.T) {
	h, err := export.ParseHit("session-abc:1234:assistant")
	require.NoError(t, err)
	assert.Equal(t, export.Hit{SessionID: "session-abc", Seq: 1234}, h)
	h, err = export.ParseHit("a:b:17")
	require.NoError(t, err)
	assert.Equal(t, export.Hit{SessionID: "a:b", Seq: 17}, h, "an id with colons")
	_, err = export.ParseHit("session-abc:title")
	assert.Error(t, err)
	_, err = export.ParseHit("1234")
	assert.Error(t, err)
}

// turnHeadings are the turn numbers a Markdown export heads ("## Turn N").
func turnHeadings(md []byte) []int64 {
	var out []int64
	for _, m := range regexp.MustCompile(`(?m)^## Turn (\d+)$`).FindAllSubmatch(md, -1) {
		n, _ := strconv.ParseInt(string(m[1]), 10, 64)
		out = append(out, n)
	}
	return out
}

// TestTurnRangeMarkdown: a turn range writes those turns and nothing of the
// others, parses as Markdown, and says what part it is.
func TestTurnRangeMarkdown(t *testing.T) {
	s := openStore(t)
	ids := importLogs(t, s, dshgen.Generate(dshgen.Options{Seed: 7, Turns: 6, Cwd: "/w"}))
	whole := load(t, s, ids[0])
	var all bytes.Buffer
	require.NoError(t, export.WriteMarkdown(&all, whole))
	require.Equal(t, []int64{1, 2, 3, 4, 5, 6}, turnHeadings(all.Bytes()))

	part, err := whole.Turns(export.TurnRange{From: 2, To: 4})
	require.NoError(t, err)
	var md bytes.Buffer
	require.NoError(t, export.WriteMarkdown(&md, part))
	assert.Equal(t, []int64{2, 3, 4}, turnHeadings(md.Bytes()))
	assert.Contains(t, md.String(), "| Excerpt | turns 2-4; the session has turns 1-6 |")
	for _, it := range part.Items {
		require.NotNil(t, it.Turn)
		assert.True(t, *it.Turn >= 2 && *it.Turn <= 4, "seq %d is in turn %d", it.Seq, *it.Turn)
	}
	n := 0
	for _, it := range whole.Items {
		if it.Turn != nil && *it.Turn >= 2 && *it.Turn <= 4 {
			n++
		}
	}
	assert.Equal(t, n, len(part.Items), "every item of those turns")
	tree := parseMarkdown(t, md.Bytes())
	assert.Equal(t, tree.opens, tree.closes, "every <details> closed")
	assert.NotEmpty(t, tree.headings)

	_, err = whole.Turns(export.TurnRange{From: 9, To: 12})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "has turns 1-6")

	// Around a hit in turn 5 with one turn of context: turns 4-6.
	var seq int64 = -1
	for _, it := range whole.Items {
		if it.Message != nil && it.Turn != nil && *it.Turn == 5 {
			seq = it.Seq
			break
		}
	}
	require.NotEqual(t, int64(-1), seq)
	around, err := whole.Around(seq, 1)
	require.NoError(t, err)
	md.Reset()
	require.NoError(t, export.WriteMarkdown(&md, around))
	assert.Equal(t, []int64{4, 5, 6}, turnHeadings(md.Bytes()))
	assert.Contains(t, md.String(), "around seq "+strconv.FormatInt(seq, 10))
	around, err = whole.Around(seq, 0)
	require.NoError(t, err)
	md.Reset()
	require.NoError(t, export.WriteMarkdown(&md, around))
	assert.Equal(t, []int64{5}, turnHeadings(md.Bytes()))
	_, err = whole.Around(whole.Session.LastSeq+10, 1)
	assert.Error(t, err)

	// HTML says it too.
	var page bytes.Buffer
	require.NoError(t, export.WriteHTML(&page, part))
	assert.Contains(t, page.String(), "excerpt: turns 2-4")
}
