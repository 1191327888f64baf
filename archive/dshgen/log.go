package dshgen

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/klauspost/compress/zstd"
	"github.com/logbook/logbook/archive/dsh"
)

// Log is a finished in-memory session log: the exact physical lines plus the facts it
// was generated from. It is immutable; slices it returns must not be modified.
type Log struct {
	id, cwd      string
	parent       string
	seedLength   int64 // -1 when unseeded
	subagent     bool
	depth        int64
	createdAt    int64
	lastTime     int64
	opts         Options
	m            *memSink
	events       int64
	facts        Facts
	surfaceLog   []surfaceRec
	turnStarts   []turnRec
	tools        map[int64]toolNode
	schedules    int
	finalSurface []int64
}

// newLog snapshots a finished in-memory session.
func newLog(s *Session) *Log {
	tools := make(map[int64]toolNode, len(s.toolsEver))
	for k, v := range s.toolsEver {
		tools[k] = v
	}
	return &Log{
		id: s.o.ID, cwd: s.o.Cwd, parent: s.o.ParentSession, seedLength: s.seedLength,
		subagent: s.o.Subagent, depth: s.o.DelegationDepth, createdAt: s.o.CreatedAt, lastTime: s.now,
		opts: s.o, m: s.mem, events: s.seq, facts: s.facts, surfaceLog: s.surfaceLog, turnStarts: s.turnStarts,
		tools: tools, schedules: s.scheduleN, finalSurface: s.Surface(),
	}
}

// ID returns the header id.
func (l *Log) ID() string { return l.id }

// Cwd returns the header cwd ("" when absent).
func (l *Log) Cwd() string { return l.cwd }

// ParentSession returns the header parentSession ("" when absent).
func (l *Log) ParentSession() string { return l.parent }

// SeedLength returns the header seedLength, or -1 for an unseeded session.
func (l *Log) SeedLength() int64 { return l.seedLength }

// DelegationDepth returns the header delegationDepth.
func (l *Log) DelegationDepth() int64 { return l.depth }

// Events returns the number of logical events (packed rows expanded).
func (l *Log) Events() int { return int(l.events) }

// LastSeq returns the seq of the last event, or -1 for an empty log.
func (l *Log) LastSeq() int64 { return l.events - 1 }

// Facts returns the ground truth of the session's own events.
func (l *Log) Facts() Facts { return l.facts }

// Surface returns the final surface (model-visible node seqs in order).
func (l *Log) Surface() []int64 { return append([]int64(nil), l.finalSurface...) }

// Header returns the header line without its newline.
func (l *Log) Header() []byte { return l.m.header }

// Lines returns the logical lines without newlines: Lines()[0] is the header and
// Lines()[k] is physical line k+1.
func (l *Log) Lines() [][]byte {
	out := make([][]byte, 0, len(l.m.lines)+1)
	out = append(out, l.m.header)
	return append(out, l.m.lines...)
}

// LineOfSeq returns the 1-based line number holding seq (the header is line 1), or 0.
func (l *Log) LineOfSeq(seq int64) int64 {
	for i, first := range l.m.lineSeq {
		if seq >= first && seq < first+int64(l.m.lineN[i]) {
			return int64(i) + 2
		}
	}
	return 0
}

// Size returns the logical (JSONL) size in bytes.
func (l *Log) Size() int64 { return l.m.logical }

// JSONL returns the plain session.jsonl bytes.
func (l *Log) JSONL() []byte {
	var buf bytes.Buffer
	buf.Grow(int(l.m.logical))
	buf.Write(l.m.header)
	buf.WriteByte('\n')
	for _, line := range l.m.lines {
		buf.Write(line)
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

// batches returns the logical bytes of frame 0 (the header line) and of every append
// batch.
func (l *Log) batches() [][]byte {
	out := [][]byte{append(append([]byte(nil), l.m.header...), '\n')}
	start := 0
	for _, end := range l.m.batchEnds {
		var buf bytes.Buffer
		for _, line := range l.m.lines[start:end] {
			buf.Write(line)
			buf.WriteByte('\n')
		}
		out = append(out, buf.Bytes())
		start = end
	}
	return out
}

// Frames returns the session.jsonl.zstd file as its separate zstd frames: frame 0 holds
// exactly the header line, then one frame per append batch (content checksums on).
func (l *Log) Frames() [][]byte {
	enc, err := newEncoder(zstd.SpeedDefault) // Node's default level
	if err != nil {
		panic(err) // only invalid options can fail, and ours are fixed
	}
	defer enc.Close()
	var frames [][]byte
	for _, b := range l.batches() {
		frames = append(frames, enc.EncodeAll(b, nil))
	}
	return frames
}

// Zstd returns the session.jsonl.zstd bytes (the concatenated Frames).
func (l *Log) Zstd() []byte {
	return bytes.Join(l.Frames(), nil)
}

// RelPath returns the session file path relative to a sessions root:
// <projectKey(cwd) or _no-cwd>/<encodeSegment(id)>/session.jsonl[.zstd].
func (l *Log) RelPath(compressed bool) (string, error) {
	return sessionPath(l.cwd, l.id, compressed)
}

// sessionPath implements RelPath.
func sessionPath(cwd, id string, compressed bool) (string, error) {
	project := dsh.NoCwdDir
	if cwd != "" {
		project = dsh.ProjectKey(cwd)
	}
	seg, err := dsh.EncodeSegment(id)
	if err != nil {
		return "", fmt.Errorf("dshgen: session dir for id %q: %w", id, err)
	}
	name := "session.jsonl"
	if compressed {
		name += ".zstd"
	}
	return filepath.Join(project, seg, name), nil
}

// WriteFile writes the log under a sessions root at its dsh path and returns the full
// path. (Named WriteFile rather than WriteTo so it does not clash with io.WriterTo.)
func (l *Log) WriteFile(root string, compressed bool) (string, error) {
	rel, err := l.RelPath(compressed)
	if err != nil {
		return "", err
	}
	path := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", fmt.Errorf("dshgen: create session dir: %w", err)
	}
	data := l.JSONL()
	if compressed {
		data = l.Zstd()
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return "", fmt.Errorf("dshgen: write %s: %w", path, err)
	}
	return path, nil
}
