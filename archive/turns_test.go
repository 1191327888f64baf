package archive_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/archivetest"
	"github.com/logbook/logbook/archive/dshgen"
)

func TestTurns(t *testing.T) {
	ctx := context.Background()
	s := archivetest.MustOpen(t)
	l := dshgen.Generate(dshgen.Options{Seed: 11, Turns: 9, Cwd: "/home/u/turns"})
	id := importGenerated(t, s, t.TempDir(), l, true).SessionID

	// The oracle: the whole timeline, walked item by item.
	type want struct {
		first, last             int64
		tools, errors, approval int64
		items                   int64
		prompt                  string
	}
	wants := map[int64]*want{}
	var order []int64
	for _, it := range allItems(t, s, id, 500) {
		if it.Turn == nil {
			continue
		}
		w := wants[*it.Turn]
		if w == nil {
			w = &want{first: it.Seq}
			wants[*it.Turn] = w
			order = append(order, *it.Turn)
		}
		w.last = max(w.last, it.Seq)
		w.items++
		if it.Tool != nil && it.Tool.Name != "" {
			w.tools++
			if it.Tool.IsError {
				w.errors++
			}
			if it.Tool.ResultSeq != nil {
				w.last = max(w.last, *it.Tool.ResultSeq)
			}
		}
		if it.Approval != nil && it.Approval.AskedSeq != nil {
			w.approval++
		}
		if it.Message != nil && it.Message.Kind == "human" && w.prompt == "" {
			w.prompt = strings.TrimSpace(strings.SplitN(strings.TrimSpace(it.Message.Text), "\n", 2)[0])
		}
	}
	require.NotEmpty(t, order)

	got, err := s.Turns(ctx, id)
	require.NoError(t, err)
	require.Len(t, got, len(order), "one summary per turn")
	var tools, errs, approvals int64
	for i, g := range got {
		w := wants[order[i]]
		assert.Equal(t, order[i], g.Turn, "turns in order")
		assert.Equal(t, w.first, g.StartSeq, "turn %d starts at its first item", g.Turn)
		assert.GreaterOrEqual(t, g.EndSeq, w.last, "turn %d ends at or after its last item", g.Turn)
		assert.Equal(t, w.tools, g.Tools, "turn %d tool calls", g.Turn)
		assert.Equal(t, w.errors, g.Errors, "turn %d errors", g.Turn)
		assert.Equal(t, w.approval, g.Approvals, "turn %d approvals", g.Turn)
		if len([]rune(w.prompt)) <= 160 {
			assert.Equal(t, w.prompt, g.Prompt, "turn %d prompt", g.Turn)
		}
		// About the items (an approval's decision, a message shown in its tool card,
		// are events inside an item the count does not take off): a scroll estimate.
		assert.InEpsilon(t, w.items, g.Items, 0.25, "turn %d items", g.Turn)
		assert.False(t, g.End.Before(g.Start))
		tools, errs, approvals = tools+g.Tools, errs+g.Errors, approvals+g.Approvals
	}
	assert.Positive(t, tools, "the generated log has tool calls")
	assert.Positive(t, errs, "and failing ones")
	assert.Positive(t, approvals, "and approvals")

	t.Run("ErrNotFound", func(t *testing.T) {
		_, err := s.Turns(ctx, "no-such-session")
		require.ErrorIs(t, err, archive.ErrNotFound)
	})
}

// BenchmarkTurnsRealLog summarizes the turns of the real 87k-event session, as
// the conversation view asks each time it opens it.
func BenchmarkTurnsRealLog(b *testing.B) {
	src := archivetest.Corpus(b, archivetest.RealLog)
	s := archivetest.MustOpen(b)
	fr := s.ImportFile(context.Background(), src, archive.ImportOptions{})
	if fr.Error != nil {
		b.Fatal(fr.Error)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ts, err := s.Turns(context.Background(), fr.SessionID)
		if err != nil || len(ts) == 0 {
			b.Fatal(err, len(ts))
		}
	}
}
