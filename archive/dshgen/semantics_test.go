package dshgen

import (
	"bytes"
	"fmt"
	"slices"
)

// event is one expanded logical event for semantic checks.
type event struct {
	seq   int64
	typ   string
	data  map[string]any
	env   map[string]any // nil for packed members
	chunk map[string]any // packed member chunk
}

// expand returns every logical event of plain JSONL (assumed decodable).
func expand(data []byte) []event {
	var out []event
	for i, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		if i == 0 {
			continue
		}
		v, err := parseJSON(line)
		if err != nil {
			panic(err)
		}
		r := v.(map[string]any)
		switch r["type"] {
		case "text-chunks", "reasoning-chunks", "tool-call-chunks":
			seq0, _ := asCount(r["seq0"])
			d := r["data"].(map[string]any)
			texts, kind := d["texts"], map[any]string{"text-chunks": "text-delta", "reasoning-chunks": "reasoning-delta"}[r["type"]]
			if r["type"] == "tool-call-chunks" {
				texts, kind = d["args"], "tool-call-delta"
			}
			for k := range texts.([]any) {
				c := map[string]any{"type": kind, "index": d["index"], "id": d["id"], "name": d["name"]}
				out = append(out, event{seq: seq0 + int64(k), typ: "assistant/chunk",
					data: map[string]any{"turn": d["turn"], "step": d["step"]}, chunk: c})
			}
		default:
			seq, _ := asCount(r["seq"])
			d, _ := r["data"].(map[string]any)
			e := event{seq: seq, typ: r["type"].(string), data: d, env: r}
			if e.typ == "assistant/chunk" {
				e.chunk = d["chunk"].(map[string]any)
			}
			out = append(out, e)
		}
	}
	return out
}

// ints converts a JSON array of numbers.
func ints(v any) []int64 {
	var out []int64
	for _, x := range v.([]any) {
		n, _ := asCount(x)
		out = append(out, n)
	}
	return out
}

// semanticProblems replays the surface, tool pairing, compaction spans, chunk
// citations and turn/step nesting of a valid log.
func semanticProblems(data []byte) []string {
	var probs []string
	fail := func(f string, a ...any) { probs = append(probs, fmt.Sprintf(f, a...)) }
	evs := expand(data)
	var surface []int64
	advertised, started, resulted := map[string]bool{}, map[string]bool{}, map[string]bool{}
	var pendingShadow []int64
	turn, step := int64(0), int64(0)
	for i, e := range evs {
		if e.seq != int64(i) {
			fail("seq %d at index %d", e.seq, i)
		}
		switch e.typ {
		case "turn/start":
			n, _ := asCount(e.data["turn"])
			if turn != 0 && n != turn+1 {
				fail("turn %d after %d", n, turn)
			}
			turn, step = n, 0
		case "step/start":
			n, _ := asCount(e.data["step"])
			if n != step+1 {
				fail("step %d after %d", n, step)
			}
			step = n
		case "compaction/summary":
			pendingShadow = ints(e.data["shadowedSeqs"])
		case "assistant/message":
			for _, b := range e.data["message"].(map[string]any)["content"].([]any) {
				if blk := b.(map[string]any); blk["type"] == "tool-call" {
					advertised[blk["id"].(string)] = true
				}
			}
			src, _ := decodeSeqs(e.env["sourceEventSeqs"], e.seq, e.typ)
			for _, s := range src {
				if evs[s].typ != "assistant/chunk" {
					fail("message %d cites %s %d", e.seq, evs[s].typ, s)
				}
			}
		case "tool/call":
			id := e.data["callId"].(string)
			if !advertised[id] || started[id] {
				fail("tool/call %s not advertised or repeated", id)
			}
			started[id] = true
		}
		if !surfaceTypes[e.typ] {
			continue
		}
		src, _ := decodeSeqs(e.env["sourceEventSeqs"], e.seq, e.typ)
		if op, ok := e.env["surfaceOp"].(map[string]any); ok {
			a, _ := asCount(op["start"])
			b, _ := asCount(op["end"])
			ia, ib := slices.Index(surface, a), slices.Index(surface, b)
			if ia < 0 || ib < 0 || ia > ib {
				fail("replace %d..%d not a surface span", a, b)
				continue
			}
			shadow := slices.Clone(surface[ia : ib+1])
			for _, s := range shadow {
				if !slices.Contains(src, s) {
					fail("replace at %d does not cite %d", e.seq, s)
				}
			}
			if e.typ == "user/message" && !slices.Equal(shadow, pendingShadow) {
				fail("compaction shadowedSeqs %v != span %v", pendingShadow, shadow)
			}
			surface = append(surface[:ia], append([]int64{e.seq}, surface[ib+1:]...)...)
		} else if e.env["surfaceOp"] == "append" {
			surface = append(surface, e.seq)
			if e.typ == "tool/result" {
				id := e.data["message"].(map[string]any)["source"].(map[string]any)["callId"].(string)
				if !started[id] || resulted[id] {
					fail("tool/result %s without call or repeated", id)
				}
				resulted[id] = true
				if len(src) != 1 || evs[src[0]].typ != "tool/call" {
					fail("tool/result %d sources %v", e.seq, src)
				}
			}
		} else {
			fail("surface event %d without surfaceOp", e.seq)
		}
	}
	for id := range started {
		if !resulted[id] {
			fail("tool call %s has no result", id)
		}
	}
	return probs
}

// looseRunProblems checks the writer's packing rule inside one append batch: no run of
// three or more consecutive packable loose deltas.
func looseRunProblems(batch []byte) []string {
	var probs []string
	var prevKey string
	var prevSeq int64 = -2
	run := 0
	for _, line := range bytes.Split(bytes.TrimSuffix(batch, []byte("\n")), []byte("\n")) {
		v, _ := parseJSON(line)
		r := v.(map[string]any)
		key := ""
		var seq int64 = -2
		if r["type"] == "assistant/chunk" {
			d := r["data"].(map[string]any)
			c := d["chunk"].(map[string]any)
			switch c["type"] {
			case "text-delta", "reasoning-delta", "tool-call-delta":
				key = fmt.Sprint(c["type"], d["turn"], d["step"], c["index"], c["id"], c["name"])
				seq, _ = asCount(r["seq"])
			}
		}
		if key != "" && key == prevKey && seq == prevSeq+1 {
			run++
		} else if key != "" {
			run = 1
		} else {
			run = 0
		}
		if run >= 3 {
			probs = append(probs, fmt.Sprintf("loose run reaches %d at seq %d", run, seq))
		}
		prevKey, prevSeq = key, seq
	}
	return probs
}
