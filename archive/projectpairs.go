package archive

import (
	"maps"
	"slices"
	"strings"
)

// pairedTable is a table whose rows two kinds of view items write halves of,
// keyed by an id: a tool call (a) and its result (b), an approval asked (a) and
// decided (b). Each half was an upsert of its own: the call inserted the row
// and the result updated it, two statements and two writes of the row. The
// projector holds a half until its other half comes, and writes the two as
// one row.
//
// Its three INSERTs take the same values (session_pk, key, a columns, b
// columns) and differ in what a row of the key that exists already takes from
// them: name+"A" its a columns, name+"B" its b columns, name+"AB" both. Written
// in any order, rows come out as the upserts of each half in their order would
// leave them (TestProjectorPairsLikeUpserts).
type pairedTable struct {
	name, table, key string
	a, b             []string
}

// inserts returns the table's three INSERTs, by name.
func (t pairedTable) inserts() map[string]string {
	cols := append(append([]string{"session_pk", t.key}, t.a...), t.b...)
	head := "INSERT INTO " + t.table + " (" + strings.Join(cols, ", ") + ")\n\t\tVALUES (" +
		strings.Repeat("?, ", len(cols)-1) + "?)\n\t\tON CONFLICT (session_pk, " + t.key + ") DO UPDATE SET "
	set := func(cols []string) string {
		s := make([]string, len(cols))
		for i, c := range cols {
			s[i] = c + " = excluded." + c
		}
		return strings.Join(s, ", ")
	}
	return map[string]string{
		t.name + "A":  head + set(t.a),
		t.name + "B":  head + set(t.b),
		t.name + "AB": head + set(append(append([]string{}, t.a...), t.b...)),
	}
}

// pairedHalves and pairedBytes bound the rows waiting for their other half
// a queue holds (calls never answered, answers to calls of an earlier import),
// and the bytes of their texts (a call's arguments may be large): past either,
// they are written as they are.
const (
	pairedHalves = 256
	pairedBytes  = 8 << 20
)

// pairedRow is a row of a pairedTable waiting for its other half: its values
// (a half not set yet holds what the row is inserted with when it is new),
// and which half it has.
type pairedRow struct {
	vals []any
	hasA bool
}

// pairedQueue holds the rows of a pairedTable that have one half.
type pairedQueue struct {
	t       *pairedTable
	waiting map[string]*pairedRow
	bytes   int // of the texts among the waiting rows' values
}

// setA sets the a half of key's row to a; b is what the row's b columns take
// when it is new and no b half comes.
func (q *pairedQueue) setA(p *projector, key string, a, b []any) error {
	return q.set(p, key, true, a, b)
}

// setB sets the b half of key's row to b; a is what the row's a columns take
// when it is new and no a half comes.
func (q *pairedQueue) setB(p *projector, key string, b, a []any) error {
	return q.set(p, key, false, a, b)
}

func (q *pairedQueue) set(p *projector, key string, isA bool, a, b []any) error {
	if r, ok := q.waiting[key]; ok {
		q.bytes -= textBytes(r.vals)
		if isA {
			copy(r.vals[2:], a)
		} else {
			copy(r.vals[2+len(q.t.a):], b)
		}
		if r.hasA == isA { // the same half again: it replaces the first
			q.bytes += textBytes(r.vals)
			return nil
		}
		delete(q.waiting, key)
		return p.exec(q.t.name+"AB", r.vals...)
	}
	vals := make([]any, 0, 2+len(a)+len(b))
	vals = append(append(append(vals, p.pk, key), a...), b...)
	if q.waiting == nil {
		q.waiting = map[string]*pairedRow{}
	}
	q.waiting[key] = &pairedRow{vals: vals, hasA: isA}
	q.bytes += textBytes(vals)
	if len(q.waiting) < pairedHalves && q.bytes < pairedBytes {
		return nil
	}
	return q.flush(p)
}

// flush writes the rows that have one half, in key order (any order leaves
// the same rows; this one leaves the same pages every time).
func (q *pairedQueue) flush(p *projector) error {
	keys := slices.Sorted(maps.Keys(q.waiting))
	for _, key := range keys {
		r := q.waiting[key]
		half := "B"
		if r.hasA {
			half = "A"
		}
		if err := p.exec(q.t.name+half, r.vals...); err != nil {
			return err
		}
		delete(q.waiting, key)
	}
	q.bytes = 0
	return nil
}

// textBytes is the size of the texts among vals.
func textBytes(vals []any) int {
	n := 0
	for _, v := range vals {
		if s, ok := v.(string); ok {
			n += len(s)
		}
	}
	return n
}
