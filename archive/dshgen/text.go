package dshgen

import (
	"math/rand/v2"
	"sort"
	"strings"
	"unicode/utf8"
)

// token is one vocabulary entry: the raw text and its JSON-escaped form.
type token struct {
	raw, esc string
}

// Vocabulary pools (immutable after package initialisation).
var (
	englishPool = buildPool(
		" the", " a", " file", " function", " test", " error", " return", " value",
		" config", " session", " log", " check", " update", " read", " write", " build",
		" import", " module", " handler", " request", " response", " server", " client",
		" path", " line", " output", " input", " we", " need", " to", " should", " will",
		" this", " that", " with", " from", " and", " for", " is", " not", " let", " me",
		" first", " then", " now", " fix", " bug", " run", " go", " vet", "ing", "ed", "s",
		".", ",", ":", ";", "\n", "\n\n", " `", "`", " (", ")", "\"", "'", " -", " 42",
		" 2026", " 0x1F", " =>", " {", "}", " []", " ==", " !=", " &&", " ||", "\t",
		" \\", "/", " <", ">", " src/main.go", " TODO", " nil", " err",
	)
	cjkPool = buildPool(
		"测试", "写入", "权限", "文件", "会话", "日志", "压缩", "。", "，", "：", "检查", "配置",
		"客户端", "我们", "需要", "修复", "问题", "代码", "函数", "运行", "结果", "成功", "失败",
		"目录", "读取", "编辑", "一下", "然后", "现在", "こんにちは", "ファイル", "한국어", "「",
		"」", "（", "）",
	)
	emojiPool = buildPool(
		"😀", "🚀", "✅", "🔥", "👍🏽", "👨‍💻", "𠀀", "𝒳", "❤️", "🎉", "🧪", "📁", " \x1b[31mFAIL\x1b[0m",
	)
	toolNames = []string{"read", "write", "edit", "bash", "grep", "glob", "web_fetch", "todo_write", "schedule"}
	providers = []string{"deepseek-official", "deepseek-official", "openrouter"}
	models    = []string{"deepseek-v4-flash", "deepseek-v4-pro", "deepseek-v4-flash"}
)

// buildPool escapes every raw token once.
func buildPool(raw ...string) []token {
	out := make([]token, len(raw))
	for i, s := range raw {
		out[i] = token{raw: s, esc: escapeString(s)}
	}
	return out
}

// ringTokens is the size of the per-session token ring bulk text is cut from.
const ringTokens = 8192

// textGen draws tokens and identifiers from a seeded generator. Bulk text (streamed
// blocks, tool output) is cut from a pre-drawn ring of tokens so generating it costs
// no per-token random draws.
type textGen struct {
	rng   *rand.Rand
	ascii bool
	ring  []string // escaped tokens
	ringB []byte   // the ring's escaped tokens concatenated
	offs  []int    // byte offset of token i in ringB; len(ring)+1 entries
}

// initRing draws the token ring.
func (g *textGen) initRing() {
	g.ring = make([]string, ringTokens)
	g.offs = make([]int, 0, ringTokens+1)
	for i := range g.ring {
		t := g.tok().esc
		g.ring[i] = t
		g.offs = append(g.offs, len(g.ringB))
		g.ringB = append(g.ringB, t...)
	}
	g.offs = append(g.offs, len(g.ringB))
}

// tok returns one random vocabulary token.
func (g *textGen) tok() token {
	if g.ascii {
		return englishPool[g.rng.IntN(len(englishPool))]
	}
	switch r := g.rng.IntN(100); {
	case r < 70:
		return englishPool[g.rng.IntN(len(englishPool))]
	case r < 94:
		return cjkPool[g.rng.IntN(len(cjkPool))]
	default:
		return emojiPool[g.rng.IntN(len(emojiPool))]
	}
}

// pieces appends n escaped tokens to dst.
func (g *textGen) pieces(dst []string, n int) []string {
	if g.ring == nil {
		g.initRing()
	}
	for n > 0 {
		k := min(n, len(g.ring)/2)
		o := g.rng.IntN(len(g.ring) - k + 1)
		dst = append(dst, g.ring[o:o+k]...)
		n -= k
	}
	return dst
}

// prompt returns n tokens as a raw string and as escaped pieces.
func (g *textGen) prompt(n int) (string, []string) {
	var sb strings.Builder
	pieces := make([]string, 0, n)
	for range n {
		t := g.tok()
		sb.WriteString(t.raw)
		pieces = append(pieces, t.esc)
	}
	return sb.String(), pieces
}

// sentence returns n tokens as a raw string.
func (g *textGen) sentence(n int) string {
	var sb strings.Builder
	for range n {
		sb.WriteString(g.tok().raw)
	}
	return sb.String()
}

// appendText appends escaped tokens until at least size bytes were added.
func (g *textGen) appendText(b []byte, size int) []byte {
	if g.ring == nil {
		g.initRing()
	}
	for size > 0 {
		i := g.rng.IntN(len(g.ring))
		start := g.offs[i]
		// Extend to the first token boundary at or after start+size (or the ring end).
		j := sort.SearchInts(g.offs, min(start+size, len(g.ringB)))
		end := g.offs[j]
		if end == start {
			end = g.offs[i+1]
		}
		b = append(b, g.ringB[start:end]...)
		size -= end - start
	}
	return b
}

// around returns a random integer in [mean/2, 3*mean/2], at least 1.
func (g *textGen) around(mean int) int {
	if mean <= 1 {
		return 1
	}
	return mean/2 + g.rng.IntN(mean+1)
}

// uuid returns a random RFC 4122 version-4 UUID string.
func (g *textGen) uuid() string {
	const hex = "0123456789abcdef"
	var b [16]byte
	for i := 0; i < 16; i += 8 {
		v := g.rng.Uint64()
		for j := range 8 {
			b[i+j] = byte(v >> (8 * j))
		}
	}
	b[6] = b[6]&0x0F | 0x40
	b[8] = b[8]&0x3F | 0x80
	out := make([]byte, 0, 36)
	for i, c := range b {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			out = append(out, '-')
		}
		out = append(out, hex[c>>4], hex[c&0xF])
	}
	return string(out)
}

// callID returns a provider-style tool call id.
func (g *textGen) callID() string {
	const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b := []byte("call_00_")
	for range 24 {
		b = append(b, alnum[g.rng.IntN(len(alnum))])
	}
	return string(b)
}

// splitPieces cuts s into escaped pieces of 1..4 runes (never inside a rune).
func splitPieces(rng *rand.Rand, s string) []string {
	var out []string
	for len(s) > 0 {
		n := 1 + rng.IntN(4)
		end := 0
		for i := 0; i < n && end < len(s); i++ {
			_, size := utf8.DecodeRuneInString(s[end:])
			end += size
		}
		out = append(out, escapeString(s[:end]))
		s = s[end:]
	}
	return out
}

// prefixRunes returns at most n runes of s.
func prefixRunes(s string, n int) string {
	i := 0
	for ; n > 0 && i < len(s); n-- {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i]
}
