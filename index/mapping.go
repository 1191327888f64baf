package index

import (
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/analysis/datetime/timestamp/milliseconds"
	"github.com/blevesearch/bleve/v2/mapping"
)

// indexVersion names the on-disk format: the mapping, the analyzers and what a
// document holds. Bump it with any change to them; Open then discards an index
// written by another version and the next Sync rebuilds it from the archive.
const indexVersion = 7

// docType is the one document type in the index.
const docType = "block"

// Analyzer names. textAnalyzer indexes the text field; queryAnalyzer analyzes query
// text for it (Search applies it to text queries that name no analyzer).
const (
	textAnalyzer  = "logbook"
	queryAnalyzer = "logbook_query"
)

// Field names, shared with the query parser (query.go).
const (
	fieldText    = "text"
	fieldKind    = "kind"
	fieldRole    = "role"
	fieldTool    = "tool"
	fieldProject = "project"
	fieldSession = "session"
	fieldAgent   = "agent"
	fieldSurface = "surface"
	fieldMonth   = "month"
	fieldIsError = "is_error"
	fieldTime    = "time"
	fieldSeq     = "seq"
	fieldTurn    = "turn"
	fieldStep    = "step"

	// fieldCapped is not in the mapping: see cappedField.
	fieldCapped = "capped"
)

// The keyword fields' analyzer, and the date format of the time field: documents
// carry the time as Unix milliseconds.
const (
	keywordAnalyzer = keyword.Name
	timeFormat      = milliseconds.Name
)

// storedFields are loaded into every hit, so a result needs no archive lookup.
var storedFields = []string{fieldSession, fieldSeq, fieldKind, fieldRole, fieldTool, fieldProject, fieldAgent, fieldSurface, fieldTime, fieldIsError}

// newMapping builds the explicit mapping: one document type, no dynamic fields,
// no _all field, and text analyzed by the logbook analyzer.
//
// The logbook analyzer is: the Unicode word segmenter (UAX #29, which also emits
// each Han or Kana character as a token of its own), NFC, CJK width folding
// (full-width Latin to ASCII, half-width Kana to full), CJK bigrams (a character
// standing alone is a unigram), the code-identifier splitter, then lowercase.
// Bigrams make CJK words precise and fast; a one-character query finds the
// bigrams that hold the character (cjkChar). The query analyzer is
// the same but for the splitter, which emits an identifier's parts without the
// whole (see codeFilter). Both sides must emit CJK tokens the same way, or
// positions after a CJK run disagree and phrases across it never match.
//
// Both are codeAnalyzer, which does in one pass what that chain of Bleve's
// tokenizer and filters does (the tests hold it to the chain).
func newMapping() (*mapping.IndexMappingImpl, error) {
	im := mapping.NewIndexMapping()
	if err := im.AddCustomAnalyzer(textAnalyzer, map[string]interface{}{"type": analyzerType, "keep_whole": true}); err != nil {
		return nil, err
	}
	if err := im.AddCustomAnalyzer(queryAnalyzer, map[string]interface{}{"type": analyzerType, "keep_whole": false}); err != nil {
		return nil, err
	}

	text := mapping.NewTextFieldMapping()
	text.Analyzer = textAnalyzer
	text.Store = true              // for highlighting; see the size notes in the package doc
	text.IncludeTermVectors = true // phrase queries and highlighting need positions and offsets
	text.IncludeInAll = false
	text.DocValues = false

	// keywordField returns an exact-match field. None keeps doc values: facets
	// are counted from postings (plan.go).
	keywordField := func(store bool) *mapping.FieldMapping {
		f := mapping.NewKeywordFieldMapping()
		f.Analyzer = keywordAnalyzer
		f.Store = store
		f.DocValues = false
		f.IncludeInAll = false
		f.IncludeTermVectors = false
		return f
	}

	dm := mapping.NewDocumentStaticMapping()
	dm.AddFieldMappingsAt(fieldText, text)
	dm.AddFieldMappingsAt(fieldKind, keywordField(true))
	dm.AddFieldMappingsAt(fieldRole, keywordField(true))
	dm.AddFieldMappingsAt(fieldTool, keywordField(true))
	dm.AddFieldMappingsAt(fieldProject, keywordField(true))
	dm.AddFieldMappingsAt(fieldSession, keywordField(true))
	dm.AddFieldMappingsAt(fieldAgent, keywordField(true)) // stored: a hit names its agent
	dm.AddFieldMappingsAt(fieldSurface, keywordField(true))
	dm.AddFieldMappingsAt(fieldMonth, keywordField(false))

	isErr := mapping.NewBooleanFieldMapping()
	isErr.Store = true
	isErr.DocValues = false
	isErr.IncludeInAll = false
	dm.AddFieldMappingsAt(fieldIsError, isErr)

	tm := mapping.NewDateTimeFieldMapping()
	// Documents carry the time as Unix milliseconds: a time.Time value would be
	// stored (and returned in hits) at RFC 3339's whole-second precision.
	tm.DateFormat = timeFormat
	tm.Store = true
	tm.DocValues = true // "recent" order, and the plan's times (segcache.go)
	tm.IncludeInAll = false
	dm.AddFieldMappingsAt(fieldTime, tm)

	// seq, turn and step are only ever matched exactly (seq:123, turn:3), so they are
	// keywords: a numeric field indexes a term per 4-bit shift of the value, which
	// made these three fields ~8% of the index.
	dm.AddFieldMappingsAt(fieldSeq, keywordField(true))
	dm.AddFieldMappingsAt(fieldTurn, keywordField(false))
	dm.AddFieldMappingsAt(fieldStep, keywordField(false))
	dm.AddSubDocumentMapping("_all", mapping.NewDocumentDisabledMapping())

	im.AddDocumentMapping(docType, dm)
	im.DefaultMapping = mapping.NewDocumentDisabledMapping()
	im.DefaultType = docType
	im.DefaultAnalyzer = textAnalyzer
	im.DefaultField = fieldText // a query that names no field searches text, not _all
	im.IndexDynamic = false
	im.StoreDynamic = false
	im.DocValuesDynamic = false
	if err := im.Validate(); err != nil {
		return nil, err
	}
	return im, nil
}
