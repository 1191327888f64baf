package dsh_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/logbook/logbook/archive/dsh"
	"github.com/logbook/logbook/archive/dshgen"
)

// samePackedDecoding fails t unless the fast path either declined line or decoded it
// exactly as the general path does.
func samePackedDecoding(t *testing.T, line []byte) (fast bool) {
	t.Helper()
	f, g, p := dsh.DecodeBothWays(line, 7)
	if f == nil {
		return false
	}
	if p != nil {
		t.Fatalf("fast path accepted a line the general path refuses (%s): %s", p.Message, line)
	}
	if !assert.Equal(t, g, f, "%s", line) {
		t.FailNow()
	}
	return true
}

// TestPackedFastPathRows holds the fast path to the general one on packed rows at
// the edges of what it accepts.
func TestPackedFastPathRows(t *testing.T) {
	ok := []string{
		`{"type":"text-chunks","seq0":3,"time0":10,"data":{"turn":1,"step":1,"index":0,"dt":[1,-2],"texts":["a","b","c"]}}`,
		`{"type":"reasoning-chunks","seq0":0,"time0":-0,"data":{"turn":0,"step":0,"index":0,"dt":[],"texts":["\u00e9\n\"\\"]}}`,
		`{"type":"tool-call-chunks","seq0":3,"time0":10,"data":{"turn":1,"step":1,"index":1,"dt":[0],"id":"c","name":"bash","args":["{","}"]}}`,
		`{"type":"tool-call-chunks","seq0":3,"time0":10,"data":{"turn":1,"step":1,"index":1,"dt":[0],"id":"c\u0031","args":["{",""]}}`,
		`{"type":"text-chunks","seq0":999999999999999,"time0":-999999999999999,"data":{"turn":1,"step":1,"index":0,"dt":[0],"texts":["a","b"]}}`,
	}
	for _, l := range ok {
		assert.True(t, samePackedDecoding(t, []byte(l)), "fast path declined %s", l)
	}
	declined := []string{
		`{"type":"text-chunks","seq0":-0,"time0":10,"data":{"turn":1,"step":1,"index":0,"dt":[],"texts":["a"]}}`,
		`{"type":"text-chunks","seq0":01,"time0":10,"data":{"turn":1,"step":1,"index":0,"dt":[],"texts":["a"]}}`,
		`{"type":"text-chunks","seq0":1,"time0":1.5,"data":{"turn":1,"step":1,"index":0,"dt":[],"texts":["a"]}}`,
		`{"type":"text-chunks","seq0":1,"time0":1e3,"data":{"turn":1,"step":1,"index":0,"dt":[],"texts":["a"]}}`,
		`{"type":"text-chunks","seq0":9007199254740991,"time0":0,"data":{"turn":1,"step":1,"index":0,"dt":[],"texts":["a"]}}`,
		`{"type":"text-chunks","seq0":1,"time0":999999999999999,"data":{"turn":1,"step":1,"index":0,"dt":[999999999999999,999999999999999,999999999999999,999999999999999,999999999999999,999999999999999,999999999999999,999999999999999,999999999999999,999999999999999],"texts":["a","b","c","d","e","f","g","h","i","j","k"]}}`,
		`{"type":"text-chunks","seq0":1,"time0":1,"data":{"turn":1,"step":1,"index":0,"dt":[1],"texts":["a"]}}`,
		`{"type":"text-chunks","seq0":1,"time0":1,"data":{"turn":1,"step":1,"index":0,"dt":[],"texts":[]}}`,
		`{"type":"text-chunks","seq0":1,"time0":1,"data":{"turn":1,"step":1,"index":0,"dt":[],"texts":["\x"]}}`,
		"{\"type\":\"text-chunks\",\"seq0\":1,\"time0\":1,\"data\":{\"turn\":1,\"step\":1,\"index\":0,\"dt\":[],\"texts\":[\"a\tb\"]}}",
		`{"type":"text-chunks","seq0":1,"time0":1,"data":{"turn":1,"step":1,"index":0,"dt":[],"texts":[1]}}`,
		`{"type":"text-chunks","seq0":1,"time0":1,"data":{"turn":1,"step":1,"index":0,"dt":[],"texts":["a"]}} `,
		`{"type":"text-chunks","seq0":1,"time0":1,"data":{"turn":1,"step":1,"index":0,"dt":[],"texts":["a"]},"x":1}`,
		`{"type":"text-chunks","seq0":1,"time0":1,"data":{"turn":1,"step":1,"index":0,"dt":[],"id":"c","texts":["a"]}}`,
		`{"type":"tool-call-chunks","seq0":1,"time0":1,"data":{"turn":1,"step":1,"index":0,"dt":[],"id":"","args":["a"]}}`,
		`{"type":"tool-call-chunks","seq0":1,"time0":1,"data":{"turn":1,"step":1,"index":0,"dt":[],"args":["a"]}}`,
		`{"type":"tool-call-chunks","seq0":1,"time0":1,"data":{"turn":1,"step":1,"index":0,"dt":[],"id":"c","name":null,"args":["a"]}}`,
		`{"type":"tool-call-chunks","seq0":1,"time0":1,"data":{"turn":1,"step":1,"index":0,"dt":[],"id":"c","texts":["a"]}}`,
		`{"type": "text-chunks","seq0":1,"time0":1,"data":{"turn":1,"step":1,"index":0,"dt":[],"texts":["a"]}}`,
		`{"type":"text-chunks","time0":1,"seq0":1,"data":{"turn":1,"step":1,"index":0,"dt":[],"texts":["a"]}}`,
		`{"type":"text-chunks","seq0":1,"time0":1,"data":{"turn":1,"step":1,"index":0,"dt":[],"texts":["a"]}`,
		`{"type":"text-chunks","seq0":1,"time0":1,"data":{"turn":1,"step":1,"index":0,"dt":[,],"texts":["a"]}}`,
		`{"type":"text-chunks","seq0":1,"time0":1,"data":{"turn":1,"step":1,"index":0,"dt":[],"texts":["a",]}}`,
		`{"type":"text-chunk","seq0":1,"time0":1,"data":{"turn":1,"step":1,"index":0,"dt":[],"texts":["a"]}}`,
	}
	for _, l := range declined {
		assert.False(t, samePackedDecoding(t, []byte(l)), "fast path accepted %s", l)
	}
}

// TestPackedFastPathCorpus runs every line of the real log, a generated log and the
// malformation catalogue through both paths: the fast path must take every packed
// row dsh writes and decode each exactly as the general path does.
func TestPackedFastPathCorpus(t *testing.T) {
	lines := sampleLines(t)
	packed, fast := 0, 0
	for _, l := range lines {
		if samePackedDecoding(t, l) {
			fast++
		}
		if bytes.HasPrefix(l, []byte(`{"type":"`)) && strings.Contains(string(l[:30]), `-chunks"`) {
			packed++
		}
	}
	assert.Greater(t, packed, 1000)
	assert.GreaterOrEqual(t, fast*100, packed*95, "the fast path took %d of %d packed rows", fast, packed)
}

// FuzzPackedFastPath: whatever the fast path accepts, the general path accepts and
// decodes the same way.
func FuzzPackedFastPath(f *testing.F) {
	f.Add([]byte(`{"type":"text-chunks","seq0":3,"time0":10,"data":{"turn":1,"step":1,"index":0,"dt":[1,-2],"texts":["a","b","c"]}}`))
	f.Add([]byte(`{"type":"tool-call-chunks","seq0":3,"time0":10,"data":{"turn":1,"step":1,"index":1,"dt":[0],"id":"c","name":"bash","args":["{","}"]}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		samePackedDecoding(t, line)
	})
}

// checkAll reads a file, feeding every record to a Checker, and returns the reader's
// result, the checker's findings and the records' seq spans.
func checkAll(t *testing.T, data []byte, compressed bool, opts dsh.Options) (dsh.Result, []dsh.Problem, [][2]int64) {
	t.Helper()
	r := dsh.NewReader(bytes.NewReader(data), compressed, opts)
	defer r.Close()
	var c *dsh.Checker
	var spans [][2]int64
	for {
		rec, err := r.Next()
		if err != nil {
			break
		}
		if c == nil {
			c = dsh.NewChecker(r.Result().Header)
		}
		spans = append(spans, [2]int64{rec.FirstSeq(), rec.LastSeq()})
		if rec.Row != nil {
			c.ObserveRow(rec.Row, rec.Line)
			continue
		}
		for i := range rec.Events {
			c.Observe(&rec.Events[i], rec.Line)
		}
	}
	if c == nil {
		return r.Result(), nil, spans
	}
	return r.Result(), c.Finish(), spans
}

// TestCompactRows: reading with compact packed rows gives the same verdict, spans
// and semantic findings as reading every member, on the malformation catalogue and
// generated logs of every family.
func TestCompactRows(t *testing.T) {
	type file struct {
		name       string
		data       []byte
		compressed bool
	}
	var files []file
	for _, c := range dshgen.Malformations() {
		files = append(files, file{c.Name, c.Data, c.Compressed})
	}
	// A log cut off after a packed row: its last member is the interrupted tail's event.
	files = append(files, file{"interrupted", []byte(`{"type":"session","version":0,"id":"s","createdAt":1,"delegationDepth":0}
{"type":"turn/start","seq":0,"time":1,"data":{"turn":1}}
{"type":"step/start","seq":1,"time":2,"data":{"turn":1,"step":1}}
{"type":"text-chunks","seq0":2,"time0":3,"data":{"turn":1,"step":2,"index":0,"dt":[5,-1],"texts":["a","b","c"]}}
`), false})
	for seed := uint64(1); seed <= 4; seed++ {
		log := dshgen.Generate(dshgen.Options{Seed: seed, Turns: 5, Families: dshgen.AllFamilies})
		files = append(files, file{"generated", log.JSONL(), false}, file{"generated zstd", log.Zstd(), true})
	}
	for _, f := range files {
		for _, strict := range []bool{false, true} {
			res, found, spans := checkAll(t, f.data, f.compressed, dsh.Options{Strict: strict})
			cres, cfound, cspans := checkAll(t, f.data, f.compressed, dsh.Options{Strict: strict, CompactRows: true, Detached: true})
			res.Header, cres.Header = nil, nil
			assert.Equal(t, res, cres, f.name)
			assert.Equal(t, found, cfound, f.name)
			assert.Equal(t, spans, cspans, f.name)
		}
	}
}
