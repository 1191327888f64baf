package dsh

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
)

// DecodeSeqRanges expands a physical sourceEventSeqs value (§1.3): an array whose
// entries are single seqs or inclusive [start, end] pairs. maxEntries caps the
// expanded length (dsh passes the event's own seq: an event can only cite that many
// earlier events), which also bounds the memory a hostile range can claim. When any
// range was used the expansion must be strictly increasing; a flat list is returned
// verbatim, since the writer keeps non-increasing lists as they were.
func DecodeSeqRanges(raw []byte, maxEntries int64) ([]int64, error) {
	if jsonKind(raw) != "an array" {
		return nil, fmt.Errorf("sourceEventSeqs must be an array, got %s", jsonKind(raw))
	}
	out := []int64{}
	usedRange := false
	err := eachElement(raw, func(v []byte) error {
		switch jsonKind(v) {
		case "a number":
			n, ok := nonNegInt(v)
			if !ok {
				return fmt.Errorf("sourceEventSeqs member %s is not a non-negative safe integer", v)
			}
			if int64(len(out)) >= maxEntries {
				return fmt.Errorf("sourceEventSeqs has more than %d members (the event's own seq)", maxEntries)
			}
			out = append(out, n)
		case "an array":
			var pair []int64
			bad := false
			_ = eachElement(v, func(e []byte) error {
				n, ok := nonNegInt(e)
				if !ok {
					bad = true
				}
				pair = append(pair, n)
				return nil
			})
			if bad || len(pair) != 2 {
				return fmt.Errorf("sourceEventSeqs range %s must be [start, end] of two non-negative safe integers", v)
			}
			start, end := pair[0], pair[1]
			if end < start {
				return fmt.Errorf("sourceEventSeqs range %s ends before it starts", v)
			}
			if end-start+1 > maxEntries-int64(len(out)) {
				return fmt.Errorf("sourceEventSeqs range %s expands past %d members (the event's own seq)", v, maxEntries)
			}
			usedRange = true
			// One exact growth per range: appending seq by seq doubled the slice
			// over and over for the hundreds of chunk seqs a message cites.
			out = slices.Grow(out, int(end-start+1))
			for s := start; s <= end; s++ {
				out = append(out, s)
			}
		default:
			return fmt.Errorf("sourceEventSeqs member %s must be a number or a [start, end] range", truncate(v, 40))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if usedRange {
		for i := 1; i < len(out); i++ {
			if out[i] <= out[i-1] {
				return nil, errors.New("sourceEventSeqs ranges must be strictly increasing")
			}
		}
	}
	return out, nil
}

// EncodeSeqRanges writes seqs the way dsh's encodeSeqRanges does: a list that is not
// strictly increasing is written verbatim; otherwise maximal runs of three or more
// consecutive seqs become [first, last] and shorter runs stay single numbers.
func EncodeSeqRanges(seqs []int64) []byte {
	b := []byte{'['}
	increasing := true
	for i := 1; i < len(seqs); i++ {
		if seqs[i] <= seqs[i-1] {
			increasing = false
			break
		}
	}
	sep := func() {
		if len(b) > 1 {
			b = append(b, ',')
		}
	}
	if !increasing {
		for _, s := range seqs {
			sep()
			b = strconv.AppendInt(b, s, 10)
		}
		return append(b, ']')
	}
	for i := 0; i < len(seqs); {
		j := i
		for j+1 < len(seqs) && seqs[j+1] == seqs[j]+1 {
			j++
		}
		if j-i+1 >= 3 {
			sep()
			b = append(b, '[')
			b = strconv.AppendInt(b, seqs[i], 10)
			b = append(b, ',')
			b = strconv.AppendInt(b, seqs[j], 10)
			b = append(b, ']')
		} else {
			for k := i; k <= j; k++ {
				sep()
				b = strconv.AppendInt(b, seqs[k], 10)
			}
		}
		i = j + 1
	}
	return append(b, ']')
}

func truncate(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "…"
}
