package dshgen

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/logbook/logbook/archive/dsh"
)

// Case is one generated input file and the verdict a dsh V0 decoder must reach.
// Verdict and Kind are string values of dsh.Verdict and dsh.Kind ("" Kind for valid
// files). Line is the 1-based logical line of the reported problem (header = 1), 0 when
// not tied to a line, and -1 when the line is not specified (container damage).
type Case struct {
	Name       string
	Compressed bool
	Data       []byte
	Verdict    string
	Kind       string
	Line       int64
}

// malTime is the time written on hand-made malformed records.
const malTime = "1786901900000"

// mal builds cases around one small valid base log.
type mal struct {
	base   *Log
	header []byte
	lines  [][]byte // records, no header
	ends   []int    // batch ends
	midIdx int      // a single-event record before the last turn/end
	midSeq int64
	n      int64 // events in base
	cases  []Case
}

// malBase is the small log every malformation starts from: a preamble and three
// completed turns, ending with turn/end.
func malBase() *Log {
	s := New(Options{Seed: 7, ID: "session-malformed", Cwd: "/home/u/proj", StepsPerTurn: 2,
		ToolCallsPerStep: 1, ChunkTokens: 10, ToolResultBytes: 80, BatchLines: 6,
		Families: FamilyTools | FamilySplitRuns | FamilyNegativeDT})
	s.Preamble()
	s.playTurn(actTitles|actInject, EndCompleted)
	s.playTurn(actApproveOK, EndCompleted)
	s.playTurn(0, EndCompleted)
	return s.Log()
}

// Malformations returns the catalogue of malformed (and valid-but-unusual) dsh V0
// files with their expected verdicts: container damage, header errors, malformed
// records, sequence breaks and torn tails, record-level problems in both a committed
// form (a later turn/end exists: corrupt) and a tail form (recovered).
func Malformations() []Case {
	base := malBase()
	m := &mal{base: base, header: base.m.header, lines: base.m.lines, ends: base.m.batchEnds, n: base.events, midIdx: -1}
	for i, l := range m.lines {
		if bytes.HasPrefix(l, []byte(`{"type":"step/end"`)) && base.m.lineSeq[i] >= 20 {
			m.midIdx, m.midSeq = i, base.m.lineSeq[i]
			break
		}
	}
	if m.midIdx < 0 || !bytes.HasPrefix(m.lines[len(m.lines)-1], []byte(`{"type":"turn/end"`)) {
		panic("dshgen: malformation base log has an unexpected shape")
	}
	m.valid()
	m.headerCases()
	m.recordCases()
	m.seqCases()
	m.containerCases()
	return m.cases
}

// add appends a case.
func (m *mal) add(name string, compressed bool, data []byte, v dsh.Verdict, k dsh.Kind, line int64) {
	m.cases = append(m.cases, Case{Name: name, Compressed: compressed, Data: data, Verdict: string(v), Kind: string(k), Line: line})
}

// plain joins a header and records into JSONL bytes (every line '\n'-terminated).
func plain(header []byte, lines [][]byte) []byte {
	var b bytes.Buffer
	b.Write(header)
	b.WriteByte('\n')
	for _, l := range lines {
		b.Write(l)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// with returns a copy of lines with lines[i] replaced by l.
func with(lines [][]byte, i int, l []byte) [][]byte {
	out := append([][]byte(nil), lines...)
	out[i] = l
	return out
}

// plus returns a copy of lines with more lines appended.
func plus(lines [][]byte, more ...[]byte) [][]byte {
	return append(append([][]byte(nil), lines...), more...)
}

// both adds the committed (corrupt) and tail (recovered) forms of a record problem.
func (m *mal) both(name string, k dsh.Kind, bad func(seq int64) string) {
	m.add(name+"/committed", false, plain(m.header, with(m.lines, m.midIdx, []byte(bad(m.midSeq)))),
		dsh.VerdictCorrupt, k, int64(m.midIdx)+2)
	m.add(name+"/tail", false, plain(m.header, plus(m.lines, []byte(bad(m.n)))),
		dsh.VerdictRecovered, k, int64(len(m.lines))+2)
}

// ev renders an event line with seq S.
func ev(typ string, seq int64, data string, extra string) string {
	return `{"type":"` + typ + `","seq":` + strconv.FormatInt(seq, 10) + `,"time":` + malTime +
		`,"data":` + data + extra + `}`
}

// userMsg data used by hand-made surface events.
const malUserData = `{"content":[{"type":"text","text":"hi 你好 😀"}],"source":{"kind":"user"},"role":"user","id":"u-mal"}`

// toolResultData is tool/result data for hand-made records.
const malToolData = `{"turn":1,"step":1,"message":{"source":{"kind":"tool","callId":"call_x"},"content":[{"type":"tool-result","toolCallId":"call_x","content":[{"type":"text","text":"ok"}],"isError":false}],"role":"user","id":"t-mal"}}`

// userWith renders a user/message whose envelope ends with extra.
func userWith(extra string) func(int64) string {
	return func(seq int64) string { return ev("user/message", seq, malUserData, extra) }
}

// valid adds files a decoder must accept with verdict ok.
func (m *mal) valid() {
	ok := func(name string, compressed bool, data []byte) { m.add(name, compressed, data, dsh.VerdictOK, "", 0) }
	ok("ok/base", false, m.base.JSONL())
	ok("ok/base-zstd", true, m.base.Zstd())
	// Extra turn wrapping hand-made but valid records.
	turnWith := func(recs ...func(seq int64) string) [][]byte {
		seq := m.n
		next := func() int64 { seq++; return seq - 1 }
		out := plus(m.lines, []byte(ev("turn/start", next(), `{"turn":3}`, "")),
			[]byte(ev("step/start", next(), `{"turn":3,"step":1}`, "")))
		for _, r := range recs {
			line := r(seq)
			out = append(out, []byte(line))
			if bytes.HasPrefix([]byte(line), []byte(`{"type":"text-chunks"`)) {
				seq += 3
			} else {
				seq++
			}
		}
		return plus(out, []byte(ev("step/end", next(), `{"turn":3,"step":1}`, "")),
			[]byte(ev("turn/end", next(), `{"turn":3,"reason":{"kind":"completed"}}`, "")))
	}
	asst := func(src string) func(int64) string {
		return func(seq int64) string {
			return ev("assistant/message", seq, `{"turn":3,"step":1,"message":{"role":"assistant","content":[{"type":"text","text":"x"}],"source":{"kind":"model","provider":"p","model":"m"},"id":"a-mal"}}`,
				`,"sourceEventSeqs":`+src+`,"surfaceOp":"append"`)
		}
	}
	row := func(seq int64) string {
		return `{"type":"text-chunks","seq0":` + strconv.FormatInt(seq, 10) + `,"time0":` + malTime +
			`,"data":{"turn":3,"step":1,"index":0,"dt":[-5,3],"texts":["a","😀","c"]}}`
	}
	ok("ok/negative-dt", false, plain(m.header, turnWith(row)))
	ok("ok/range-single-pair", false, plain(m.header, turnWith(asst("[[1,1]]"))))
	ok("ok/range-two-pair", false, plain(m.header, turnWith(asst("[[10,11]]"))))
	ok("ok/flat-consecutive", false, plain(m.header, turnWith(asst("[1,2,3]"))))
	ok("ok/flat-unsorted", false, plain(m.header, turnWith(asst("[3,2]"))))
	ok("ok/empty-sources-assistant", false, plain(m.header, turnWith(asst("[]"))))
	ok("ok/mixed-ranges", false, plain(m.header, turnWith(asst("[0,[2,4],7,[9,12]]"))))
	ok("ok/unknown-ignorable", false, plain(m.header, turnWith(func(seq int64) string {
		return ev("x-vendor/telemetry", seq, `{"note":"opaque"}`, `,"ignorable":true`)
	})))
	ok("ok/ignorable-true-known-type", false, plain(m.header, turnWith(func(seq int64) string {
		return ev("plan/mode", seq, `{"active":true}`, `,"ignorable":true`)
	})))
	ok("ok/crlf", false, bytes.ReplaceAll(m.base.JSONL(), []byte("\n"), []byte("\r\n")))
	hdr := func(fields string) []byte {
		return []byte(`{"type":"session","version":0,"id":"session-malformed","createdAt":1786901809409` + fields + `}`)
	}
	ok("ok/header-no-cwd", false, plain(hdr(`,"delegationDepth":0`), m.lines))
	ok("ok/header-windows-cwd", false, plain(hdr(`,"cwd":"G:\\dsh客户端","delegationDepth":0,"agentPreset":"standard"`), m.lines))
	ok("ok/seed-length-zero", false, plain(hdr(`,"cwd":"/home/u/proj","seedLength":0,"delegationDepth":0`), m.lines))
	ok("ok/seed-length-all", false, plain(hdr(`,"cwd":"/home/u/proj","parentSession":"session-p","seedLength":`+
		strconv.FormatInt(m.n, 10)+`,"delegationDepth":0`), m.lines))
	ok("ok/subagent-header", false, plain(hdr(`,"cwd":"/home/u/proj","parentSession":"session-p","origin":"subagent","delegationDepth":1`), m.lines))
	if fork, err := Fork(m.base, m.n/2, Options{Seed: 8, Turns: 1, Families: FamilyTools}); err == nil {
		ok("ok/fork", false, fork.JSONL())
		ok("ok/fork-zstd", true, fork.Zstd())
	} else {
		panic(fmt.Sprintf("dshgen: malformation fork: %v", err))
	}
	ok("ok/subagent-zstd", true, SubagentOf(m.base, Options{Seed: 9, Turns: 1, Families: FamilyTools}).Zstd())
	huge := Generate(Options{Seed: 10, Cwd: "/home/u/proj", Turns: 1, HugeLine: true, Families: FamilyTools | FamilyApprovals})
	ok("ok/huge-line-zstd", true, huge.Zstd())
}
