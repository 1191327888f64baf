package redact

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
)

// PartFunc returns the docs of part i of a ScanParts, such as one session of a
// bundle. It is called twice for each part (once when there is one part), in
// order, and should return the same docs each time.
type PartFunc func(ctx context.Context, i int) ([]Doc, error)

// ScanParts scans the docs of n parts as one Scan of all of them would, while
// holding the text of only one part at a time: a value found in one part is found
// again in every other, and the Report (and so a Redactor built from it) covers
// them all. It goes over the parts twice: first to run the rules and learn the
// values and user names the second pass looks for everywhere, then to find those
// and make the findings. What it keeps between the passes is what the first found
// (positions, not text), so each part costs one scan of the rules.
//
// Doc IDs must be unique across all parts (prefix them with the part, say); a
// duplicate within a part returns ErrDuplicateDoc. A part whose docs differ on the
// second call (its session changed meanwhile) is scanned afresh, so its findings
// are those of the docs the second call returned.
func (s *Scanner) ScanParts(ctx context.Context, n int, part PartFunc) (*Report, error) {
	if n == 1 {
		// One part is all the text: read once.
		docs, err := s.part(ctx, part, 0)
		if err != nil {
			return nil, err
		}
		return s.Scan(ctx, docs)
	}
	names := newNameRule(s.names)
	l := newLearner(s, names)
	kept := make([]partScan, n)
	for i := range n {
		docs, err := s.part(ctx, part, i)
		if err != nil {
			return nil, err
		}
		sc, err := s.firstPass(ctx, docs, names)
		if err != nil {
			return nil, err
		}
		l.learn(sc)
		kept[i] = partScan{digest: sc.digest(), perBatch: sc.perBatch}
	}
	second := l.rules()
	r := s.newReport()
	for i := range n {
		docs, err := s.part(ctx, part, i)
		if err != nil {
			return nil, err
		}
		sc := scanned{batches: makeBatches(docs), perBatch: kept[i].perBatch}
		first := kept[i].digest
		kept[i] = partScan{} // let it go with the part
		if sc.digest() != first {
			if sc, err = s.firstPass(ctx, docs, names); err != nil {
				return nil, err
			}
		}
		if err := s.finish(ctx, r, docs, sc, second); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// part returns part i's docs, checked.
func (s *Scanner) part(ctx context.Context, part PartFunc, i int) ([]Doc, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	docs, err := part(ctx, i)
	if err != nil {
		return nil, err
	}
	if err := checkIDs(docs); err != nil {
		return nil, fmt.Errorf("part %d: %w", i, err)
	}
	return docs, nil
}

// partScan is what ScanParts keeps of a part between its passes.
type partScan struct {
	digest   [sha256.Size]byte // of the part's batches
	perBatch [][]match
}

// digest sums the text of sc's batches and where each doc starts in them, which
// is all the first pass's matches depend on (not the doc IDs), so a part read again
// can be told from a changed one.
func (sc scanned) digest() [sha256.Size]byte {
	h := sha256.New()
	var n [8]byte
	put := func(v int) {
		binary.LittleEndian.PutUint64(n[:], uint64(v))
		h.Write(n[:])
	}
	for _, b := range sc.batches {
		put(len(b.text))
		for _, st := range b.starts {
			put(st)
		}
		_, _ = io.WriteString(h, b.text)
	}
	var out [sha256.Size]byte
	h.Sum(out[:0])
	return out
}
