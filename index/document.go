package index

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/mapping"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/logbook/logbook/archive"
)

// maxTextBytes caps the text indexed for one block. A longer text keeps its head
// and its tail, where errors and summaries usually are.
const (
	maxTextBytes  = 128 << 10
	tailTextBytes = 32 << 10
	elision       = "\n…\n"
)

// blockDoc is the document indexed for one archive.Block. Its json tags are the
// field names of the mapping.
type blockDoc struct {
	Text    string  `json:"text"`
	Session string  `json:"session"`
	Project string  `json:"project"`
	Agent   string  `json:"agent"`
	Kind    string  `json:"kind"`
	Role    string  `json:"role"`
	Tool    string  `json:"tool"`
	Surface string  `json:"surface"`
	Month   *string `json:"month"` // "2006-01"; nil without a time
	IsError bool    `json:"is_error"`
	Time    *string `json:"time"` // Unix milliseconds; nil without a time
	Seq     string  `json:"seq"`  // decimal; keyword fields (see the mapping)
	Turn    *string `json:"turn"` // nil outside a turn
	Step    *string `json:"step"`
}

// BleveType tells the mapping which document type this is.
func (blockDoc) BleveType() string { return docType }

func newBlockDoc(b archive.Block) blockDoc {
	d := blockDoc{
		Text:    blockText(b),
		Session: b.SessionID,
		Project: b.Project,
		Agent:   strings.ToLower(b.Agent),
		Kind:    strings.ToLower(b.Kind),
		Role:    strings.ToLower(b.Role),
		Tool:    strings.ToLower(b.Tool),
		Surface: strings.ToLower(b.Surface),
		IsError: b.IsError,
		Seq:     strconv.FormatInt(b.Seq, 10),
		Turn:    decimal(b.Turn),
		Step:    decimal(b.Step),
	}
	// Bleve keeps times as int64 nanoseconds (years 1678 to 2262); a zero time
	// would be dropped with a log line, so it is left out on purpose instead.
	if t := b.Time.UTC(); t.Year() > 1678 && t.Year() < 2262 {
		ms, month := strconv.FormatInt(t.UnixMilli(), 10), t.Format("2006-01")
		d.Time, d.Month = &ms, &month
	}
	return d
}

// blockText is the text indexed (and shown in fragments) for a block. Invalid
// UTF-8 is replaced by U+FFFD: the word segmenter stops at an invalid byte, which
// hid every later word of the block from search. (The archive keeps the bytes.)
func blockText(b archive.Block) string {
	text := b.Text
	if b.Kind == archive.BlockToolCall {
		text = toolCallText(b.Tool, text)
	}
	return capText(strings.ToValidUTF8(text, string(utf8.RuneError)))
}

// toolCallText turns "name {json arguments}" into one "key: value" line per
// argument with string values unquoted. In raw JSON a newline inside a command is
// the two characters \n, which would glue "n" onto the next word ("\ngit" → "ngit")
// and hide it from search; a path's backslashes would double.
func toolCallText(tool, text string) string {
	args, ok := strings.CutPrefix(text, tool+" ")
	if !ok || !strings.HasPrefix(strings.TrimSpace(args), "{") {
		return text
	}
	dec := json.NewDecoder(strings.NewReader(args))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return text
	}
	var sb strings.Builder
	sb.WriteString(tool)
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return text
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return text
		}
		sb.WriteByte('\n')
		sb.WriteString(key.(string))
		sb.WriteString(": ")
		var s string
		if err := json.Unmarshal(raw, &s); err == nil {
			sb.WriteString(s)
			continue
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, raw); err != nil {
			return text
		}
		sb.Write(compact.Bytes())
	}
	return sb.String()
}

// capText keeps the head and tail of an over-long text, cut on rune boundaries.
func capText(s string) string {
	if len(s) <= maxTextBytes {
		return s
	}
	head := maxTextBytes - tailTextBytes - len(elision)
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	tail := len(s) - tailTextBytes
	for tail < len(s) && !utf8.RuneStart(s[tail]) {
		tail++
	}
	return s[:head] + elision + s[tail:]
}

// decimal formats an optional integer for a keyword field.
func decimal(n *int64) *string {
	if n == nil {
		return nil
	}
	s := strconv.FormatInt(*n, 10)
	return &s
}

// docBuilder turns blockDocs into Bleve documents: the documents the mapping
// makes of them (MapDocument, by reflection), but with the text field analyzed
// by codeAnalyzer straight into term frequencies (textField), keywords made
// terms whole (keywordField), and only the term of a time its doc values need
// (timeField). The options of every field come from the index's own mapping,
// and a test holds the two ways to the same fields, values and analysis (but
// for the time terms Bleve's way adds).
type docBuilder struct {
	opts     map[string]index.FieldIndexingOptions
	text     codeAnalyzer
	datetime analysis.DateTimeParser
}

func newDocBuilder(m mapping.IndexMapping) (*docBuilder, error) {
	im, ok := m.(*mapping.IndexMappingImpl)
	if !ok {
		return nil, fmt.Errorf("index mapping is a %T", m)
	}
	dm := im.TypeMapping[docType]
	if dm == nil {
		return nil, fmt.Errorf("index mapping has no %q type", docType)
	}
	b := &docBuilder{opts: map[string]index.FieldIndexingOptions{}, text: codeAnalyzer{keepWhole: true}}
	for name, sub := range dm.Properties {
		if len(sub.Fields) == 1 {
			b.opts[name] = sub.Fields[0].Options()
		}
	}
	for _, f := range []string{fieldText, fieldSession, fieldProject, fieldAgent, fieldKind, fieldRole, fieldTool,
		fieldSurface, fieldMonth, fieldIsError, fieldTime, fieldSeq, fieldTurn, fieldStep} {
		if _, ok := b.opts[f]; !ok {
			return nil, fmt.Errorf("index mapping has no field %q", f)
		}
	}
	if b.datetime = im.DateTimeParserNamed(timeFormat); b.datetime == nil {
		return nil, fmt.Errorf("no date parser %q", timeFormat)
	}
	return b, nil
}

// document returns the Bleve document of d, its fields in blockDoc's order as the
// mapping adds them, its text already analysed (textField.prepare).
func (b *docBuilder) document(id string, d blockDoc) *document.Document {
	doc := document.NewDocument(id)
	doc.Fields = make([]document.Field, 0, 14)
	text := &textField{name: fieldText, value: []byte(d.Text), options: b.opts[fieldText], analyzer: b.text}
	text.prepare()
	doc.AddField(text)
	doc.AddField(&cappedField{text: text})
	keyword := func(name string, v *string) {
		if v != nil {
			doc.AddField(&keywordField{name: name, value: []byte(*v), options: b.opts[name]})
		}
	}
	keyword(fieldSession, &d.Session)
	keyword(fieldProject, &d.Project)
	keyword(fieldAgent, &d.Agent)
	keyword(fieldKind, &d.Kind)
	keyword(fieldRole, &d.Role)
	keyword(fieldTool, &d.Tool)
	keyword(fieldSurface, &d.Surface)
	keyword(fieldMonth, d.Month)
	doc.AddField(document.NewBooleanFieldWithIndexingOptions(fieldIsError, noArrayPositions, d.IsError, b.opts[fieldIsError]))
	if d.Time != nil {
		if t, layout, err := b.datetime.ParseDateTime(*d.Time); err == nil {
			if f, err := document.NewDateTimeFieldWithIndexingOptions(fieldTime, noArrayPositions, t, layout, b.opts[fieldTime]); err == nil {
				doc.AddField(&timeField{DateTimeField: f})
			}
		}
	}
	keyword(fieldSeq, &d.Seq)
	keyword(fieldTurn, d.Turn)
	keyword(fieldStep, d.Step)
	return doc
}

// noArrayPositions are the array positions of a field that is not in an array, as
// the mapping gives them.
var noArrayPositions = []uint64{}

// textField is a document's text field, analyzed by codeAnalyzer into term
// frequencies with term vectors. It stands in for Bleve's document.TextField with
// that analyzer, saving the token stream between the two.
type textField struct {
	name     string
	value    []byte
	options  index.FieldIndexingOptions
	analyzer codeAnalyzer
	length   int
	freqs    index.TokenFrequencies
	size     int      // of freqs, estimated once by Analyze
	capped   [][]byte // the terms over maxTermLocations, found by Analyze
	prep     *prepared
}

var _ document.Field = (*textField)(nil)

func (f *textField) Name() string                        { return f.name }
func (f *textField) ArrayPositions() []uint64            { return noArrayPositions }
func (f *textField) Options() index.FieldIndexingOptions { return f.options }
func (f *textField) Value() []byte                       { return f.value }
func (f *textField) NumPlainTextBytes() uint64           { return uint64(len(f.value)) }
func (f *textField) EncodedFieldType() byte              { return 't' }
func (f *textField) AnalyzedLength() int                 { return f.length }
func (f *textField) AnalyzedTokenFrequencies() index.TokenFrequencies {
	return f.freqs
}

// Size estimates the bytes the field holds, for Bleve's memory accounting.
// Bleve asks for it of every document of a batch; walking every token's
// location each time (TokenFrequencies.Size) was 3% of the indexing CPU.
func (f *textField) Size() int {
	return 96 + len(f.name) + len(f.value) + f.size
}

// prepare analyzes the text, keeping the result compact (prepared) until
// Analyze. docBuilder prepares each document's text as it is made, on the
// batchWriter's goroutine, so the next batch is analysed while Bleve builds the
// segment of the one before.
func (f *textField) prepare() {
	if f.prep != nil || f.freqs != nil {
		return
	}
	ts := tokensPool.Get().(*tokens)
	f.analyzer.run(f.value, ts)
	f.prep = ts.prepare()
	tokensPool.Put(ts)
}

// Analyze implements document.Field: it makes the term frequencies of the
// prepared text (preparing it first if it is not yet), once.
func (f *textField) Analyze() {
	if f.freqs != nil {
		return
	}
	f.prepare()
	p := f.prep
	f.prep = nil
	f.length = len(p.toks)
	f.freqs, f.capped = p.frequencies()
	f.size = freqsSize(len(f.freqs), len(p.toks), len(p.terms))
}

// freqsSize estimates what TokenFrequencies.Size counts for terms distinct
// terms of tokens tokens whose terms take termBytes: a map entry and a
// TokenFreq per term, a TokenLocation and its pointer per token.
func freqsSize(terms, tokens, termBytes int) int {
	const perTerm = 16 + 8 + int(unsafe.Sizeof(index.TokenFreq{}))
	const perToken = 8 + int(unsafe.Sizeof(index.TokenLocation{}))
	return terms*perTerm + tokens*perToken + termBytes
}

// cappedField is a block's record of the terms its text field holds more
// occurrences of than locations (maxTermLocations): one keyword term each in
// fieldCapped, for cappedPhrase to find the blocks whose phrases it must check
// against their text. It follows its text field in the document: Bleve
// analyzes a document's fields in order (scorch's analyze), so the text's
// analysis is done when this one starts.
//
// The field is not in the mapping: its options are fixed here, so an index
// made before it (whose stored mapping lacks it) takes it all the same.
type cappedField struct {
	text  *textField
	freqs index.TokenFrequencies
}

var _ document.Field = (*cappedField)(nil)

func (f *cappedField) Name() string                        { return fieldCapped }
func (f *cappedField) ArrayPositions() []uint64            { return noArrayPositions }
func (f *cappedField) Options() index.FieldIndexingOptions { return index.IndexField }
func (f *cappedField) Value() []byte                       { return nil }
func (f *cappedField) NumPlainTextBytes() uint64           { return 0 }
func (f *cappedField) EncodedFieldType() byte              { return 't' }
func (f *cappedField) AnalyzedLength() int                 { return len(f.freqs) }
func (f *cappedField) AnalyzedTokenFrequencies() index.TokenFrequencies {
	return f.freqs
}
func (f *cappedField) Size() int { return 64 + freqsSize(len(f.freqs), 0, 0) }

// Analyze implements document.Field.
func (f *cappedField) Analyze() {
	if len(f.text.capped) == 0 {
		return
	}
	f.freqs = make(index.TokenFrequencies, len(f.text.capped))
	tfs := make([]index.TokenFreq, len(f.text.capped))
	for i, t := range f.text.capped {
		tfs[i].Term = t
		tfs[i].SetFrequency(1)
		f.freqs[string(t)] = &tfs[i]
	}
}

// timeField is a block's time: Bleve's date field, which stores the time and
// keeps it in doc values ("recent" order, the plan's times) as Bleve's does,
// but indexes only the full-precision term where Bleve's indexes one term per
// 4 bits of precision. Those 16 terms, the 6 finest unique to nearly every
// block, were about 30% of the CPU that indexing small sessions took. Nothing
// searches them: time filters are evaluated on the times (snapView.timeRange),
// never by Bleve's numeric range searcher, which needs them all. Doc values are
// made of the indexed terms, and the full-precision one is the one they are
// read for (segCache.timesFromDocValues, Bleve's date sort).
type timeField struct {
	*document.DateTimeField
	freqs index.TokenFrequencies
}

func (f *timeField) AnalyzedLength() int                              { return len(f.freqs) }
func (f *timeField) AnalyzedTokenFrequencies() index.TokenFrequencies { return f.freqs }

// Analyze implements document.Field: the first of the terms Bleve's date field
// analyzes into, the value without the layout stored after it.
func (f *timeField) Analyze() {
	term, _, _ := bytes.Cut(f.Value(), dateLayoutSeparator)
	f.freqs = analysis.TokenFrequency(analysis.TokenStream{{
		Term: term, Start: 0, End: len(term), Position: 1, Type: analysis.DateTime,
	}}, f.ArrayPositions(), f.Options())
}

// dateLayoutSeparator ends the prefix-coded time in a date field's value, the
// layout following it (document.NewDateTimeFieldWithIndexingOptions).
var dateLayoutSeparator = []byte{0xff}

// keywordField is an exact-match field: what Bleve's text field with the
// keyword analyzer makes of a value (the whole value its one term), without
// the token stream, nor the copy of a stored value, that the analyzer makes
// on the way. A block has ten of them.
type keywordField struct {
	name    string
	value   []byte
	options index.FieldIndexingOptions
	freqs   index.TokenFrequencies
}

var _ document.Field = (*keywordField)(nil)

func (f *keywordField) Name() string                                     { return f.name }
func (f *keywordField) ArrayPositions() []uint64                         { return noArrayPositions }
func (f *keywordField) Options() index.FieldIndexingOptions              { return f.options }
func (f *keywordField) Value() []byte                                    { return f.value }
func (f *keywordField) NumPlainTextBytes() uint64                        { return uint64(len(f.value)) }
func (f *keywordField) EncodedFieldType() byte                           { return 't' }
func (f *keywordField) AnalyzedLength() int                              { return 1 }
func (f *keywordField) AnalyzedTokenFrequencies() index.TokenFrequencies { return f.freqs }
func (f *keywordField) Size() int                                        { return 96 + len(f.name) + 2*len(f.value) }

// Analyze implements document.Field as analysis.TokenFrequency does for the
// keyword analyzer's one token.
func (f *keywordField) Analyze() {
	tf := &index.TokenFreq{Term: f.value}
	if !f.options.SkipFreqNorm() {
		tf.SetFrequency(1)
	}
	if f.options.IncludeTermVectors() {
		tf.Locations = []*index.TokenLocation{{ArrayPositions: noArrayPositions, Start: 0, End: len(f.value), Position: 1}}
	}
	f.freqs = index.TokenFrequencies{string(f.value): tf}
}
