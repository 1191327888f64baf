package dshgen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
)

// This file is a small, independent reference reader used only to validate the
// generator's own output and malformation catalogue. It is not the archive decoder.

var intRe = regexp.MustCompile(`^-?(0|[1-9][0-9]*)$`)

const maxSafe = 1<<53 - 1

// asInt returns v as a safe integer.
func asInt(v any) (int64, bool) {
	n, ok := v.(json.Number)
	if !ok || !intRe.MatchString(string(n)) {
		return 0, false
	}
	i, err := strconv.ParseInt(string(n), 10, 64)
	if err != nil || i > maxSafe || i < -maxSafe {
		return 0, false
	}
	return i, true
}

// asCount returns v as a non-negative safe integer (no -0).
func asCount(v any) (int64, bool) {
	i, ok := asInt(v)
	if !ok || i < 0 || string(v.(json.Number)) == "-0" {
		return 0, false
	}
	return i, true
}

// parseJSON decodes one line with json.Number numbers.
func parseJSON(line []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(line))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, fmt.Errorf("trailing data")
	}
	if _, err := d.Token(); err == nil {
		return nil, fmt.Errorf("trailing data")
	}
	return v, nil
}

// verdict is the checker's result for one plain file.
type verdict struct {
	v, k string
	line int64
}

// headerProblem validates the header object.
func headerProblem(line []byte) (string, string) {
	v, err := parseJSON(line)
	if err != nil {
		return "corrupt", "bad-header"
	}
	h, ok := v.(map[string]any)
	if !ok {
		return "corrupt", "bad-header"
	}
	if n, ok := h["version"].(json.Number); ok {
		if f, err := n.Float64(); err == nil && f != 0 {
			return "unsupported", "unsupported-version"
		}
	}
	req := map[string]bool{"type": true, "version": true, "id": true, "createdAt": true, "delegationDepth": true}
	opt := map[string]bool{"cwd": true, "parentSession": true, "seedLength": true, "origin": true, "agentPreset": true}
	for k := range h {
		if !req[k] && !opt[k] {
			return "corrupt", "bad-header"
		}
	}
	for k := range req {
		if _, ok := h[k]; !ok {
			return "corrupt", "bad-header"
		}
	}
	if h["type"] != "session" {
		return "corrupt", "bad-header"
	}
	if _, ok := asInt(h["version"]); !ok {
		return "corrupt", "bad-header"
	}
	for _, k := range []string{"createdAt", "delegationDepth", "seedLength"} {
		if x, has := h[k]; has {
			if _, ok := asCount(x); !ok {
				return "corrupt", "bad-header"
			}
		}
	}
	for _, k := range []string{"id", "cwd", "parentSession", "agentPreset"} {
		if x, has := h[k]; has {
			if _, ok := x.(string); !ok {
				return "corrupt", "bad-header"
			}
		}
	}
	if o, has := h["origin"]; has && o != "subagent" {
		return "corrupt", "bad-header"
	}
	return "", ""
}

// decodeSeqs implements decodeSeqRanges plus the semantic member rules.
func decodeSeqs(v any, seq int64, typ string) ([]int64, bool) {
	list, ok := v.([]any)
	if !ok {
		return nil, false
	}
	var out []int64
	ranged := false
	for _, e := range list {
		if pair, isArr := e.([]any); isArr {
			if len(pair) != 2 {
				return nil, false
			}
			a, ok1 := asCount(pair[0])
			b, ok2 := asCount(pair[1])
			if !ok1 || !ok2 || b < a || b-a+1 > seq-int64(len(out)) {
				return nil, false
			}
			for x := a; x <= b; x++ {
				out = append(out, x)
			}
			ranged = true
			continue
		}
		n, ok := asCount(e)
		if !ok || int64(len(out)) >= seq {
			return nil, false
		}
		out = append(out, n)
	}
	if ranged && !strictlyIncreasing(out) {
		return nil, false
	}
	seen := map[int64]bool{}
	for _, x := range out {
		if seen[x] || x >= seq {
			return nil, false
		}
		seen[x] = true
	}
	if len(out) == 0 && typ != "assistant/message" {
		return nil, false
	}
	return out, true
}

var surfaceTypes = map[string]bool{"user/message": true, "assistant/message": true, "tool/result": true}

// recordProblem validates one storage record and returns its kind ("" if fine) and
// the number of events it holds.
func recordProblem(line []byte) (kind string, first, n int64) {
	v, err := parseJSON(line)
	if err != nil {
		return "bad-json", 0, 0
	}
	r, ok := v.(map[string]any)
	if !ok {
		return "bad-json", 0, 0
	}
	switch r["type"] {
	case "text-chunks", "reasoning-chunks", "tool-call-chunks":
		return packedProblem(r)
	}
	seq, ok1 := asCount(r["seq"])
	_, ok2 := asInt(r["time"])
	typ, ok3 := r["type"].(string)
	_, ok4 := r["data"]
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return "bad-event", 0, 0
	}
	if ig, has := r["ignorable"]; has && ig != true {
		return "bad-event", 0, 0
	}
	if op, has := r["surfaceOp"]; has {
		if !surfaceTypes[typ] || !validOp(op) {
			return "bad-surface-op", 0, 0
		}
	}
	if src, has := r["sourceEventSeqs"]; has {
		if !surfaceTypes[typ] {
			return "bad-source-seqs", 0, 0
		}
		if _, ok := decodeSeqs(src, seq, typ); !ok {
			return "bad-source-seqs", 0, 0
		}
	}
	return "", seq, 1
}

// validOp checks the surfaceOp shape.
func validOp(op any) bool {
	if op == "append" {
		return true
	}
	o, ok := op.(map[string]any)
	if !ok || len(o) != 3 || o["op"] != "replace" {
		return false
	}
	_, ok1 := asCount(o["start"])
	_, ok2 := asCount(o["end"])
	return ok1 && ok2
}

// packedProblem validates a packed row.
func packedProblem(r map[string]any) (string, int64, int64) {
	const bad = "malformed-packed-row"
	if len(r) != 4 {
		return bad, 0, 0
	}
	seq0, ok1 := asCount(r["seq0"])
	t, ok2 := asInt(r["time0"])
	d, ok3 := r["data"].(map[string]any)
	if !ok1 || !ok2 || !ok3 {
		return bad, 0, 0
	}
	payload := "texts"
	want := 5
	if r["type"] == "tool-call-chunks" {
		payload, want = "args", 6
		id, ok := d["id"].(string)
		if !ok || id == "" {
			return bad, 0, 0
		}
		if name, has := d["name"]; has {
			want++
			if _, ok := name.(string); !ok {
				return bad, 0, 0
			}
		}
	}
	if len(d) != want {
		return bad, 0, 0
	}
	for _, k := range []string{"turn", "step", "index"} {
		if _, ok := asCount(d[k]); !ok {
			return bad, 0, 0
		}
	}
	texts, ok := d[payload].([]any)
	dt, ok2 := d["dt"].([]any)
	if !ok || !ok2 || len(texts) == 0 || len(dt) != len(texts)-1 {
		return bad, 0, 0
	}
	for _, x := range texts {
		if _, ok := x.(string); !ok {
			return bad, 0, 0
		}
	}
	for _, x := range dt {
		g, ok := asInt(x)
		if !ok || t+g > maxSafe || t+g < -maxSafe {
			return bad, 0, 0
		}
		t += g
	}
	return "", seq0, int64(len(texts))
}

// checkPlain is the reference verdict for a plain session.jsonl.
func checkPlain(data []byte) verdict {
	if len(data) == 0 {
		return verdict{"corrupt", "empty-file", 0}
	}
	lines := bytes.Split(data, []byte("\n"))
	torn := len(lines[len(lines)-1]) > 0
	complete := lines[:len(lines)-1]
	if len(complete) == 0 {
		return verdict{"corrupt", "bad-header", 1}
	}
	if v, k := headerProblem(complete[0]); v != "" {
		return verdict{v, k, 1}
	}
	hv, _ := parseJSON(complete[0])
	var next int64
	for i, line := range complete[1:] {
		ln := int64(i) + 2
		kind, first, n := recordProblem(line)
		if kind == "" && first != next {
			kind = "seq-gap"
		}
		if kind != "" {
			for _, later := range complete[i+2:] {
				if v, err := parseJSON(later); err == nil {
					if o, ok := v.(map[string]any); ok && o["type"] == "turn/end" {
						return verdict{"corrupt", kind, ln}
					}
				}
			}
			return verdict{"recovered", kind, ln}
		}
		next += n
	}
	if sl, has := hv.(map[string]any)["seedLength"]; has {
		if s, _ := asCount(sl); s > next {
			return verdict{"corrupt", "bad-seed-length", 1}
		}
	}
	if torn {
		return verdict{"recovered", "torn-tail", int64(len(lines))}
	}
	return verdict{"ok", "", 0}
}
