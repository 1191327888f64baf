package dshgen

import (
	"strconv"
	"strings"

	"github.com/logbook/logbook/archive/dsh"
)

// headerCases adds header-line problems (all on line 1).
func (m *mal) headerCases() {
	const rest = `"id":"session-malformed","createdAt":1786901809409,"cwd":"/home/u/proj","delegationDepth":0`
	bad := func(name, header string) {
		m.add("header/"+name, false, plain([]byte(header), m.lines), dsh.VerdictCorrupt, dsh.KindBadHeader, 1)
	}
	unsupported := func(name, header string) {
		m.add("header/"+name, false, plain([]byte(header), m.lines), dsh.VerdictUnsupported, dsh.KindUnsupportedVersion, 1)
	}
	bad("not-json", `{"type":"session","version":0,`)
	bad("array", `["session",0]`)
	bad("string", `"session"`)
	bad("null", `null`)
	bad("type-event", `{"type":"event","version":0,`+rest+`}`)
	bad("type-missing", `{"version":0,`+rest+`}`)
	unsupported("version-1", `{"type":"session","version":1,`+rest+`}`)
	unsupported("version-2", `{"type":"session","version":2,`+rest+`}`)
	unsupported("version-1-otherwise-invalid", `{"type":"session","version":1,"id":5,"extra":true}`)
	bad("version-string", `{"type":"session","version":"0",`+rest+`}`)
	bad("version-missing", `{"type":"session",`+rest+`}`)
	bad("version-null", `{"type":"session","version":null,`+rest+`}`)
	fields := map[string]string{
		"id": `"session-malformed"`, "createdAt": "1786901809409", "cwd": `"/home/u/proj"`, "delegationDepth": "0",
	}
	order := []string{"id", "createdAt", "cwd", "delegationDepth"}
	build := func(override map[string]string, extra string) string {
		var sb strings.Builder
		sb.WriteString(`{"type":"session","version":0`)
		for _, k := range order {
			v, ok := override[k]
			if !ok {
				v = fields[k]
			}
			if v == "-" {
				continue // missing
			}
			sb.WriteString(`,"` + k + `":` + v)
		}
		return sb.String() + extra + "}"
	}
	bad("missing-id", build(map[string]string{"id": "-"}, ""))
	bad("missing-createdAt", build(map[string]string{"createdAt": "-"}, ""))
	bad("missing-delegationDepth", build(map[string]string{"delegationDepth": "-"}, ""))
	bad("extra-key", build(nil, `,"title":"x"`))
	bad("retired-sandboxMode", build(nil, `,"sandboxMode":"workspace-write"`))
	bad("retired-approvalPolicy", build(nil, `,"approvalPolicy":"ask"`))
	bad("id-number", build(map[string]string{"id": "5"}, ""))
	bad("cwd-number", build(map[string]string{"cwd": "5"}, ""))
	bad("cwd-null", build(map[string]string{"cwd": "null"}, ""))
	bad("createdAt-string", build(map[string]string{"createdAt": `"1786901809409"`}, ""))
	bad("createdAt-negative", build(map[string]string{"createdAt": "-1"}, ""))
	bad("createdAt-negative-zero", build(map[string]string{"createdAt": "-0"}, ""))
	bad("createdAt-fraction", build(map[string]string{"createdAt": "1786901809409.5"}, ""))
	bad("createdAt-unsafe", build(map[string]string{"createdAt": "9007199254740992"}, ""))
	bad("createdAt-exponent-unsafe", build(map[string]string{"createdAt": "1e16"}, ""))
	bad("delegationDepth-negative", build(map[string]string{"delegationDepth": "-1"}, ""))
	bad("delegationDepth-fraction", build(map[string]string{"delegationDepth": "0.5"}, ""))
	bad("delegationDepth-string", build(map[string]string{"delegationDepth": `"0"`}, ""))
	bad("parentSession-number", build(nil, `,"parentSession":7`))
	bad("seedLength-negative", build(nil, `,"seedLength":-1`))
	bad("seedLength-negative-zero", build(nil, `,"seedLength":-0`))
	bad("seedLength-string", build(nil, `,"seedLength":"3"`))
	bad("seedLength-unsafe", build(nil, `,"seedLength":9007199254740993`))
	bad("origin-parent", build(nil, `,"origin":"parent"`))
	bad("origin-number", build(nil, `,"origin":1`))
	bad("agentPreset-bool", build(nil, `,"agentPreset":true`))
	m.add("header/seed-length-exceeds-events", false,
		plain([]byte(build(nil, `,"parentSession":"session-p","seedLength":`+strconv.FormatInt(m.n+1, 10))), m.lines),
		dsh.VerdictCorrupt, dsh.KindSeedLength, 1)
	m.add("header/only-line-without-newline", false, m.header, dsh.VerdictCorrupt, dsh.KindBadHeader, 1)
	m.add("header/torn", false, m.header[:len(m.header)/2], dsh.VerdictCorrupt, dsh.KindBadHeader, 1)
	m.add("container/empty-file", false, nil, dsh.VerdictCorrupt, dsh.KindEmptyFile, 0)
}

// recordCases adds storage-record problems in committed and tail forms.
func (m *mal) recordCases() {
	lit := func(s string) func(int64) string { return func(int64) string { return s } }
	m.both("json/truncated", dsh.KindBadJSON, func(seq int64) string {
		return `{"type":"plan/mode","seq":` + strconv.FormatInt(seq, 10) + `,"time":`
	})
	m.both("json/garbage", dsh.KindBadJSON, lit("not json at all"))
	m.both("json/empty-line", dsh.KindBadJSON, lit(""))
	m.both("json/trailing-garbage", dsh.KindBadJSON, func(seq int64) string {
		return ev("plan/mode", seq, `{"active":true}`, "") + " x"
	})
	m.both("record/array", dsh.KindBadJSON, lit(`[1,2,3]`))
	m.both("record/null", dsh.KindBadJSON, lit(`null`))
	m.both("record/number", dsh.KindBadJSON, lit(`42`))

	row := func(tag, data string) func(int64) string {
		return func(seq int64) string {
			return `{"type":"` + tag + `","seq0":` + strconv.FormatInt(seq, 10) + `,"time0":` + malTime + `,"data":` + data + `}`
		}
	}
	const coords = `"turn":1,"step":1,"index":0,`
	prow := func(name, tag, data string) { m.both("packed-row/"+name, dsh.KindMalformedPackedRow, row(tag, data)) }
	prow("extra-data-key", "text-chunks", `{`+coords+`"dt":[1,2],"texts":["a","b","c"],"extra":1}`)
	prow("missing-dt", "text-chunks", `{`+coords+`"texts":["a","b","c"]}`)
	prow("missing-texts", "reasoning-chunks", `{`+coords+`"dt":[1,2]}`)
	prow("empty-texts", "text-chunks", `{`+coords+`"dt":[],"texts":[]}`)
	prow("dt-too-short", "text-chunks", `{`+coords+`"dt":[1],"texts":["a","b","c"]}`)
	prow("dt-too-long", "reasoning-chunks", `{`+coords+`"dt":[1,2,3],"texts":["a","b","c"]}`)
	prow("dt-fraction", "text-chunks", `{`+coords+`"dt":[1.5,2],"texts":["a","b","c"]}`)
	prow("dt-string", "text-chunks", `{`+coords+`"dt":["1",2],"texts":["a","b","c"]}`)
	prow("texts-non-string", "text-chunks", `{`+coords+`"dt":[1,2],"texts":[1,"b","c"]}`)
	prow("turn-fraction", "text-chunks", `{"turn":1.5,"step":1,"index":0,"dt":[1,2],"texts":["a","b","c"]}`)
	prow("index-negative", "text-chunks", `{"turn":1,"step":1,"index":-1,"dt":[1,2],"texts":["a","b","c"]}`)
	prow("tool-empty-id", "tool-call-chunks", `{`+coords+`"dt":[1,2],"id":"","name":"read","args":["{","}",""]}`)
	prow("tool-missing-id", "tool-call-chunks", `{`+coords+`"dt":[1,2],"name":"read","args":["{","}",""]}`)
	prow("tool-name-not-string", "tool-call-chunks", `{`+coords+`"dt":[1,2],"id":"call_1","name":5,"args":["{","}",""]}`)
	prow("tool-with-texts", "tool-call-chunks", `{`+coords+`"dt":[1,2],"id":"call_1","texts":["a","b","c"]}`)
	good := `{` + coords + `"dt":[1,2],"texts":["a","b","c"]}`
	m.both("packed-row/extra-key", dsh.KindMalformedPackedRow, func(seq int64) string {
		return strings.TrimSuffix(row("text-chunks", good)(seq), "}") + `,"ignorable":true}`
	})
	m.both("packed-row/missing-data", dsh.KindMalformedPackedRow, func(seq int64) string {
		return `{"type":"text-chunks","seq0":` + strconv.FormatInt(seq, 10) + `,"time0":` + malTime + `}`
	})
	m.both("packed-row/time0-unsafe", dsh.KindMalformedPackedRow, func(seq int64) string {
		return `{"type":"text-chunks","seq0":` + strconv.FormatInt(seq, 10) + `,"time0":9007199254740992,"data":` + good + `}`
	})
	m.both("packed-row/member-time-unsafe", dsh.KindMalformedPackedRow, func(seq int64) string {
		return `{"type":"text-chunks","seq0":` + strconv.FormatInt(seq, 10) + `,"time0":9007199254740990,"data":{` +
			coords + `"dt":[1,5],"texts":["a","b","c"]}}`
	})
	m.both("packed-row/seq0-fraction", dsh.KindMalformedPackedRow, func(seq int64) string {
		return `{"type":"text-chunks","seq0":` + strconv.FormatInt(seq, 10) + `.5,"time0":` + malTime + `,"data":` + good + `}`
	})
	m.both("packed-row/seq0-negative", dsh.KindMalformedPackedRow, func(int64) string {
		return `{"type":"text-chunks","seq0":-1,"time0":` + malTime + `,"data":` + good + `}`
	})
	m.both("packed-row/seq0-missing", dsh.KindMalformedPackedRow, lit(`{"type":"text-chunks","time0":`+malTime+`,"data":`+good+`}`))

	event := func(name, line string) {
		m.both("event/"+name, dsh.KindBadEvent, func(seq int64) string {
			return strings.ReplaceAll(line, "SEQ", strconv.FormatInt(seq, 10))
		})
	}
	event("missing-seq", `{"type":"plan/mode","time":`+malTime+`,"data":{"active":true}}`)
	event("seq-negative", `{"type":"plan/mode","seq":-1,"time":`+malTime+`,"data":{"active":true}}`)
	event("seq-fraction", `{"type":"plan/mode","seq":SEQ.5,"time":`+malTime+`,"data":{"active":true}}`)
	event("seq-string", `{"type":"plan/mode","seq":"SEQ","time":`+malTime+`,"data":{"active":true}}`)
	event("missing-time", `{"type":"plan/mode","seq":SEQ,"data":{"active":true}}`)
	event("time-fraction", `{"type":"plan/mode","seq":SEQ,"time":1786901900000.5,"data":{"active":true}}`)
	event("time-string", `{"type":"plan/mode","seq":SEQ,"time":"1786901900000","data":{"active":true}}`)
	event("time-unsafe", `{"type":"plan/mode","seq":SEQ,"time":9007199254740992,"data":{"active":true}}`)
	event("missing-type", `{"seq":SEQ,"time":`+malTime+`,"data":{"active":true}}`)
	event("type-not-string", `{"type":7,"seq":SEQ,"time":`+malTime+`,"data":{"active":true}}`)
	event("missing-data", `{"type":"plan/mode","seq":SEQ,"time":`+malTime+`}`)
	event("ignorable-false", `{"type":"plan/mode","seq":SEQ,"time":`+malTime+`,"data":{"active":true},"ignorable":false}`)
	event("ignorable-string", `{"type":"plan/mode","seq":SEQ,"time":`+malTime+`,"data":{"active":true},"ignorable":"true"}`)

	toolCall := `{"turn":1,"step":1,"callId":"call_x","name":"read","arguments":"{}"}`
	op := func(name, extra string) { m.both("surface-op/"+name, dsh.KindBadSurfaceOp, userWith(extra)) }
	m.both("surface-op/on-log-only-type", dsh.KindBadSurfaceOp, func(seq int64) string {
		return ev("tool/call", seq, toolCall, `,"surfaceOp":"append"`)
	})
	op("unknown-string", `,"surfaceOp":"prepend"`)
	op("number", `,"surfaceOp":5`)
	op("replace-missing-end", `,"sourceEventSeqs":[1],"surfaceOp":{"op":"replace","start":1}`)
	op("replace-extra-key", `,"sourceEventSeqs":[1],"surfaceOp":{"op":"replace","start":1,"end":1,"x":0}`)
	op("replace-fraction", `,"sourceEventSeqs":[1],"surfaceOp":{"op":"replace","start":1.5,"end":2}`)
	op("unknown-op", `,"sourceEventSeqs":[1],"surfaceOp":{"op":"insert","start":1,"end":1}`)

	src := func(name, list string) {
		m.both("source-seqs/"+name, dsh.KindBadSourceSeqs, func(seq int64) string {
			l := strings.ReplaceAll(list, "SEQ", strconv.FormatInt(seq, 10))
			return ev("user/message", seq, malUserData, `,"sourceEventSeqs":`+l+`,"surfaceOp":"append"`)
		})
	}
	src("number", `5`)
	src("object", `{"0":1}`)
	src("member-negative", `[-1]`)
	src("member-negative-zero", `[-0]`)
	src("member-fraction", `[1.5]`)
	src("member-string", `["1"]`)
	src("member-null", `[null]`)
	src("member-unsafe", `[9007199254740992]`)
	src("pair-triple", `[[1,2,3]]`)
	src("pair-single", `[[1]]`)
	src("pair-fraction", `[[1,2.5]]`)
	src("pair-negative", `[[-1,2]]`)
	src("pair-end-before-start", `[[5,3]]`)
	src("too-many-range", `[[0,SEQ]]`)
	src("too-many-after-flat", `[0,[1,SEQ]]`)
	src("ranges-not-increasing", `[[5,7],6]`)
	src("ranges-overlap", `[[5,7],[7,9]]`)
	src("member-not-earlier", `[SEQ]`)
	src("duplicate-member", `[3,3]`)
	src("empty-on-user-message", `[]`)
	m.both("source-seqs/too-many-flat", dsh.KindBadSourceSeqs, func(seq int64) string {
		var sb strings.Builder
		for i := int64(0); i <= seq; i++ {
			if i > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(strconv.FormatInt(i, 10))
		}
		return ev("user/message", seq, malUserData, `,"sourceEventSeqs":[`+sb.String()+`],"surfaceOp":"append"`)
	})
	m.both("source-seqs/empty-on-tool-result", dsh.KindBadSourceSeqs, func(seq int64) string {
		return ev("tool/result", seq, malToolData, `,"sourceEventSeqs":[],"surfaceOp":"append"`)
	})
	m.both("source-seqs/on-log-only-type", dsh.KindBadSourceSeqs, func(seq int64) string {
		return ev("tool/call", seq, toolCall, `,"sourceEventSeqs":[1]`)
	})
}

// seqCases adds sequence breaks.
func (m *mal) seqCases() {
	shift := func(d int64) func(int64) string {
		return func(seq int64) string { return ev("plan/mode", seq+d, `{"active":true}`, "") }
	}
	m.both("seq/forward-gap", dsh.KindSeqGap, shift(1))
	m.both("seq/duplicate", dsh.KindSeqGap, shift(-1))
	m.both("seq/backward", dsh.KindSeqGap, shift(-5))
	m.both("seq/packed-row-overlap", dsh.KindSeqGap, func(seq int64) string {
		return `{"type":"text-chunks","seq0":` + strconv.FormatInt(seq-1, 10) + `,"time0":` + malTime +
			`,"data":{"turn":1,"step":1,"index":0,"dt":[1,2],"texts":["a","b","c"]}}`
	})
	m.add("seq/first-record-not-zero", false, plain(m.header, with(m.lines, 0, []byte(shift(1)(0)))),
		dsh.VerdictCorrupt, dsh.KindSeqGap, 2)
	// A final line without '\n' and nothing else wrong is a torn tail.
	full := plain(m.header, m.lines)
	m.add("torn-tail/last-line-no-newline", false, full[:len(full)-1], dsh.VerdictRecovered, dsh.KindTornTail, int64(len(m.lines))+1)
	extra := ev("plan/mode", m.n, `{"active":true}`, "")
	m.add("torn-tail/partial-line", false, append(full, extra[:len(extra)/2]...), dsh.VerdictRecovered, dsh.KindTornTail, int64(len(m.lines))+2)
	m.add("torn-tail/complete-json-no-newline", false, append(full, extra...), dsh.VerdictRecovered, dsh.KindTornTail, int64(len(m.lines))+2)
}
