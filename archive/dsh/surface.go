package dsh

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Surface replays surfaceOp markers into the surface: the ordered list of
// model-visible message nodes (the derived LLM history), each named by the seq of
// the user/message, assistant/message or tool/result event that placed it there.
//
// The zero value is an empty surface ready for use. Appends are O(1); a replace costs
// O(nodes after the replaced span) because positions are re-indexed, which is fine
// since replaces (compaction, tool-result pruning) are rare. A Surface is not safe for
// concurrent use.
type Surface struct {
	nodes    []int64         // current surface, in order
	pos      map[int64]int   // seq -> index in nodes, for every current node
	shadowed map[int64]int64 // shadowed seq -> seq of the event that replaced it
}

// surfaceOp is a parsed surfaceOp marker.
type surfaceOp struct {
	replace    bool
	start, end int64
}

// appendOpJSON is the marker every append carries; comparing bytes first keeps the
// common case free of JSON decoding.
var appendOpJSON = []byte(`"append"`)

// parseSurfaceOp decodes a raw surfaceOp: "append" or an object with exactly the keys
// op ("replace"), start and end (integer seqs).
func parseSurfaceOp(raw json.RawMessage) (surfaceOp, error) {
	raw = bytes.TrimSpace(raw)
	if bytes.Equal(raw, appendOpJSON) {
		return surfaceOp{}, nil
	}
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err == nil && s == "append" {
			return surfaceOp{}, nil
		}
		return surfaceOp{}, fmt.Errorf(`surfaceOp %s is neither "append" nor a replace object`, clip(raw, 40))
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return surfaceOp{}, fmt.Errorf(`surfaceOp %s is neither "append" nor a replace object`, clip(raw, 40))
	}
	var op string
	errOp := json.Unmarshal(obj["op"], &op)
	start, okStart := parseSeqValue(obj["start"])
	end, okEnd := parseSeqValue(obj["end"])
	if len(obj) != 3 || errOp != nil || op != "replace" || !okStart || !okEnd {
		return surfaceOp{}, fmt.Errorf(`surfaceOp %s must be exactly {"op":"replace","start":S,"end":E}`, clip(raw, 80))
	}
	return surfaceOp{replace: true, start: start, end: end}, nil
}

// parseSeqValue decodes a JSON integer; null, absent and fractional values fail
// (json.Unmarshal alone would turn null into 0).
func parseSeqValue(raw json.RawMessage) (int64, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] == 'n' {
		return 0, false
	}
	var v int64
	if err := json.Unmarshal(raw, &v); err != nil {
		return 0, false
	}
	return v, true
}

// Apply replays one surface event. Log-only events without surface fields are
// ignored (nil). A problem of kind KindSurface is returned, with Line 0 and Offset -1
// for the caller to fill in, when the event breaks a surface rule; the surface still
// changes in the most useful way so that replay can continue:
//   - a surface event without surfaceOp (optional in early V0 tags) or with a
//     malformed one is appended;
//   - a replace whose endpoints are not current nodes, or whose start lies after its
//     end in surface order, is appended (the message stays visible, nothing is
//     shadowed on a guess);
//   - a replace that fails to cite every shadowed node in sourceEventSeqs is still
//     applied, since the endpoints unambiguously name the span.
//
// An event whose seq is already on the surface is reported and ignored.
func (s *Surface) Apply(ev *Event) *Problem {
	if !IsSurfaceType(ev.Type) {
		if ev.SurfaceOp != nil {
			return surfaceProblem(ev, "%s (seq %d) is a log-only event but carries a surfaceOp; it does not join the surface", ev.Type, ev.Seq)
		}
		return nil
	}
	if s.pos == nil {
		s.pos = make(map[int64]int)
		s.shadowed = make(map[int64]int64)
	}
	if _, dup := s.pos[ev.Seq]; dup {
		return surfaceProblem(ev, "%s (seq %d) is already on the surface; the repeated seq is ignored", ev.Type, ev.Seq)
	}
	if ev.SurfaceOp == nil {
		s.push(ev.Seq)
		return surfaceProblem(ev, "%s (seq %d) has no surfaceOp; treated as append", ev.Type, ev.Seq)
	}
	op, err := parseSurfaceOp(ev.SurfaceOp)
	if err != nil {
		s.push(ev.Seq)
		return surfaceProblem(ev, "%s (seq %d): %v; treated as append", ev.Type, ev.Seq, err)
	}
	if !op.replace {
		s.push(ev.Seq)
		return nil
	}
	i, okStart := s.pos[op.start]
	j, okEnd := s.pos[op.end]
	switch {
	case !okStart || !okEnd:
		s.push(ev.Seq)
		return surfaceProblem(ev, "%s (seq %d) replaces %d..%d but %s; appended instead",
			ev.Type, ev.Seq, op.start, op.end, s.whyNotCurrent(op, okStart, okEnd))
	case i > j:
		s.push(ev.Seq)
		return surfaceProblem(ev, "%s (seq %d) replaces %d..%d but seq %d comes after seq %d on the surface (positions %d > %d); appended instead",
			ev.Type, ev.Seq, op.start, op.end, op.start, op.end, i, j)
	}
	missing := uncited(s.nodes[i:j+1], ev.SourceEventSeqs)
	s.replace(i, j, ev.Seq)
	if len(missing) > 0 {
		return surfaceProblem(ev, "%s (seq %d) replaces surface span %d..%d (%d nodes) but its sourceEventSeqs omit shadowed %s %s",
			ev.Type, ev.Seq, op.start, op.end, j-i+1, plural(len(missing), "node", "nodes"), seqList(missing, 10))
	}
	return nil
}

// whyNotCurrent explains which replace endpoint is missing and whether it was
// shadowed earlier, which is the usual cause.
func (s *Surface) whyNotCurrent(op surfaceOp, okStart, okEnd bool) string {
	var parts []string
	for _, e := range []struct {
		seq int64
		ok  bool
	}{{op.start, okStart}, {op.end, okEnd}} {
		if e.ok || (len(parts) > 0 && op.start == op.end) {
			continue
		}
		if by, was := s.shadowed[e.seq]; was {
			parts = append(parts, fmt.Sprintf("seq %d was already shadowed by seq %d", e.seq, by))
		} else {
			parts = append(parts, fmt.Sprintf("seq %d is not a surface node", e.seq))
		}
	}
	return strings.Join(parts, " and ")
}

// push appends seq as the last node.
func (s *Surface) push(seq int64) {
	s.pos[seq] = len(s.nodes)
	s.nodes = append(s.nodes, seq)
}

// replace swaps nodes[i..j] (inclusive) for seq, recording the shadowing.
func (s *Surface) replace(i, j int, seq int64) {
	for _, old := range s.nodes[i : j+1] {
		s.shadowed[old] = seq
		delete(s.pos, old)
	}
	s.nodes[i] = seq
	s.pos[seq] = i
	if j == i {
		return // single-node replace (tool-result pruning): nothing moves
	}
	n := copy(s.nodes[i+1:], s.nodes[j+1:])
	s.nodes = s.nodes[:i+1+n]
	for k := i + 1; k < len(s.nodes); k++ {
		s.pos[s.nodes[k]] = k
	}
}

// Current returns a copy of the current surface: node seqs in surface order.
func (s *Surface) Current() []int64 {
	return append([]int64(nil), s.nodes...)
}

// Len returns the number of current surface nodes.
func (s *Surface) Len() int { return len(s.nodes) }

// Contains reports whether seq is a current surface node.
func (s *Surface) Contains(seq int64) bool {
	_, ok := s.pos[seq]
	return ok
}

// Shadowed returns the shadowed nodes: shadowed seq → seq of the replacing event. The
// map is the Surface's own (entries are never changed once written, only added);
// callers must not modify it. It is nil before the first Apply.
func (s *Surface) Shadowed() map[int64]int64 { return s.shadowed }

// Span returns a copy of the current nodes from the position of start through the
// position of end (surface order, inclusive), and false if either is not a current
// node or start comes after end.
func (s *Surface) Span(start, end int64) ([]int64, bool) {
	i, j, ok := s.spanIndex(start, end)
	if !ok {
		return nil, false
	}
	return append([]int64(nil), s.nodes[i:j+1]...), true
}

// spanEqual reports whether seqs is exactly the current span start..end, without
// copying it (compaction spans can hold most of a long session).
func (s *Surface) spanEqual(start, end int64, seqs []int64) bool {
	i, j, ok := s.spanIndex(start, end)
	if !ok || j-i+1 != len(seqs) {
		return false
	}
	for k, seq := range s.nodes[i : j+1] {
		if seqs[k] != seq {
			return false
		}
	}
	return true
}

// spanIndex locates start and end among the current nodes.
func (s *Surface) spanIndex(start, end int64) (int, int, bool) {
	i, ok1 := s.pos[start]
	j, ok2 := s.pos[end]
	if !ok1 || !ok2 || i > j {
		return 0, 0, false
	}
	return i, j, true
}

// uncited returns the members of shadowed that cite does not contain. cite is
// normally strictly increasing (the decoder's range form guarantees it), which allows
// a merge walk; otherwise a set is built.
func uncited(shadowed, cite []int64) []int64 {
	var missing []int64
	sorted := true
	for k := 1; k < len(cite); k++ {
		if cite[k] <= cite[k-1] {
			sorted = false
			break
		}
	}
	if sorted && len(cite) > 8 {
		for _, seq := range shadowed {
			if !containsSorted(cite, seq) {
				missing = append(missing, seq)
			}
		}
		return missing
	}
	if len(cite) <= 8 {
		for _, seq := range shadowed {
			found := false
			for _, c := range cite {
				if c == seq {
					found = true
					break
				}
			}
			if !found {
				missing = append(missing, seq)
			}
		}
		return missing
	}
	set := make(map[int64]struct{}, len(cite))
	for _, c := range cite {
		set[c] = struct{}{}
	}
	for _, seq := range shadowed {
		if _, ok := set[seq]; !ok {
			missing = append(missing, seq)
		}
	}
	return missing
}

// containsSorted is a binary search in a strictly increasing list.
func containsSorted(list []int64, v int64) bool {
	lo, hi := 0, len(list)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		switch {
		case list[m] == v:
			return true
		case list[m] < v:
			lo = m + 1
		default:
			hi = m
		}
	}
	return false
}

// surfaceProblem builds a KindSurface problem about ev.
func surfaceProblem(ev *Event, format string, args ...any) *Problem {
	return &Problem{Kind: KindSurface, Offset: -1, Seq: ev.Seq, Message: fmt.Sprintf(format, args...)}
}

// seqList renders up to max seqs as "5, 6, 9 … and 12 more" for messages.
func seqList(seqs []int64, max int) string {
	var b strings.Builder
	for k, seq := range seqs {
		if k == max {
			fmt.Fprintf(&b, " … and %d more", len(seqs)-max)
			break
		}
		if k > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.FormatInt(seq, 10))
	}
	return b.String()
}

// plural picks the singular or plural noun for n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// clip renders raw JSON for a message, cut to n bytes.
func clip(raw []byte, n int) string {
	if len(raw) <= n {
		return string(raw)
	}
	return string(raw[:n]) + "…"
}
