package dshgen

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/logbook/logbook/archive/dsh"
	"github.com/logbook/logbook/archive/internal/jsonw"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// assertValid runs the reference checks on a generated log.
func assertValid(t *testing.T, l *Log) {
	t.Helper()
	data := l.JSONL()
	require.Equal(t, verdict{"ok", "", 0}, checkPlain(data))
	probs := semanticProblems(data)
	assert.Emptyf(t, probs, "%d semantic problems, first: %v", len(probs), first(probs))
	if !l.opts.NoPack {
		for _, b := range l.batches()[1:] {
			probs := looseRunProblems(b)
			require.Emptyf(t, probs, "%d packing problems, first: %v", len(probs), first(probs))
		}
	}
	evs := expand(data)
	require.Len(t, evs, l.Events())
	assert.Equal(t, int64(len(evs))-1, l.LastSeq())
}

// first returns the first element of a problem list, or "".
func first(p []string) string {
	if len(p) == 0 {
		return ""
	}
	return p[0]
}

func TestGenerateVariants(t *testing.T) {
	variants := map[string]Options{
		"default":       {Seed: 1, Cwd: "/home/u/proj"},
		"windows-cjk":   {Seed: 2, Cwd: `G:\dsh客户端`, AgentPreset: "standard"},
		"ascii-no-cwd":  {Seed: 3, ASCII: true},
		"nopack-flat":   {Seed: 4, NoPack: true, SeqEncoding: SeqFlat, Turns: 5},
		"noncanonical":  {Seed: 5, SeqEncoding: SeqNonCanonical, BatchLines: 1},
		"tools-only":    {Seed: 6, Families: FamilyTools, Turns: 3},
		"one-turn":      {Seed: 7, Turns: 1},
		"long":          {Seed: 8, Turns: 40, StepsPerTurn: 5, ToolCallsPerStep: 3, ChunkTokens: 60},
		"subagent":      {Seed: 9, Subagent: true, DelegationDepth: 1, ParentSession: "session-p"},
		"unknown-types": {Seed: 10, Families: AllFamilies | FamilyUnknownIgnorable},
	}
	for name, o := range variants {
		t.Run(name, func(t *testing.T) {
			assertValid(t, Generate(o))
		})
	}
}

func TestLinesAreJSONObjectsWithDenseSeqs(t *testing.T) {
	l := Generate(Options{Seed: 11, Cwd: "/srv/x"})
	lines := l.Lines()
	require.Equal(t, l.Header(), lines[0])
	var next int64
	for i, line := range lines[1:] {
		kind, first, n := recordProblem(line)
		require.Emptyf(t, kind, "line %d: %s", i+2, line)
		require.Equalf(t, next, first, "line %d", i+2)
		assert.Equal(t, int64(i)+2, l.LineOfSeq(first))
		next += n
	}
	assert.Equal(t, int64(l.Events()), next)
}

func TestHeaderKeyOrder(t *testing.T) {
	l := Generate(Options{Seed: 1, ID: "session-1", Cwd: "/a", AgentPreset: "standard", Turns: 1})
	assert.Equal(t, `{"type":"session","version":0,"id":"session-1","createdAt":1786901809409,"cwd":"/a","delegationDepth":0,"agentPreset":"standard"}`,
		string(l.Header()))
	l = Generate(Options{Seed: 1, ID: "x", Turns: 1})
	assert.Equal(t, `{"type":"session","version":0,"id":"x","createdAt":1786901809409,"delegationDepth":0}`, string(l.Header()))
	s := SubagentOf(l, Options{Seed: 2, Turns: 1})
	assert.Regexp(t, `^\{"type":"session","version":0,"id":"[0-9a-f-]{36}","createdAt":\d+,"parentSession":"x","origin":"subagent","delegationDepth":1\}$`,
		string(s.Header()))
}

func TestEveryFamilyIsCovered(t *testing.T) {
	l := Generate(Options{Seed: 12, Cwd: "/home/u/proj", Turns: 6})
	data := string(l.JSONL())
	for _, typ := range []string{"permission/preset", "sandbox/mode", "approval/policy", "model/selection", "plan/mode",
		"turn/start", "turn/end", "step/start", "step/end", "request/header", "request/context", "user/message",
		"assistant/chunk", "text-chunks", "reasoning-chunks", "tool-call-chunks", "assistant/message", "tool/call",
		"tool/result", "approval/asked", "approval/decided", "command/run", "command/done", "llm/retry",
		"llm/retry-started", "hook/invoked", "hook/result", "todo/write", "goal/change", "session/title",
		"session/title-llm-request", "compaction/start", "compaction/summary", "compaction/end", "compaction/prune",
		"schedule/change", "session/end-seed", "agent/inbox/spliced"} {
		assert.Containsf(t, data, `{"type":"`+typ+`",`, "missing %s", typ)
	}
	for _, frag := range []string{`"blockType":"reasoning"`, `"type":"block-end"`, `"type":"usage"`, `"kind":"tool-calls"`,
		`"kind":"max-tokens"`, `"kind":"aborted","reason":{"kind":"user"}`, `"reason":{"kind":"error","error":`,
		`"source":{"kind":"plugin","plugin":"compact","compactionId"`, `"surfaceOp":{"op":"replace"`,
		`"isError":true`, `"error":{"name":`, `"kind":"every"`, `"kind":"at"`, `"kind":"after"`, `"acceptedAt":`,
		`"operation":"delete"`, `"source":{"kind":"fallback"}`, `"source":{"kind":"user"}}`, `"source":{"kind":"provider"`,
		`"clientTimeZone"`, `"plugin":"@deepseek-ai/dsh-system-prompt"`, `"turn":null`, `"sourceCommandId"`} {
		assert.Containsf(t, data, frag, "missing %s", frag)
	}
	f := l.Facts()
	outcomes := map[string]bool{}
	for _, a := range f.Approvals {
		outcomes[a.Outcome] = true
	}
	assert.Equal(t, map[string]bool{ApprovalAllowedOnce: true, ApprovalRejected: true, ApprovalCancelled: true,
		ApprovalUnavailable: true, ApprovalPending: true}, outcomes)
	reasons := map[EndReason]bool{}
	for _, tf := range f.Turns {
		reasons[tf.Reason] = true
	}
	assert.Equal(t, map[EndReason]bool{EndCompleted: true, EndAborted: true, EndError: true, EndMaxTokens: true}, reasons)
	var failed, manual, inTurn bool
	for _, c := range f.Compactions {
		failed = failed || c.Failed
		manual = manual || (c.Turn == 0 && !c.Failed)
		inTurn = inTurn || (c.Turn > 0 && !c.Failed)
	}
	assert.True(t, failed && manual && inTurn, "compactions %+v", f.Compactions)
	assert.NotEmpty(t, f.Prunes)
	assert.NotEmpty(t, f.EndSeeds)
	assert.Contains(t, data, `"dt":[`)
}

func TestNegativeDTAndSplitRuns(t *testing.T) {
	l := Generate(Options{Seed: 13, Turns: 30, ChunkTokens: 80})
	data := l.JSONL()
	assert.Regexp(t, `"dt":\[[^\]]*-\d`, string(data), "no negative dt")
	// A run split by a flush: a loose delta directly followed (next line) by a row of the
	// same block, or two rows of the same block.
	assert.Contains(t, string(data), `"argumentsDelta"`)
}

func TestScheduleFacts(t *testing.T) {
	l := Generate(Options{Seed: 14, Turns: 5, Families: FamilySchedules | FamilyTools})
	f := l.Facts()
	require.Len(t, f.Schedules, 3)
	byKind := map[string]ScheduleFact{}
	for _, s := range f.Schedules {
		byKind[s.Kind] = s
		assert.Regexp(t, `^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`, s.ScheduledAt)
	}
	assert.False(t, byKind["at"].Active)
	assert.Len(t, byKind["at"].Dispatches, 1)
	assert.False(t, byKind["after"].Active)
	assert.NotEqual(t, int64(-1), byKind["after"].DeletedSeq)
	every := byKind["every"]
	assert.True(t, every.Active)
	assert.GreaterOrEqual(t, every.EverySeconds, int64(300))
	assert.Greater(t, every.NextAt, every.ScheduledAt)
	assertValid(t, l)
}

func TestZstdFraming(t *testing.T) {
	l := Generate(Options{Seed: 15, Cwd: "/home/u/proj"})
	frames := l.Frames()
	require.Greater(t, len(frames), 3)
	dec, err := zstd.NewReader(nil)
	require.NoError(t, err)
	defer dec.Close()
	for i, fr := range frames {
		assert.Equal(t, uint32(zstdMagic), binary.LittleEndian.Uint32(fr))
		assert.NotZero(t, fr[4]&0x04, "frame %d lacks the content checksum flag", i)
		out, err := dec.DecodeAll(fr, nil)
		require.NoError(t, err)
		require.True(t, bytes.HasSuffix(out, []byte("\n")), "frame %d", i)
		if i == 0 {
			assert.Equal(t, append(l.Header(), '\n'), out)
		}
	}
	all, err := dec.DecodeAll(l.Zstd(), nil)
	require.NoError(t, err)
	assert.Equal(t, l.JSONL(), all)
	var streamed bytes.Buffer
	require.NoError(t, dec.Reset(bytes.NewReader(l.Zstd())))
	_, err = streamed.ReadFrom(dec)
	require.NoError(t, err)
	assert.Equal(t, l.JSONL(), streamed.Bytes())
}

func TestDeterministic(t *testing.T) {
	o := Options{Seed: 16, Cwd: "/x", Turns: 5}
	a, b := Generate(o), Generate(o)
	assert.Equal(t, a.JSONL(), b.JSONL())
	assert.Equal(t, a.Zstd(), b.Zstd())
	o.Seed = 17
	assert.NotEqual(t, a.JSONL(), Generate(o).JSONL())
}

func TestForkCopiesPrefix(t *testing.T) {
	parent := Generate(Options{Seed: 18, Cwd: "/home/u/proj", Turns: 6})
	// Every line boundary and a cut inside a packed row.
	var rowCut int64 = -1
	for i, n := range parent.m.lineN {
		if n >= 5 {
			rowCut = parent.m.lineSeq[i] + 2
			break
		}
	}
	require.NotEqual(t, int64(-1), rowCut)
	for _, at := range []int64{0, 1, rowCut, rowCut + 1, int64(parent.Events()) / 2, int64(parent.Events())} {
		child, err := Fork(parent, at, Options{Seed: 19})
		require.NoError(t, err)
		assert.Equal(t, parent.ID(), child.ParentSession())
		assert.Equal(t, at, child.SeedLength())
		assert.Equal(t, parent.Cwd(), child.Cwd())
		assert.Contains(t, string(child.Header()), `"seedLength":`)
		pe, ce := expand(parent.JSONL()), expand(child.JSONL())
		for i := range at {
			assert.Equal(t, pe[i].seq, ce[i].seq)
			assert.Equal(t, pe[i].typ, ce[i].typ)
		}
		assert.Equal(t, "session/end-seed", ce[at].typ)
		// Complete parent lines are copied byte for byte.
		pl, cl := parent.Lines(), child.Lines()
		for i := 1; i < len(pl) && parent.m.lineSeq[i-1]+int64(parent.m.lineN[i-1]) <= at; i++ {
			require.Equal(t, pl[i], cl[i])
		}
		assertValid(t, child)
	}
	_, err := Fork(parent, int64(parent.Events())+1, Options{})
	assert.Error(t, err)
}

func TestSubagentChildren(t *testing.T) {
	parent := Generate(Options{Seed: 20, Cwd: "/home/u/proj", Turns: 2})
	child := SubagentOf(parent, Options{Seed: 21})
	assert.Equal(t, int64(1), child.DelegationDepth())
	assert.Equal(t, int64(-1), child.SeedLength())
	data := string(child.JSONL())
	assert.Contains(t, data, `{"type":"subagent/descriptor","seq":0,`)
	assert.Contains(t, data, `"mode":"one-shot","version":3`)
	assert.Contains(t, data, `{"type":"subagent/model-selection-policy","seq":1,`)
	assert.Contains(t, data, `"source":"delegation"`)
	assertValid(t, child)
	grand := SubagentOf(child, Options{Seed: 22})
	assert.Equal(t, int64(2), grand.DelegationDepth())
	forked, err := Fork(parent, 10, Options{Seed: 23, Subagent: true})
	require.NoError(t, err)
	assert.Contains(t, string(forked.Header()), `"seedLength":10,"origin":"subagent","delegationDepth":1`)
	assertValid(t, forked)
}

func TestWriteFileLayout(t *testing.T) {
	root := t.TempDir()
	l := Generate(Options{Seed: 24, ID: "session-1", Cwd: `G:\dsh客户端`, Turns: 1})
	path, err := l.WriteFile(root, true)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(root, "--G-dsh~5BA2~6237~7AEF--", "session-1", "session.jsonl.zstd"), path)
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, l.Zstd(), got)
	noCwd := Generate(Options{Seed: 25, ID: "..", Turns: 1})
	path, err = noCwd.WriteFile(root, false)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(root, dsh.NoCwdDir, "~002E~002E", "session.jsonl"), path)
}

func TestHugeLine(t *testing.T) {
	l := Generate(Options{Seed: 26, Turns: 1, HugeLine: true})
	longest := 0
	for _, line := range l.Lines() {
		longest = max(longest, len(line))
	}
	assert.Greater(t, longest, 2<<20)
	assertValid(t, l)
}

func TestTargetBytes(t *testing.T) {
	l := Generate(Options{Seed: 27, TargetBytes: 3 << 20})
	assert.GreaterOrEqual(t, l.Size(), int64(3<<20))
	assert.Equal(t, int64(len(l.JSONL())), l.Size())
	assertValid(t, l)
}

func TestWriteCorpus(t *testing.T) {
	for _, compressed := range []bool{false, true} {
		root := t.TempDir()
		opts := CorpusOptions{Seed: 28, Sessions: 12, TargetBytes: 6 << 20, Compressed: compressed, Workers: 3}
		stats, err := WriteCorpus(root, opts)
		require.NoError(t, err)
		assert.Equal(t, 12, stats.Sessions)
		assert.GreaterOrEqual(t, stats.LogicalBytes, int64(6<<20))
		var onDisk int64
		dec, err := zstd.NewReader(nil)
		require.NoError(t, err)
		for _, rel := range stats.Paths {
			data, err := os.ReadFile(filepath.Join(root, rel))
			require.NoError(t, err)
			onDisk += int64(len(data))
			assert.Equal(t, compressed, strings.HasSuffix(rel, ".zstd"))
			if compressed {
				data, err = dec.DecodeAll(data, nil)
				require.NoError(t, err)
			}
			require.Equal(t, verdict{"ok", "", 0}, checkPlain(data), rel)
		}
		dec.Close()
		assert.Equal(t, stats.FileBytes, onDisk)
		again, err := WriteCorpus(t.TempDir(), opts)
		require.NoError(t, err)
		assert.Equal(t, stats, again, "corpus is deterministic")
	}
}

func TestWriteCorpusSingleLargeSession(t *testing.T) {
	stats, err := WriteCorpus(t.TempDir(), CorpusOptions{Seed: 29, Sessions: 1, TargetBytes: 16 << 20, Compressed: true})
	require.NoError(t, err)
	assert.GreaterOrEqual(t, stats.LogicalBytes, int64(16<<20))
	assert.Less(t, stats.LogicalBytes, int64(17<<20))
}

func TestEncodeSeqs(t *testing.T) {
	cases := []struct {
		in   []int64
		enc  SeqEncoding
		want string
	}{
		{[]int64{5, 6, 7, 9, 11, 12}, SeqCanonical, "[[5,7],9,11,12]"},
		{[]int64{10, 11, 12, 13, 14}, SeqCanonical, "[[10,14]]"},
		{[]int64{16, 17, 100, 200, 201, 202, 203}, SeqCanonical, "[16,17,100,[200,203]]"},
		{[]int64{3, 2}, SeqCanonical, "[3,2]"},
		{[]int64{}, SeqCanonical, "[]"},
		{[]int64{1}, SeqNonCanonical, "[[1,1]]"},
		{[]int64{10, 11, 13}, SeqNonCanonical, "[[10,11],[13,13]]"},
		{[]int64{1, 2, 3}, SeqFlat, "[1,2,3]"},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, string(EncodeSeqs(c.in, c.enc)))
	}
}

func TestJSONEscaping(t *testing.T) {
	assert.Equal(t, "\"a\\\"b\\\\c\\n\\t\\u0001\\u001b😀<>&\x7f\u2028\"", string(jsonw.AppendString(nil, "a\"b\\c\n\t\x01\x1b😀<>&\x7f\u2028")))
}

func TestBuilder(t *testing.T) {
	s := New(Options{Seed: 30, ID: "session-builder", Cwd: "/home/u/proj", BatchLines: 3})
	s.Preamble()
	first := s.Turn(func(tb *Turn) {
		tb.Inject("@deepseek-ai/dsh-system-prompt", "runtime context")
		h := tb.User("读取 README 😀")
		s.Title("读取 README", "fallback", []int64{h})
		tb.Step(func(st *Step) {
			calls := st.Reply(Reasoning("let me look at the file first"), Text("Reading it."),
				ToolCall("read", `{"file_path":"README.md"}`).WithID("call_fixed"))
			require.Len(t, calls, 1)
			assert.Equal(t, "call_fixed", calls[0].ID)
			st.RunTool(calls[0], Result{Text: "# README\nhello"})
		})
		tb.Step(func(st *Step) {
			calls := st.ReplyWith(ReplyOptions{Retry: true}, ToolCall("bash", `{"command":"ls"}`))
			st.RunTool(calls[0], Result{Approval: ApprovalRejected})
		})
		require.True(t, tb.Prune())
		require.True(t, tb.Compact(false))
		tb.Step(func(st *Step) { st.Reply(Text("Done.")) })
	})
	assert.Equal(t, int64(1), first)
	id := s.ScheduleCreate("every", "check CI")
	s.Wait(3_600_000)
	require.True(t, s.ScheduleDispatch(id))
	s.EndSeed()
	s.Turn(func(tb *Turn) {
		tb.User("again")
		tb.Step(func(st *Step) { st.Fail() })
		tb.End(EndError)
	})
	require.True(t, s.ManualCompact())
	l := s.Log()
	assertValid(t, l)
	f := l.Facts()
	require.Len(t, f.Compactions, 2)
	assert.Equal(t, l.Surface()[0], f.Compactions[1].MessageSeq)
	require.Len(t, f.Schedules, 1)
	assert.True(t, f.Schedules[0].Active)
	assert.Len(t, f.Turns, 2)
	assert.Equal(t, EndError, f.Turns[1].Reason)
	assert.Panics(t, func() { s.EndSeed() })
}

func BenchmarkGenerate(b *testing.B) {
	var n int64
	for i := 0; b.Loop(); i++ {
		n = Generate(Options{Seed: uint64(i), TargetBytes: 4 << 20}).Size()
	}
	b.SetBytes(n)
}

func BenchmarkWriteCorpus(b *testing.B) {
	for _, compressed := range []bool{false, true} {
		b.Run(map[bool]string{false: "jsonl", true: "zstd"}[compressed], func(b *testing.B) {
			for b.Loop() {
				stats, err := WriteCorpus(b.TempDir(), CorpusOptions{Sessions: 16, TargetBytes: 64 << 20, Compressed: compressed})
				require.NoError(b, err)
				b.SetBytes(stats.LogicalBytes)
			}
		})
	}
}
