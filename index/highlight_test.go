package index

import (
	"context"
	"html"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// markedText parses a fragment (escaped text, matches in <mark>) into its plain
// text and, per byte of it, whether it is inside a mark.
func markedText(t testing.TB, fragment string) (string, []bool) {
	t.Helper()
	var text strings.Builder
	var marked []bool
	add := func(s string, m bool) {
		s = html.UnescapeString(s)
		text.WriteString(s)
		for range len(s) {
			marked = append(marked, m)
		}
	}
	rest := fragment
	for {
		i := strings.Index(rest, "<mark>")
		if i < 0 {
			require.NotContains(t, rest, "</mark>", "unbalanced marks in %q", fragment)
			add(rest, false)
			return text.String(), marked
		}
		add(rest[:i], false)
		rest = rest[i+len("<mark>"):]
		j := strings.Index(rest, "</mark>")
		require.GreaterOrEqual(t, j, 0, "unclosed mark in %q", fragment)
		require.NotContains(t, rest[:j], "<mark>", "nested marks in %q", fragment)
		add(rest[:j], true)
		rest = rest[j+len("</mark>"):]
	}
}

// unmarkedOccurrences counts the occurrences of s in a fragment's text and those
// of them not wholly inside marks.
func unmarkedOccurrences(t testing.TB, fragment, s string) (all, partial int) {
	text, marked := markedText(t, fragment)
	for off := 0; ; {
		i := strings.Index(text[off:], s)
		if i < 0 {
			return all, partial
		}
		start := off + i
		all++
		for _, m := range marked[start : start+len(s)] {
			if !m {
				partial++
				break
			}
		}
		off = start + len(s)
	}
}

// TestHighlightCJKWhole: every occurrence of a CJK query a fragment shows is
// marked whole. A CJK word is searched as a phrase of its overlapping bigrams
// (用户 户未 未同 同意), and Bleve's merge of overlapping locations only ever
// merged into the first location of the text, so each later occurrence came
// back as alternate bigrams marked, the rest skipped: <mark>用户未同</mark>意.
func TestHighlightCJKWhole(t *testing.T) {
	f := fixture(t)
	queries := []string{
		"用户未同意", "用户未同意此命令", "便携版", "便携版解压", "新建文件夹", "测试环境", "当前会话",
		"聊天记录", "审批策略", "写入权限", "数据目录", "重启客户端", "安装版数据", "客户端", "安装版",
		"快捷方式", "完全信任", "用户消息", "工具调用", "弹窗链路", "权限", "同意", "文件", "插件", "版",
	}
	total, bad := 0, 0
	for _, q := range queries {
		res, err := f.ix.Search(context.Background(), Query{Text: q, Limit: MaxLimit})
		require.NoError(t, err, q)
		require.NotEmpty(t, res.Hits, "%s: the real log holds it", q)
		for _, h := range res.Hits {
			for _, fr := range h.Fragments {
				all, partial := unmarkedOccurrences(t, fr, q)
				total, bad = total+all, bad+partial
				assert.Zero(t, partial, "%s: %d of %d occurrences not marked whole in %s: %q", q, partial, all, h.ID, fr)
			}
		}
	}
	t.Logf("%d occurrences in fragments, %d not marked whole", total, bad)
	assert.Greater(t, total, 500, "the queries occur in the fragments")
}

// TestHighlightMarksWhole pins the merge on sentences: repeated CJK words, an
// identifier whose parts and whole overlap, and a match the fragment's edge cuts.
func TestHighlightMarksWhole(t *testing.T) {
	ix := openIndex(t)
	ctx := context.Background()
	long := strings.Repeat("x ", 150) + "用户未同意 " + strings.Repeat("y ", 30) + "用户未同意"
	_, err := ix.Sync(ctx, texts(
		"用户未同意，用户未同意，再次用户未同意。",
		"用便携版，又用便携版",
		"call getUserName then getUserName again",
		long,
	), nil)
	require.NoError(t, err)
	for _, tc := range []struct{ q, id, want string }{
		{"用户未同意", "b0", "<mark>用户未同意</mark>，<mark>用户未同意</mark>，再次<mark>用户未同意</mark>。"},
		{"便携版", "b1", "用<mark>便携版</mark>，又用<mark>便携版</mark>"},
		{"getusername OR user", "b2", "call <mark>getUserName</mark> then <mark>getUserName</mark> again"},
	} {
		res, err := ix.Search(ctx, Query{Text: tc.q})
		require.NoError(t, err, tc.q)
		got := map[string][]string{}
		for _, h := range res.Hits {
			got[h.ID] = h.Fragments
		}
		assert.Equal(t, []string{tc.want}, got[tc.id], tc.q)
	}
	res, err := ix.Search(ctx, Query{Text: "用户未同意"})
	require.NoError(t, err)
	for _, h := range res.Hits {
		for _, fr := range h.Fragments {
			all, partial := unmarkedOccurrences(t, fr, "用户未同意")
			assert.Positive(t, all, "%s: %q", h.ID, fr)
			assert.Zero(t, partial, "%s: %q", h.ID, fr)
		}
	}
}
