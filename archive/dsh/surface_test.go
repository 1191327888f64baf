package dsh

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// surfaceEvent builds a surface event; op "" means no surfaceOp, src nil means no
// sourceEventSeqs.
func surfaceEvent(seq int64, typ, op string, src ...int64) *Event {
	ev := &Event{Seq: seq, Type: typ, Member: -1, Data: json.RawMessage(`{}`)}
	if op != "" {
		ev.SurfaceOp = json.RawMessage(op)
	}
	if src != nil {
		ev.HasSourceSeqs, ev.SourceEventSeqs = true, src
	}
	return ev
}

// appendAll appends user/messages with the given seqs.
func appendAll(t *testing.T, s *Surface, seqs ...int64) {
	for _, seq := range seqs {
		require.Nil(t, s.Apply(surfaceEvent(seq, "user/message", `"append"`)))
	}
}

func TestSurfaceAppendAndReplace(t *testing.T) {
	var s Surface
	appendAll(t, &s, 0, 1, 2, 3)
	require.Equal(t, []int64{0, 1, 2, 3}, s.Current())

	// Replace the middle two nodes.
	require.Nil(t, s.Apply(surfaceEvent(10, "user/message", `{"op":"replace","start":1,"end":2}`, 1, 2)))
	assert.Equal(t, []int64{0, 10, 3}, s.Current())
	assert.Equal(t, map[int64]int64{1: 10, 2: 10}, s.Shadowed())

	// Positions, not numbers: 10 precedes 3 on the surface.
	require.Nil(t, s.Apply(surfaceEvent(11, "user/message", `{"op":"replace","start":10,"end":3}`, 3, 10)))
	assert.Equal(t, []int64{0, 11}, s.Current())
	assert.Equal(t, int64(11), s.Shadowed()[10])

	// Single-node replace (tool-result pruning) keeps positions.
	require.Nil(t, s.Apply(surfaceEvent(12, "tool/result", `{"op":"replace","start":0,"end":0}`, 0)))
	assert.Equal(t, []int64{12, 11}, s.Current())
	assert.True(t, s.Contains(12))
	assert.False(t, s.Contains(0))

	span, ok := s.Span(12, 11)
	assert.True(t, ok)
	assert.Equal(t, []int64{12, 11}, span)
	_, ok = s.Span(11, 12)
	assert.False(t, ok, "start after end")
	_, ok = s.Span(1, 11)
	assert.False(t, ok, "shadowed endpoint")
}

func TestSurfaceProblems(t *testing.T) {
	cases := []struct {
		name    string
		ev      *Event
		want    []int64 // surface after the event, starting from 0,1,2,3 with 1..2 replaced by 10
		message string
	}{
		{"missing surfaceOp is appended", surfaceEvent(20, "user/message", ""),
			[]int64{0, 10, 3, 20}, "has no surfaceOp; treated as append"},
		{"unknown string op is appended", surfaceEvent(20, "user/message", `"prepend"`),
			[]int64{0, 10, 3, 20}, `neither "append" nor a replace object`},
		{"replace missing end is appended", surfaceEvent(20, "user/message", `{"op":"replace","start":0}`),
			[]int64{0, 10, 3, 20}, `must be exactly {"op":"replace","start":S,"end":E}`},
		{"replace with extra key is appended", surfaceEvent(20, "user/message", `{"op":"replace","start":0,"end":0,"x":1}`, 0),
			[]int64{0, 10, 3, 20}, "must be exactly"},
		{"replace with null start is appended", surfaceEvent(20, "user/message", `{"op":"replace","start":null,"end":0}`, 0),
			[]int64{0, 10, 3, 20}, "must be exactly"},
		{"replace with fractional end is appended", surfaceEvent(20, "user/message", `{"op":"replace","start":0,"end":0.5}`, 0),
			[]int64{0, 10, 3, 20}, "must be exactly"},
		{"replace of shadowed node is appended", surfaceEvent(20, "user/message", `{"op":"replace","start":1,"end":3}`, 1, 3),
			[]int64{0, 10, 3, 20}, "seq 1 was already shadowed by seq 10"},
		{"replace of unknown node is appended", surfaceEvent(20, "user/message", `{"op":"replace","start":7,"end":7}`, 7),
			[]int64{0, 10, 3, 20}, "seq 7 is not a surface node"},
		{"replace with start after end is appended", surfaceEvent(20, "user/message", `{"op":"replace","start":3,"end":0}`, 0, 3),
			[]int64{0, 10, 3, 20}, "seq 3 comes after seq 0 on the surface"},
		{"replace missing citations is applied", surfaceEvent(20, "user/message", `{"op":"replace","start":0,"end":3}`, 0),
			[]int64{20}, "omit shadowed nodes 10, 3"},
		{"replace without sourceEventSeqs is applied", surfaceEvent(20, "tool/result", `{"op":"replace","start":3,"end":3}`),
			[]int64{0, 10, 20}, "omit shadowed node 3"},
		{"repeated seq is ignored", surfaceEvent(3, "user/message", `"append"`),
			[]int64{0, 10, 3}, "already on the surface"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var s Surface
			appendAll(t, &s, 0, 1, 2, 3)
			require.Nil(t, s.Apply(surfaceEvent(10, "user/message", `{"op":"replace","start":1,"end":2}`, 1, 2)))
			p := s.Apply(tc.ev)
			require.NotNil(t, p)
			assert.Equal(t, KindSurface, p.Kind)
			assert.Equal(t, tc.ev.Seq, p.Seq)
			assert.EqualValues(t, -1, p.Offset)
			assert.Contains(t, p.Message, tc.message)
			assert.Equal(t, tc.want, s.Current())
		})
	}
}

func TestSurfaceLogOnlyEvents(t *testing.T) {
	var s Surface
	t.Run("without surfaceOp is ignored", func(t *testing.T) {
		assert.Nil(t, s.Apply(&Event{Seq: 0, Type: "turn/start"}))
		assert.Zero(t, s.Len())
	})
	t.Run("with surfaceOp is reported and ignored", func(t *testing.T) {
		p := s.Apply(&Event{Seq: 1, Type: "tool/call", SurfaceOp: json.RawMessage(`"append"`)})
		require.NotNil(t, p)
		assert.Contains(t, p.Message, "log-only")
		assert.Zero(t, s.Len())
	})
}

// TestSurfaceLargeReplay keeps replay linear for big sessions: 200k appends, a
// compaction of most of them, and many single-node prunes.
func TestSurfaceLargeReplay(t *testing.T) {
	var s Surface
	const n = 200_000
	for seq := int64(0); seq < n; seq++ {
		require.Nil(t, s.Apply(surfaceEvent(seq, "tool/result", `"append"`)))
	}
	for k := int64(0); k < 5_000; k++ {
		target := n/2 + k*10
		op := `{"op":"replace","start":` + itoa(target) + `,"end":` + itoa(target) + `}`
		require.Nil(t, s.Apply(surfaceEvent(n+k, "tool/result", op, target)))
	}
	cited := make([]int64, n/2)
	for k := range cited {
		cited[k] = int64(k)
	}
	require.Nil(t, s.Apply(surfaceEvent(2*n, "user/message", `{"op":"replace","start":0,"end":99999}`, cited...)))
	assert.Equal(t, n/2+1, s.Len())
	assert.Len(t, s.Shadowed(), n/2+5_000)
	assert.Equal(t, int64(2*n), s.Current()[0])
}

func itoa(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}
