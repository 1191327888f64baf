package dsh_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/logbook/logbook/archive/dsh"
)

// FuzzDecodeLine feeds arbitrary storage lines to the record decoder: it must never
// panic, and an accepted line must expand to events with consistent seqs.
func FuzzDecodeLine(f *testing.F) {
	for _, s := range []string{
		`{"type":"turn/start","seq":0,"time":1,"data":{"turn":1}}`,
		`{"type":"text-chunks","seq0":3,"time0":10,"data":{"turn":1,"step":1,"index":0,"dt":[1,-2],"texts":["a","b","c"]}}`,
		`{"type":"tool-call-chunks","seq0":3,"time0":10,"data":{"turn":1,"step":1,"index":1,"id":"c","name":"bash","dt":[0],"args":["{","}"]}}`,
		`{"type":"assistant/message","seq":20,"time":5,"data":{},"sourceEventSeqs":[[3,7],9,[11,12]],"surfaceOp":"append"}`,
		`{"type":"user/message","seq":9,"time":5,"data":{},"sourceEventSeqs":[1],"surfaceOp":{"op":"replace","start":1,"end":2}}`,
		`{"type":"x","seq":1e3,"time":-0,"data":null,"ignorable":true}`,
		`{"type":"reasoning-chunks","seq0":9007199254740991,"time0":0,"data":{"turn":1,"step":1,"index":0,"dt":[],"texts":["a"]}}`,
		`[1,2]`, `{}`, `{"type":"tool/result","seq":5,"time":1,"data":{},"sourceEventSeqs":[[0,9007199254740991]]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var d dsh.LineDecoder
		rec, p := d.Decode(line, 2)
		if p != nil {
			if rec != nil || p.Message == "" || p.Kind == "" {
				t.Fatalf("problem without a clear message: %+v", p)
			}
			return
		}
		if len(rec.Events) == 0 {
			t.Fatal("accepted line without events")
		}
		for i, ev := range rec.Events {
			if ev.Seq != rec.Events[0].Seq+int64(i) {
				t.Fatalf("member %d has seq %d", i, ev.Seq)
			}
			for _, s := range ev.SourceEventSeqs {
				if s >= ev.Seq || s < 0 {
					t.Fatalf("source seq %d not earlier than %d", s, ev.Seq)
				}
			}
		}
	})
}

// FuzzReader reads arbitrary files, plain and zstd: it must never panic, always end
// with a verdict, and never return more records than lines.
func FuzzReader(f *testing.F) {
	f.Add([]byte("{\"type\":\"session\",\"version\":0,\"id\":\"s\",\"createdAt\":1,\"delegationDepth\":0}\n{\"type\":\"turn/start\",\"seq\":0,\"time\":1,\"data\":{\"turn\":1}}\n"), false)
	f.Add([]byte{0x28, 0xb5, 0x2f, 0xfd, 0x24, 0x00, 0x01, 0x00, 0x00}, true)
	f.Fuzz(func(t *testing.T, data []byte, compressed bool) {
		r := dsh.NewReader(bytes.NewReader(data), compressed, dsh.Options{MaxFrameBytes: 1 << 20})
		defer r.Close()
		n := 0
		for {
			_, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("non-EOF error from an in-memory reader: %v", err)
			}
			n++
			if n > len(data) {
				t.Fatal("more records than bytes")
			}
		}
		res := r.Result()
		if res.Verdict == "" || (res.Verdict != dsh.VerdictOK && res.Problem == nil) {
			t.Fatalf("verdict %q without a problem", res.Verdict)
		}
	})
}
