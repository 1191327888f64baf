package dsh

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Checker tests: titles, source seqs, the interrupted tail, warning caps, surfaces after
// compaction, and the real corpus log.

func TestCheckerTitles(t *testing.T) {
	runCheckerCases(t, []checkerCase{
		{name: "titles citing human prompts pass", build: func(b *logBuilder) {
			b.injected()
			h := b.human("fix the build")
			b.add("session/title", `{"title":"Fix","messageSeqs":[%d],"source":{"kind":"fallback"}}`, h)
			b.add("session/title-llm-request", `{"titleProvider":"x","messageSeqs":[%d],"route":{},"system":"","messages":[],"maxTokens":10}`, h)
			b.add("session/title", `{"title":"Fix build","messageSeqs":[%d],"source":{"kind":"provider","provider":"x"}}`, h)
			b.add("session/title", `{"title":"Mine","messageSeqs":[],"source":{"kind":"user"}}`)
		}},
		{name: "title citing an injected message is reported", build: func(b *logBuilder) {
			p := b.injected()
			b.add("session/title", `{"title":"x","messageSeqs":[%d],"source":{"kind":"fallback"}}`, p)
		}, want: []Kind{KindTitle}, contains: []string{`session/title (seq 1) cites seq 0, which is not an earlier human user/message`}},
		{name: "title citing a later message is reported", build: func(b *logBuilder) {
			b.add("session/title", `{"title":"x","messageSeqs":[1],"source":{"kind":"fallback"}}`)
			b.human("later")
		}, want: []Kind{KindTitle}, contains: []string{"cites seq 1"}},
		{name: "manual title with messageSeqs is reported", build: func(b *logBuilder) {
			h := b.human("hi")
			b.add("session/title", `{"title":"x","messageSeqs":[%d],"source":{"kind":"user"}}`, h)
		}, want: []Kind{KindTitle}, contains: []string{"manual title (source user) but cites messageSeqs 0"}},
		{name: "generated title without messageSeqs is reported", build: func(b *logBuilder) {
			b.add("session/title", `{"title":"x","messageSeqs":[],"source":{"kind":"provider","provider":"x"}}`)
		}, want: []Kind{KindTitle}, contains: []string{`from source "provider" cites no messageSeqs`}},
		{name: "title request without messageSeqs is reported", build: func(b *logBuilder) {
			b.add("session/title-llm-request", `{"messageSeqs":[]}`)
		}, want: []Kind{KindTitle}, contains: []string{"session/title-llm-request (seq 0) cites no messageSeqs"}},
	})
}

func TestCheckerSourceSeqsAndInventory(t *testing.T) {
	runCheckerCases(t, []checkerCase{
		{name: "empty sourceEventSeqs on assistant/message passes", build: func(b *logBuilder) {
			b.turnStart(1)
			b.stepStart(1, 1)
			b.surface("assistant/message", `"append"`, []int64{}, `{"turn":1,"step":1,"message":{"content":[]}}`)
			b.stepEnd(1, 1)
			b.turnEnd(1)
		}},
		{name: "empty sourceEventSeqs on user/message is reported", build: func(b *logBuilder) {
			b.surface("user/message", `"append"`, []int64{}, `{"id":"u","source":{"kind":"user"}}`)
		}, want: []Kind{KindSurface}, contains: []string{"user/message (seq 0) has an empty sourceEventSeqs"}},
		{name: "duplicate citation is reported", build: func(b *logBuilder) {
			b.add("todo/write", `{}`)
			b.add("todo/write", `{}`)
			b.surface("user/message", `"append"`, []int64{1, 0, 1}, `{"id":"u","source":{"kind":"user"}}`)
		}, want: []Kind{KindSurface}, contains: []string{"cites seq 1 twice"}},
		{name: "citation of a later event is reported", build: func(b *logBuilder) {
			b.surface("user/message", `"append"`, []int64{3}, `{"id":"u","source":{"kind":"user"}}`)
		}, want: []Kind{KindSurface}, contains: []string{"cites seq 3 in sourceEventSeqs, which is not an earlier event"}},
		{name: "surface event without surfaceOp is reported", build: func(b *logBuilder) {
			b.surface("user/message", "", nil, `{"id":"u","source":{"kind":"user"}}`)
		}, want: []Kind{KindSurface}, contains: []string{"has no surfaceOp; treated as append"}},
		{name: "log-only event with sourceEventSeqs is reported", build: func(b *logBuilder) {
			b.surface("todo/write", "", []int64{}, `{}`)
		}, want: []Kind{KindSurface}, contains: []string{"todo/write (seq 0) is log-only"}},
		{name: "unknown types are reported once per type", build: func(b *logBuilder) {
			b.add("x/new", `{}`)
			b.add("x/new", `{}`)
			b.push(Event{Type: "x/soft", Data: json.RawMessage(`{}`), Ignorable: true})
		}, want: []Kind{KindUnknownEvent, KindUnknownEvent}, contains: []string{
			`unknown event type "x/new": 2 events (first at seq 0), none marked ignorable, so dsh would refuse the log`,
			`unknown event type "x/soft": 1 event (first at seq 2), all marked ignorable:true, so dsh skips them`}},
		{name: "legacy types and shapes are reported once each", build: func(b *logBuilder) {
			b.add("steering/message", `{"turn":1,"content":[],"source":{"kind":"user"}}`)
			b.add("mode/set", `{}`)
			b.add("turn/start", `{"turn":1,"trigger":{"kind":"user"}}`)
			b.add("turn/end", `{"turn":1,"reason":{"kind":"disposed"}}`)
			b.add("session/title", `{"title":"x","messageSeqs":[0],"source":{"kind":"fallback"}}`)
		}, want: []Kind{KindLegacyEvent, KindLegacyEvent, KindLegacyEvent, KindLegacyEvent}, contains: []string{
			"legacy event type steering/message", "legacy event type mode/set", "legacy turn/start.trigger",
			`legacy turn/end reason "disposed" (legacy form)`}},
	})
}

func TestCheckerInterruptedTail(t *testing.T) {
	runCheckerCases(t, []checkerCase{
		{name: "log ending after a started call reports the tail", build: func(b *logBuilder) {
			b.turnStart(1)
			b.stepStart(1, 1)
			b.assistant(1, 1, "call_X")
			b.call(1, 1, "call_X")
		}, want: []Kind{KindInterruptedTail}, contains: []string{
			`interrupted tail: the log ends after tool/call (seq 6) mid-activity: turn 1 is open (turn/start seq 0); step 1 is open (step/start seq 1); tool/call call_X "sh" (seq 6) has no tool/result`}},
		{name: "log ending after an advertised call reports the tail", build: func(b *logBuilder) {
			b.turnStart(1)
			b.stepStart(1, 1)
			b.assistant(1, 1, "c1")
		}, want: []Kind{KindInterruptedTail}, contains: []string{`tool call c1 "sh" advertised by assistant/message (seq 5) was never started`}},
		{name: "log ending between turns has no tail", build: func(b *logBuilder) {
			b.turnStart(1)
			b.turnEnd(1)
		}},
		{name: "lifetime ending mid-turn before end-seed is reported", build: func(b *logBuilder) {
			b.turnStart(1)
			b.stepStart(1, 1)
			b.add("session/end-seed", `{}`)
			b.turnStart(2)
			b.turnEnd(2)
		}, want: []Kind{KindInterruptedTail}, contains: []string{
			"an earlier process lifetime ended mid-activity before session/end-seed (seq 2) began a new one: turn 1 is open (turn/start seq 0); step 1 is open (step/start seq 1)"}},
		{name: "fork prefix ending mid-turn is reported", header: &Header{IsSeeded: true, SeedLength: 2}, build: func(b *logBuilder) {
			b.turnStart(1)
			b.stepStart(1, 1)
			b.add("session/end-seed", `{}`)
		}, want: []Kind{KindInterruptedTail}, contains: []string{
			"the inherited prefix (seedLength 2) ends mid-activity before this fork's session/end-seed (seq 2): turn 1 is open"}},
		{name: "resume marker after a finished turn passes", build: func(b *logBuilder) {
			b.turnStart(1)
			b.turnEnd(1)
			b.add("session/end-seed", `{}`)
			b.turnStart(2)
			b.turnEnd(2)
		}},
	})
}

func TestCheckerWarningCap(t *testing.T) {
	var b logBuilder
	b.turnStart(1)
	b.stepStart(1, 1)
	for k := 0; k < MaxWarningsPerKind+50; k++ {
		b.result(1, 1, fmt.Sprintf("ghost-%d", k), -1)
	}
	b.stepEnd(1, 1)
	b.turnEnd(1)
	got := b.run(unseeded)
	require.Len(t, got, MaxWarningsPerKind+1)
	last := got[len(got)-1]
	assert.Equal(t, KindUnpairedTool, last.Kind)
	assert.Equal(t, "50 more unpaired-tool findings not listed (250 in total; only the first 200 are kept)", last.Message)
	for _, p := range got[:MaxWarningsPerKind] {
		assert.Equal(t, KindUnpairedTool, p.Kind)
		assert.NotZero(t, p.Line)
	}
}

func TestCheckerProblemCoordinates(t *testing.T) {
	var b logBuilder
	b.turnStart(1)
	b.turnStart(3)
	got := b.run(unseeded)
	require.Len(t, got, 3)
	// turn/start 3 is seq 1 on line 3 (header is line 1).
	assert.Equal(t, Problem{Kind: KindTurnNesting, Line: 3, Offset: -1, Seq: 1,
		Message: "turn/start 3 (seq 1) while turn 1 (turn/start seq 0) was never ended"}, got[0])
	assert.EqualValues(t, 3, got[1].Line)
	assert.Equal(t, KindInterruptedTail, got[2].Kind)
	assert.EqualValues(t, 1, got[2].Seq)
}

func TestCheckerFinishTwice(t *testing.T) {
	var b logBuilder
	b.turnStart(1)
	c := NewChecker(nil)
	c.Observe(&b.events[0], 2)
	first := c.Finish()
	require.Len(t, first, 1)
	assert.Equal(t, first, c.Finish())
}

func TestLeadingTurnStep(t *testing.T) {
	cases := []struct {
		data       string
		turn, step int64
		ok         bool
	}{
		{`{"turn":8,"step":30,"chunk":{"type":"usage"}}`, 8, 30, true},
		{`{"turn":1,"step":2}`, 1, 2, true},
		{`{"step":2,"turn":1,"chunk":{}}`, 0, 0, false},
		{`{"turn":1.5,"step":2,"chunk":{}}`, 0, 0, false},
		{`{"turn":1,"step":2e1,"chunk":{}}`, 0, 0, false},
		{`{"turn":01,"step":2,"chunk":{}}`, 0, 0, false},
		{`{"turn":-1,"step":2,"chunk":{}}`, 0, 0, false},
		{`{ "turn":1,"step":2}`, 0, 0, false},
		{`{"turn":1,"step":2`, 0, 0, false},
	}
	for _, tc := range cases {
		name := "decoded"
		if !tc.ok {
			name = "falls back"
		}
		t.Run(name+" "+tc.data, func(t *testing.T) {
			turn, step, ok := leadingTurnStep([]byte(tc.data))
			assert.Equal(t, tc.ok, ok)
			assert.Equal(t, tc.turn, turn)
			assert.Equal(t, tc.step, step)
		})
	}
}

func TestCheckerSurfaceAfterCompaction(t *testing.T) {
	var b logBuilder
	nodes := compactionPrefix(&b)
	b.add("compaction/start", `{"compactionId":"k1","turn":null}`)
	summary(&b, "k1", nodes[0], nodes[2], nodes[:3])
	cp := checkpoint(&b, "k1", nodes[:3], nodes[0], nodes[2])
	b.add("compaction/end", `{"compactionId":"k1","turn":null}`)
	c := NewChecker(unseeded)
	for i := range b.events {
		c.Observe(&b.events[i], b.lines[i])
	}
	require.Empty(t, c.Finish())
	assert.Equal(t, []int64{cp, nodes[3]}, c.Surface().Current())
	assert.Equal(t, map[int64]int64{nodes[0]: cp, nodes[1]: cp, nodes[2]: cp}, c.Surface().Shadowed())
}

// corpusLog is the real V0 log (tests run in archive/dsh; shared/ sits next to the
// checkout).
var corpusLog = filepath.Join("..", "..", "..", "shared", "corpus", "dsh", "wzx123188-deepseekharness", "session.jsonl.zstd")

// testEnvelope is a lenient storage-record decoder for the tests, independent of the
// package's own Reader (written in parallel).
type testEnvelope struct {
	Type            string          `json:"type"`
	Seq             int64           `json:"seq"`
	Seq0            int64           `json:"seq0"`
	Time            int64           `json:"time"`
	Data            json.RawMessage `json:"data"`
	SourceEventSeqs json.RawMessage `json:"sourceEventSeqs"`
	SurfaceOp       json.RawMessage `json:"surfaceOp"`
	Ignorable       bool            `json:"ignorable"`
}

// testPacked is the data of a packed chunk row.
type testPacked struct {
	Turn, Step, Index int64
	Texts, Args       []string
	ID                string
	Name              *string
}

// testExpandSeqs expands a (possibly range-encoded) sourceEventSeqs value.
func testExpandSeqs(t *testing.T, raw json.RawMessage) []int64 {
	var items []json.RawMessage
	require.NoError(t, json.Unmarshal(raw, &items))
	out := []int64{}
	for _, it := range items {
		if it[0] == '[' {
			var pair [2]int64
			require.NoError(t, json.Unmarshal(it, &pair))
			for s := pair[0]; s <= pair[1]; s++ {
				out = append(out, s)
			}
			continue
		}
		var n int64
		require.NoError(t, json.Unmarshal(it, &n))
		out = append(out, n)
	}
	return out
}

// testRecordEvents turns one storage line into its logical events, expanding packed
// rows into assistant/chunk members.
func testRecordEvents(t *testing.T, line []byte) []Event {
	var env testEnvelope
	require.NoError(t, json.Unmarshal(line, &env))
	switch env.Type {
	case RowTextChunks, RowReasoningChunks, RowToolCallChunks:
		var p testPacked
		require.NoError(t, json.Unmarshal(env.Data, &p))
		payload, kind := p.Texts, "text-delta"
		switch env.Type {
		case RowReasoningChunks:
			kind = "reasoning-delta"
		case RowToolCallChunks:
			payload, kind = p.Args, "tool-call-delta"
		}
		evs := make([]Event, len(payload))
		for k, text := range payload {
			textJSON, _ := json.Marshal(text)
			ch := &Chunk{Kind: kind, Turn: p.Turn, Step: p.Step, Index: p.Index, TextJSON: textJSON, ID: p.ID}
			if p.Name != nil {
				ch.Name, ch.HasName = *p.Name, true
			}
			evs[k] = Event{Seq: env.Seq0 + int64(k), Type: "assistant/chunk", Member: k, Chunk: ch}
		}
		return evs
	}
	ev := Event{Seq: env.Seq, Time: env.Time, Type: env.Type, Member: -1, Data: env.Data,
		SurfaceOp: env.SurfaceOp, Ignorable: env.Ignorable}
	if env.SourceEventSeqs != nil {
		ev.HasSourceSeqs, ev.SourceSeqsRaw = true, env.SourceEventSeqs
		ev.SourceEventSeqs = testExpandSeqs(t, env.SourceEventSeqs)
	}
	return []Event{ev}
}

// testCheckLog runs a Checker over a whole decompressed log.
func testCheckLog(t *testing.T, plain []byte) (*Checker, []Problem, int) {
	sc := bufio.NewScanner(bytes.NewReader(plain))
	sc.Buffer(nil, 64<<20)
	require.True(t, sc.Scan(), "header line")
	var h Header
	require.NoError(t, json.Unmarshal(sc.Bytes(), &h))
	h.IsSeeded = bytes.Contains(sc.Bytes(), []byte(`"seedLength"`))
	c := NewChecker(&h)
	line, events := int64(1), 0
	for sc.Scan() {
		line++
		evs := testRecordEvents(t, sc.Bytes())
		for i := range evs {
			c.Observe(&evs[i], line)
			events++
		}
	}
	require.NoError(t, sc.Err())
	return c, c.Finish(), events
}

func TestCheckerRealCorpus(t *testing.T) {
	compressed, err := os.ReadFile(corpusLog)
	if os.IsNotExist(err) {
		t.Skipf("corpus log %s is absent", corpusLog)
	}
	require.NoError(t, err)
	dec, err := zstd.NewReader(nil)
	require.NoError(t, err)
	defer dec.Close()
	plain, err := dec.DecodeAll(compressed, nil)
	require.NoError(t, err)

	c, problems, events := testCheckLog(t, plain)
	require.Equal(t, 87208, events, "logical events after expanding packed rows")
	for _, p := range problems {
		t.Logf("%s line %d seq %d: %s", p.Kind, p.Line, p.Seq, p.Message)
	}

	var tail []Problem
	for _, p := range problems {
		switch p.Kind {
		case KindInterruptedTail:
			tail = append(tail, p)
		case KindSurface, KindCompaction, KindTitle:
			t.Errorf("unexpected %s problem: %s", p.Kind, p.Message)
		}
	}
	require.Len(t, tail, 1)
	require.EqualValues(t, 87207, tail[0].Seq)
	require.EqualValues(t, 5350, tail[0].Line)
	require.Contains(t, tail[0].Message, "turn 8 is open")
	require.Contains(t, tail[0].Message, "tool/call call_00_ET_Hqrphcm70Mm1jwJRsmsP7347")
	require.Contains(t, tail[0].Message, "(seq 87207) has no tool/result")
	require.Len(t, problems, 1, "the real log has nothing else to report")

	// The surface holds every surface event: the log has no replaces.
	require.Equal(t, 12+123+135, c.Surface().Len())
	require.Empty(t, c.Surface().Shadowed())
	require.True(t, strings.HasPrefix(tail[0].Message, "interrupted tail"))
}

// BenchmarkCheckerRealCorpus measures Observe+Finish over the real log's 87k events
// (decoding excluded).
func BenchmarkCheckerRealCorpus(b *testing.B) {
	compressed, err := os.ReadFile(corpusLog)
	if os.IsNotExist(err) {
		b.Skipf("corpus log %s is absent", corpusLog)
	}
	require.NoError(b, err)
	dec, err := zstd.NewReader(nil)
	require.NoError(b, err)
	defer dec.Close()
	plain, err := dec.DecodeAll(compressed, nil)
	require.NoError(b, err)
	var events []Event
	var lines []int64
	t := &testing.T{}
	for i, l := range bytes.Split(bytes.TrimSuffix(plain, []byte("\n")), []byte("\n"))[1:] {
		for _, ev := range testRecordEvents(t, l) {
			events = append(events, ev)
			lines = append(lines, int64(i+2))
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		c := NewChecker(&Header{})
		for i := range events {
			c.Observe(&events[i], lines[i])
		}
		c.Finish()
	}
}
