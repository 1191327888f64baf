package index

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

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
