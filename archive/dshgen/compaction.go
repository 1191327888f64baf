package dshgen

import (
	"strconv"
)

// Compact writes an automatic (between-step) compaction bracket owned by this turn:
// compaction/start, compaction/summary, the replacing checkpoint user/message and
// compaction/end; with fail, compaction/start and a compaction/end carrying an error.
// It reports false (writing nothing) when the surface has no compactable span.
func (t *Turn) Compact(fail bool) bool {
	if t.inStep {
		panic("dshgen: Compact inside a step")
	}
	_, ok := t.s.compact(t.n, "", fail, "")
	return ok
}

// CompactWith is Compact (never failing) with the summary the model wrote, for
// scripted sessions a person reads (the demo archive).
func (t *Turn) CompactWith(summary string) bool {
	if t.inStep {
		panic("dshgen: CompactWith inside a step")
	}
	_, ok := t.s.compact(t.n, "", false, summary)
	return ok
}

// ManualCompact writes a user /compact command between turns: command/run, a bracket
// with turn null and sourceCommandId, and command/done.
func (s *Session) ManualCompact() bool {
	if s.openTurn {
		panic("dshgen: ManualCompact inside a turn")
	}
	if _, _, ok := s.compactionSpan(); !ok {
		return false
	}
	cmd := "cmd-" + s.txt.uuid()[:8] + "-" + strconv.Itoa(s.rng.IntN(9)+1)
	s.event("command/run", obj{{"commandId", cmd}, {"name", "compact"}, {"source", obj{{"kind", "user"}}}})
	f, _ := s.compact(0, cmd, false, "")
	s.event("command/done", obj{{"commandId", cmd}, {"kind", "success"}, {"sourceEventSeq", f.EndSeq},
		{"text", "Compacted " + strconv.Itoa(len(f.ShadowedSeqs)) + " messages."}})
	return true
}

// compactionSpan picks a balanced head-anchored span [0, j] of the surface that leaves
// at least one node and does not split a tool call from its results.
func (s *Session) compactionSpan() (int, int, bool) {
	var cands []int
	for j := 0; j+1 < len(s.surface); j++ {
		if s.surface[j+1].kind != nodeTool {
			cands = append(cands, j)
		}
	}
	if len(cands) == 0 {
		return 0, 0, false
	}
	k := len(cands) - 1 - s.rng.IntN(min(3, len(cands)))
	return 0, cands[k], true
}

// compact writes one bracket; turn 0 writes turn:null. An empty text is a generated
// summary.
func (s *Session) compact(turn int64, cmd string, fail bool, text string) (CompactionFact, bool) {
	i, j, ok := s.compactionSpan()
	if !ok {
		return CompactionFact{}, false
	}
	id := s.txt.uuid()
	var turnVal any
	if turn > 0 {
		turnVal = turn
	}
	lifecycle := obj{{"compactionId", id}}
	if cmd != "" {
		lifecycle = append(lifecycle, kv{"sourceCommandId", cmd})
	}
	lifecycle = append(lifecycle, kv{"turn", turnVal})
	f := CompactionFact{ID: id, Turn: turn, SourceCommandID: cmd, SummarySeq: -1, MessageSeq: -1}
	f.StartSeq = s.event("compaction/start", lifecycle)
	s.now += 2000 + int64(s.rng.IntN(8000))
	if fail {
		f.Failed = true
		f.EndSeq = s.event("compaction/end", append(lifecycle,
			kv{"error", "summary is not smaller than the shadowed content (812 estimated framed tokens >= 640)"}))
		s.facts.Compactions = append(s.facts.Compactions, f)
		return f, true
	}
	shadowed := make([]int64, 0, j-i+1)
	for _, n := range s.surface[i : j+1] {
		shadowed = append(shadowed, n.seq)
	}
	f.ShadowedSeqs = shadowed
	if text == "" {
		text = s.txt.sentence(60)
	}
	summaryText := "<summary>\n" + text + "\n</summary>"
	summary := obj{{"compactionId", id}}
	if cmd != "" {
		summary = append(summary, kv{"sourceCommandId", cmd})
	}
	summary = append(summary,
		kv{"summary", arr{obj{{"type", "text"}, {"text", summaryText}}}},
		kv{"shadowedRange", obj{{"start", shadowed[0]}, {"end", shadowed[len(shadowed)-1]}}},
		kv{"shadowedSeqs", shadowed},
		kv{"shadowedTokenCount", int64(len(shadowed))*150 + int64(s.rng.IntN(1000))},
		kv{"provider", s.provider}, kv{"model", s.model}, kv{"maxTokens", 8192})
	f.SummarySeq = s.event("compaction/summary", summary)

	source := obj{{"kind", "plugin"}, {"plugin", "compact"}, {"compactionId", id}}
	if cmd != "" {
		source = append(source, kv{"sourceCommandId", cmd})
	}
	f.MessageSeq = s.begin("user/message")
	s.lb = appendValue(s.lb, obj{
		{"content", arr{obj{{"type", "text"}, {"text", "This session is being continued from a compacted history.\n\n" + summaryText}}}},
		{"source", source}, {"role", "user"}, {"id", s.txt.uuid()}})
	src := append([]int64{f.StartSeq, f.SummarySeq}, shadowed...)
	s.commitSurface(src, nodeUser, surfaceOp{replace: true, start: shadowed[0], end: shadowed[len(shadowed)-1]})
	f.EndSeq = s.event("compaction/end", lifecycle)
	s.facts.Compactions = append(s.facts.Compactions, f)
	return f, true
}

// Prune writes compaction/prune for one tool/result currently on the surface followed
// by its pruned replacement (surfaceOp replace start=end=s, sourceEventSeqs [s]). It
// reports false when no unpruned tool result is on the surface.
func (t *Turn) Prune() bool {
	if t.inStep {
		panic("dshgen: Prune inside a step")
	}
	return t.s.prune()
}

// prune implements Turn.Prune.
func (s *Session) prune() bool {
	var target int64 = -1
	for _, n := range s.surface {
		if n.kind == nodeTool && !s.tools[n.seq].pruned {
			target = n.seq
			if s.rng.IntN(2) == 0 {
				break
			}
		}
	}
	if target < 0 {
		return false
	}
	tn := s.tools[target]
	pruneSeq := s.event("compaction/prune", obj{
		{"shadowedRange", obj{{"start", target}, {"end", target}}},
		{"shadowedSeqs", []int64{target}},
		{"shadowedTokenCount", 100 + s.rng.IntN(4000)}})
	tn.pruned = true
	seq := s.begin("tool/result")
	s.appendToolResultData(tn, func() {
		s.lb = s.txt.appendText(s.lb, 40)
		s.lb = append(s.lb, `\n\n[... tool output pruned ...]\n\n`...)
		s.lb = s.txt.appendText(s.lb, 40)
	})
	s.commitSurface([]int64{target}, nodeTool, surfaceOp{replace: true, start: target, end: target})
	s.rememberTool(seq, tn)
	s.facts.Prunes = append(s.facts.Prunes, PruneFact{PruneSeq: pruneSeq, ReplacementSeq: seq, ShadowedSeq: target})
	return true
}
