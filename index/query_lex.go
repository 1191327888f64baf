package index

// This file holds the query lexer: it splits the typed text into words, quoted
// phrases, operators and parentheses, with byte positions for error messages.

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// qtokKind is the lexical class of a token.
type qtokKind uint8

const (
	qtEOF    qtokKind = iota
	qtLParen          // "(" at the start of a clause
	qtRParen          // ")" closing an open group
	qtAnd             // AND
	qtOr              // OR
	qtNot             // NOT
	qtMinus           // - directly before a clause
	qtPlus            // + directly before a clause
	qtPhrase          // "…"; text is the unescaped content
	qtWord            // anything else up to whitespace; text is the word
	qtField           // name:"…"; name, text (unescaped value), vpos, star
)

// String names the token kind for error messages.
func (k qtokKind) String() string {
	switch k {
	case qtEOF:
		return "end of query"
	case qtLParen:
		return "("
	case qtRParen:
		return ")"
	case qtAnd:
		return "AND"
	case qtOr:
		return "OR"
	case qtNot:
		return "NOT"
	case qtMinus:
		return "-"
	case qtPlus:
		return "+"
	case qtPhrase:
		return "phrase"
	case qtField:
		return "filter"
	}
	return "word"
}

// qtoken is one lexical token.
type qtoken struct {
	kind qtokKind
	pos  int    // byte offset of the token's first byte
	text string // word text, phrase content or quoted filter value
	name string // qtField: the filter name as typed
	vpos int    // qtField: byte offset of the value's opening quote
	star bool   // qtField: the closing quote is followed by *
}

// lexQuery splits text into tokens, ending with qtEOF. It tracks open groups
// itself because whether ")" is syntax or part of a word depends on them.
func lexQuery(text string) ([]qtoken, error) {
	var toks []qtoken
	depth := 0
	afterSign := false // the previous token was a - or + prefix
	i := 0
	for {
		for i < len(text) {
			r, size := utf8.DecodeRuneInString(text[i:])
			if !unicode.IsSpace(r) {
				break
			}
			i += size
			afterSign = false
		}
		if i >= len(text) {
			return append(toks, qtoken{kind: qtEOF, pos: i}), nil
		}
		sign := false
		switch c := text[i]; {
		case c == '(':
			toks = append(toks, qtoken{kind: qtLParen, pos: i})
			depth++
			i++
		case c == ')' && depth > 0:
			toks = append(toks, qtoken{kind: qtRParen, pos: i})
			depth--
			i++
		case c == '"':
			s, end, err := lexQuoted(text, i)
			if err != nil {
				return nil, err
			}
			toks = append(toks, qtoken{kind: qtPhrase, pos: i, text: s})
			i = end
		case (c == '-' || c == '+') && startsOperand(text, i+1):
			kind := qtMinus
			if c == '+' {
				kind = qtPlus
			}
			toks = append(toks, qtoken{kind: kind, pos: i})
			sign = true
			i++
		default:
			t, end, err := lexWord(text, i, depth, afterSign)
			if err != nil {
				return nil, err
			}
			toks = append(toks, t)
			i = end
		}
		afterSign = sign
	}
}

// startsOperand reports whether the rune at j can start the operand of a -
// or + prefix: a letter, a quote, a group or a non-ASCII symbol such as an
// emoji. Before anything else a sign is text: "a - b", "->", "--force", "-1",
// "C++", "+=".
func startsOperand(text string, j int) bool {
	if j >= len(text) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(text[j:])
	switch {
	case r == '"' || r == '(' || unicode.IsLetter(r):
		return true
	case r < utf8.RuneSelf || unicode.IsSpace(r) || unicode.IsDigit(r) || unicode.IsPunct(r):
		return false
	}
	return r != utf8.RuneError
}

// lexQuoted reads the quoted string whose opening quote is at text[start]. \"
// and \\ are the only escapes, so Windows paths keep their backslashes.
func lexQuoted(text string, start int) (value string, end int, err error) {
	var b strings.Builder
	escapedQuote := false
	for j := start + 1; j < len(text); {
		switch c := text[j]; {
		case c == '\\' && j+1 < len(text) && (text[j+1] == '"' || text[j+1] == '\\'):
			escapedQuote = escapedQuote || text[j+1] == '"'
			b.WriteByte(text[j+1])
			j += 2
		case c == '"':
			return b.String(), j + 1, nil
		default:
			b.WriteByte(c)
			j++
		}
	}
	msg := "unterminated quote"
	if escapedQuote {
		msg += ` (\" is an escaped quote; write \\ for a backslash before the closing quote)`
	}
	return "", 0, &QueryError{Pos: start, Msg: msg}
}

// lexWord reads a word starting at text[start]: everything up to whitespace,
// or up to a ")" that closes an open group. Parentheses the word opens itself
// stay in it (getUser(id)). A known filter name followed by :" reads a quoted
// value instead.
func lexWord(text string, start, depth int, afterSign bool) (qtoken, int, error) {
	local := 0
	sawColon := false
	j := start
	for j < len(text) {
		r, size := utf8.DecodeRuneInString(text[j:])
		if unicode.IsSpace(r) {
			break
		}
		switch r {
		case '(':
			// NOT(a OR b): a keyword directly before a group is still one.
			if !afterSign && j > start && queryKeyword(text[start:j]) != qtWord {
				return qtoken{kind: queryKeyword(text[start:j]), pos: start}, j, nil
			}
			local++
		case ')':
			if local > 0 {
				local--
			} else if depth > 0 && j > start {
				return wordToken(text[start:j], start, afterSign), j, nil
			}
		case ':':
			if !sawColon && j+1 < len(text) && text[j+1] == '"' && isQueryField(text[start:j]) {
				value, end, err := lexQuoted(text, j+1)
				if err != nil {
					return qtoken{}, 0, err
				}
				t := qtoken{kind: qtField, pos: start, name: text[start:j], text: value, vpos: j + 1}
				if end < len(text) && text[end] == '*' {
					t.star = true
					end++
				}
				return t, end, nil
			}
			sawColon = true
		}
		j += size
	}
	return wordToken(text[start:j], start, afterSign), j, nil
}

// wordToken classifies a finished word: a keyword standing alone, else text.
// After a sign it is always text, so -AND searches for "AND".
func wordToken(w string, pos int, afterSign bool) qtoken {
	if !afterSign {
		if k := queryKeyword(w); k != qtWord {
			return qtoken{kind: k, pos: pos}
		}
	}
	return qtoken{kind: qtWord, pos: pos, text: w}
}

// queryKeyword returns the keyword token kind for w, or qtWord.
func queryKeyword(w string) qtokKind {
	switch w {
	case "AND":
		return qtAnd
	case "OR":
		return qtOr
	case "NOT":
		return qtNot
	}
	return qtWord
}
