package index

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/lang/cjk"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/token/unicodenorm"
	bleveunicode "github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/numeric"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
)

// The analyzers of referenceMapping: Bleve's tokenizer and filters, chained as
// codeAnalyzer claims to behave.
const (
	chainIndexAnalyzer = "logbook_chain"
	chainQueryAnalyzer = "logbook_chain_query"
)

// referenceMapping is newMapping with its text field analyzed by the chain of
// Bleve's Unicode tokenizer, NFC, CJK width, CJK bigrams, codeFilter
// and lowercase, and documents made by the mapping (MapDocument).
func referenceMapping(t testing.TB) *mapping.IndexMappingImpl {
	t.Helper()
	im, err := newMapping()
	require.NoError(t, err)
	require.NoError(t, im.AddCustomTokenFilter("logbook_nfc", map[string]interface{}{
		"type": unicodenorm.Name, "form": unicodenorm.NFC}))
	require.NoError(t, im.AddCustomTokenFilter("logbook_cjk_bigram", map[string]interface{}{
		"type": cjk.BigramName, "output_unigram": false}))
	for name, code := range map[string]string{chainIndexAnalyzer: codeIndexFilterName, chainQueryAnalyzer: codeQueryFilterName} {
		require.NoError(t, im.AddCustomAnalyzer(name, map[string]interface{}{
			"type":      custom.Name,
			"tokenizer": bleveunicode.Name,
			// The bigram filter renumbers the positions of every token it passes
			// through, so it runs before the code filter.
			"token_filters": []interface{}{"logbook_nfc", cjk.WidthName, "logbook_cjk_bigram", code, lowercase.Name},
		}))
	}
	im.TypeMapping[docType].Properties[fieldText].Fields[0].Analyzer = chainIndexAnalyzer
	return im
}

// analyzerSamples are texts that exercise each stage of the chain.
var analyzerSamples = []string{
	"",
	"getUserName returns the user's HTTPServer; max_tokens=512, src/app/main.go --dry-run",
	"v1.2.3 3.14 1,000,000 0x1F md5Sum base64Encode __init__ IOError",
	"写入权限 被拒绝：请检查 config.yaml 中的 writePermission 字段",
	"混合 text写入 and 日本語のテキスト カタカナ ｶﾀｶﾅ ｶﾞｷﾞ ﾊﾟﾋﾟ",
	"ＦＵＬＬＷＩＤＴＨ ＡＳＣＩＩ １２３ ｆｏｏＢａｒ",
	"ΣΊΣΥΦΟΣ ΟΔΟΣ Ⱥȿ ȾEST İstanbul ǅemal straße ﬁle",
	"e\u0301cole cafe\u0301 Cafe\u0301Bar \u1100\u1161\u11a8 한국어 텍스트",
	"emoji 🚀 launch👍done ❤️ #hash @user a.b.c_d-e/f:g",
	strings.Repeat("aB", 40) + " " + strings.Repeat("x", 200) + " tail",
	"汉 字 分 开\n汉字\t相邻", "单", "a汉b字c",
	"don't can’t it's O'Reilly rock'n'roll",
	"ÀÉÎÕÜ ñandúÑandú ĲssEL ǈubljana",
}

// chainTokens renders an analyzer's output for comparison.
func chainTokens(ts analysis.TokenStream) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = fmt.Sprintf("%q@%d[%d:%d]%d", t.Term, t.Position, t.Start, t.End, t.Type)
	}
	return out
}

// withoutSymbols is the analyzer's output as Bleve's chain would give it: the chain
// drops symbols, so the symbol tokens are taken out and the positions after each
// move back by one.
func withoutSymbols(ts analysis.TokenStream) analysis.TokenStream {
	var out analysis.TokenStream
	dropped := 0
	for _, t := range ts {
		if r, n := utf8.DecodeRune(t.Term); n == len(t.Term) && isSymbol(r) {
			dropped++
			continue
		}
		c := *t
		c.Position -= dropped
		out = append(out, &c)
	}
	return out
}

// spaceSymbols replaces each non-ASCII symbol with spaces of its byte length.
func spaceSymbols(s string) string {
	var b strings.Builder
	for _, r := range s {
		if isSymbol(r) {
			b.WriteString(strings.Repeat(" ", utf8.RuneLen(r)))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// TestSymbolsAreTerms: a non-ASCII symbol or emoji is a term at a position of its
// own (so ✅ is found, and "✅ done" is a phrase); ASCII operators are not, and a
// variation selector does not make a second term.
func TestSymbolsAreTerms(t *testing.T) {
	got := chainTokens(codeAnalyzer{}.Analyze([]byte("tests ✅ done → next a=b ❤️ x≠y")))
	assert.Equal(t, []string{
		`"tests"@1[0:5]0`, `"✅"@2[6:9]2`, `"done"@3[10:14]0`, `"→"@4[15:18]2`, `"next"@5[19:23]0`,
		`"a"@6[24:25]0`, `"b"@7[26:27]0`, `"❤"@8[28:31]2`, `"x"@9[35:36]0`, `"≠"@10[36:39]2`, `"y"@11[39:40]0`,
	}, got)
}

func TestCodeAnalyzerMatchesChain(t *testing.T) {
	ref := referenceMapping(t)
	texts := slices.Clone(analyzerSamples)
	for _, b := range fixture(t).blocks {
		texts = append(texts, blockText(b))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		texts = append(texts, randomText(rng))
	}
	for _, keep := range []bool{true, false} {
		chain := ref.AnalyzerNamed(map[bool]string{true: chainIndexAnalyzer, false: chainQueryAnalyzer}[keep])
		fused := codeAnalyzer{keepWhole: keep}
		mismatches := 0
		for _, text := range texts {
			want := chainTokens(chain.Analyze([]byte(text)))
			got := chainTokens(withoutSymbols(fused.Analyze([]byte(text))))
			if !assert.Equal(t, want, got, "keepWhole=%v text %q", keep, text) {
				if mismatches++; mismatches > 3 {
					t.FailNow()
				}
			}
		}
	}
}

// randomText mixes the kinds of characters the analyzer treats differently.
func randomText(rng *rand.Rand) string {
	pieces := []string{"get", "User", "NAME", "_", ".", "-", "/", " ", " ", "\n", "3", "42", "x9",
		"写", "入", "权限", "の", "カタ", "ｶ", "ﾞ", "ﾟ", "Ａ", "ｂ", "１", "é", "e\u0301", "Σ", "ς", "Ⱥ", "İ",
		"'", "’", ",", ":", "한", "🚀", "\u200d", "ǅ", "ﬁ", "\t", "‐", "٣", "ℌ"}
	var sb strings.Builder
	for range rng.IntN(24) {
		sb.WriteString(pieces[rng.IntN(len(pieces))])
	}
	return sb.String()
}

func TestDocumentMatchesMapping(t *testing.T) {
	ref := referenceMapping(t)
	im, err := newMapping()
	require.NoError(t, err)
	b, err := newDocBuilder(im)
	require.NoError(t, err)
	blocks := slices.Clone(fixture(t).blocks)
	blocks = append(blocks,
		archive.Block{ID: "no-time", SessionID: "s", Kind: archive.BlockHuman, Text: "a getUserName 写入"},
		archive.Block{ID: "empty", SessionID: "s"},
	)
	turn := int64(3)
	blocks = append(blocks, archive.Block{ID: "turn", SessionID: "s", Turn: &turn, Step: &turn, IsError: true, Text: "x"})
	for _, blk := range blocks {
		// Bleve's chain drops symbols, which the analyzer keeps (TestSymbolsAreTerms):
		// both sides see them as spaces of the same length.
		blk.Text = spaceSymbols(blk.Text)
		d := newBlockDoc(blk)
		want := document.NewDocument(blk.ID)
		require.NoError(t, ref.MapDocument(want, d))
		got := b.document(blk.ID, d)
		// The capped field is not in the mapping (cappedField): it names the
		// terms over maxTermLocations, whose locations describeDoc cuts there.
		var wantCapped []string
		for _, f := range want.Fields {
			if f.Name() == fieldText {
				f.Analyze()
				for term, tf := range f.AnalyzedTokenFrequencies() {
					if tf.Frequency() > maxTermLocations {
						wantCapped = append(wantCapped, term)
					}
				}
			}
		}
		for _, f := range got.Fields {
			if c, ok := f.(*cappedField); ok {
				c.text.Analyze()
				c.Analyze()
				var capped []string
				for term := range c.AnalyzedTokenFrequencies() {
					capped = append(capped, term)
				}
				require.ElementsMatch(t, wantCapped, capped, "block %s", blk.ID)
			}
		}
		got.Fields = slices.DeleteFunc(got.Fields, func(f document.Field) bool { return f.Name() == fieldCapped })
		require.Equal(t, describeDoc(want), describeDoc(got), "block %s", blk.ID)
	}
}

// describeDoc renders a document's fields after analysis: everything of them
// Bleve writes into a segment.
func describeDoc(d *document.Document) []string {
	var out []string
	assertNoComposite := len(d.CompositeFields)
	out = append(out, fmt.Sprintf("id %s, %d composite fields", d.ID(), assertNoComposite))
	for _, f := range d.Fields {
		f.Analyze()
		freqs := f.AnalyzedTokenFrequencies()
		terms := make([]string, 0, len(freqs))
		for term := range freqs {
			if f.Name() == fieldTime {
				// The index keeps only the full-precision term (timeField).
				if shift, err := numeric.PrefixCoded(term).Shift(); err != nil || shift != 0 {
					continue
				}
			}
			terms = append(terms, term)
		}
		length := f.AnalyzedLength()
		if f.Name() == fieldTime {
			length = len(terms)
		}
		out = append(out, fmt.Sprintf("%s %c opts=%v value=%q arraypos=%d length=%d plain=%d",
			f.Name(), f.EncodedFieldType(), f.Options(), f.Value(), len(f.ArrayPositions()), length, f.NumPlainTextBytes()))
		slices.Sort(terms)
		for _, term := range terms {
			tf := freqs[term]
			line := fmt.Sprintf("  %q=%q x%d:", term, tf.Term, tf.Frequency())
			locs := tf.Locations
			if f.Name() == fieldText {
				locs = locs[:min(len(locs), maxTermLocations)] // the index keeps these
			}
			for _, l := range locs {
				line += fmt.Sprintf(" %d[%d:%d]a%d", l.Position, l.Start, l.End, len(l.ArrayPositions))
			}
			out = append(out, line)
		}
	}
	return out
}

// BenchmarkAnalyzeBlocks analyzes every block of the real corpus log into the
// fields Bleve indexes, the way Sync did it (the mapping's documents, analyzed by
// the chain of Bleve's filters) and the way it does it now (docBuilder's, with
// the text analyzed by codeAnalyzer into term frequencies).
func BenchmarkAnalyzeBlocks(b *testing.B) {
	var docs []blockDoc
	var text int64
	for _, blk := range fixture(b).blocks {
		d := newBlockDoc(blk)
		docs = append(docs, d)
		text += int64(len(d.Text))
	}
	ref := referenceMapping(b)
	im, err := newMapping()
	require.NoError(b, err)
	db, err := newDocBuilder(im)
	require.NoError(b, err)
	analyzeAll := func(d *document.Document) {
		for _, f := range d.Fields {
			f.Analyze()
		}
	}
	b.Run("chain", func(b *testing.B) {
		b.SetBytes(text)
		for range b.N {
			for i, d := range docs {
				doc := document.NewDocument(strconv.Itoa(i))
				if err := ref.MapDocument(doc, d); err != nil {
					b.Fatal(err)
				}
				analyzeAll(doc)
			}
		}
	})
	b.Run("fused", func(b *testing.B) {
		b.SetBytes(text)
		for range b.N {
			for i, d := range docs {
				analyzeAll(db.document(strconv.Itoa(i), d))
			}
		}
	})
}
