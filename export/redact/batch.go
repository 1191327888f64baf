package redact

import (
	"sort"
	"strings"
)

// batchSize is about how much text one scan of the rules sees. Short docs (a title, a
// tool argument) are scanned together, because each gitleaks call has a fixed cost
// (a pass over its ~200 rules) that dominates short texts.
const batchSize = 256 << 10

// docSep separates docs in a batch. It ends a line for rules that look at lines, and no
// rule's character classes take a NUL, so no match runs from one doc into the next; one
// that does is cut at its doc's end.
const docSep = "\n\x00\n"

// batch is docs joined with docSep.
type batch struct {
	text   string
	docs   []int // indexes into the scanned docs
	starts []int // offset of each doc in text
}

// makeBatches joins consecutive docs into batches of about batchSize.
func makeBatches(docs []Doc) []batch {
	var (
		out []batch
		cur batch
		b   strings.Builder
	)
	flush := func() {
		if len(cur.docs) > 0 {
			cur.text = b.String()
			out = append(out, cur)
			cur = batch{}
			b.Reset()
		}
	}
	for i, d := range docs {
		if b.Len() > 0 && b.Len()+len(d.Text) > batchSize {
			flush()
		}
		if len(cur.docs) > 0 {
			b.WriteString(docSep)
		}
		cur.docs = append(cur.docs, i)
		cur.starts = append(cur.starts, b.Len())
		b.WriteString(d.Text)
	}
	flush()
	return out
}

// split hands the batch's matches to their docs, in doc offsets.
func (bt batch) split(docs []Doc, ms []match, perDoc [][]match) {
	for _, m := range ms {
		k := sort.Search(len(bt.starts), func(i int) bool { return bt.starts[i] > m.start }) - 1
		if k < 0 {
			continue
		}
		di, off := bt.docs[k], bt.starts[k]
		n := len(docs[di].Text)
		if m.start >= off+n {
			continue // in a separator
		}
		m.start, m.end = m.start-off, min(m.end-off, n)
		perDoc[di] = append(perDoc[di], m)
	}
}
