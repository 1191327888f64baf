package dsh_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/logbook/logbook/archive/dsh"
	"github.com/logbook/logbook/archive/dshgen"
)

// readAll runs the reader over a whole file and returns its result.
func readAll(data []byte, compressed bool, opts dsh.Options) dsh.Result {
	r := dsh.NewReader(bytes.NewReader(data), compressed, opts)
	defer r.Close()
	for {
		if _, err := r.Next(); err == io.EOF {
			break
		} else if err != nil {
			return dsh.Result{Verdict: "io-error"}
		}
	}
	return r.Result()
}

// TestMalformations runs every case of the generator's malformation catalogue (each
// rule of the format note's §6 checklist, plain and zstd, committed and tail forms)
// through the reader and checks the verdict, the problem kind and its line.
func TestMalformations(t *testing.T) {
	cases := dshgen.Malformations()
	assert.Greater(t, len(cases), 200)
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			res := readAll(c.Data, c.Compressed, dsh.Options{})
			assert.Equal(t, c.Verdict, string(res.Verdict), "problem: %+v", res.Problem)
			if c.Verdict == string(dsh.VerdictOK) {
				assert.Nil(t, res.Problem)
				return
			}
			if !assert.NotNil(t, res.Problem) {
				return
			}
			assert.Equal(t, c.Kind, string(res.Problem.Kind), "message: %s", res.Problem.Message)
			if c.Line >= 0 {
				assert.Equal(t, c.Line, res.Problem.Line, "message: %s", res.Problem.Message)
			}
			assert.NotEmpty(t, res.Problem.Message)
		})
	}
}

func TestStrictRefusesUnknownEvents(t *testing.T) {
	log := []byte(`{"type":"session","version":0,"id":"s","createdAt":1,"delegationDepth":0}
{"type":"turn/start","seq":0,"time":1,"data":{"turn":1}}
{"type":"future/thing","seq":1,"time":2,"data":{}}
{"type":"future/other","seq":2,"time":3,"data":{},"ignorable":true}
`)
	res := readAll(log, false, dsh.Options{})
	assert.Equal(t, dsh.VerdictOK, res.Verdict, "recoverable mode archives unknown events (the checker warns)")
	res = readAll(log, false, dsh.Options{Strict: true})
	assert.Equal(t, dsh.VerdictCorrupt, res.Verdict)
	if assert.NotNil(t, res.Problem) {
		assert.Equal(t, dsh.KindUnknownEvent, res.Problem.Kind)
		assert.EqualValues(t, 3, res.Problem.Line)
	}
}
