package dshgen

import (
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"
)

// sink receives the physical lines of one session as they are generated. Lines are
// passed without their trailing '\n' and are only valid during the call.
type sink interface {
	writeHeader(line []byte)
	writeRecord(line []byte, firstSeq int64, n int)
	endBatch()
	logicalBytes() int64
}

// memSink keeps every line in memory (the backing store of a Log).
type memSink struct {
	header    []byte
	lines     [][]byte
	lineSeq   []int64
	lineN     []int32
	batchEnds []int
	logical   int64
}

func (m *memSink) writeHeader(line []byte) {
	m.header = append([]byte(nil), line...)
	m.logical += int64(len(line)) + 1
}

func (m *memSink) writeRecord(line []byte, firstSeq int64, n int) {
	m.lines = append(m.lines, append([]byte(nil), line...))
	m.lineSeq = append(m.lineSeq, firstSeq)
	m.lineN = append(m.lineN, int32(n))
	m.logical += int64(len(line)) + 1
}

func (m *memSink) endBatch() {
	last := 0
	if len(m.batchEnds) > 0 {
		last = m.batchEnds[len(m.batchEnds)-1]
	}
	if len(m.lines) > last {
		m.batchEnds = append(m.batchEnds, len(m.lines))
	}
}

func (m *memSink) logicalBytes() int64 { return m.logical }

// streamSink writes lines straight to w: plain JSONL, or one zstd frame for the header
// and one per append batch. The first write error is kept and later writes are dropped.
type streamSink struct {
	w        io.Writer
	enc      *zstd.Encoder // nil for plain JSONL
	batch    []byte
	frame    []byte
	logical  int64
	physical int64
	err      error
}

func (s *streamSink) write(p []byte) {
	if s.err != nil {
		return
	}
	n, err := s.w.Write(p)
	s.physical += int64(n)
	if err != nil {
		s.err = fmt.Errorf("dshgen: write session log: %w", err)
	}
}

func (s *streamSink) writeHeader(line []byte) {
	s.logical += int64(len(line)) + 1
	s.batch = append(append(s.batch[:0], line...), '\n')
	if s.enc == nil {
		s.write(s.batch)
		s.batch = s.batch[:0]
		return
	}
	s.endBatch()
}

func (s *streamSink) writeRecord(line []byte, _ int64, _ int) {
	s.logical += int64(len(line)) + 1
	if s.enc == nil {
		s.write(line)
		s.write([]byte{'\n'})
		return
	}
	s.batch = append(s.batch, line...)
	s.batch = append(s.batch, '\n')
}

func (s *streamSink) endBatch() {
	if s.enc == nil || len(s.batch) == 0 {
		return
	}
	s.frame = s.enc.EncodeAll(s.batch, s.frame[:0])
	s.write(s.frame)
	s.batch = s.batch[:0]
}

func (s *streamSink) logicalBytes() int64 { return s.logical }

// newEncoder returns a zstd encoder for session frames: content checksum on and
// single-threaded so output is deterministic.
func newEncoder(level zstd.EncoderLevel) (*zstd.Encoder, error) {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderCRC(true), zstd.WithEncoderConcurrency(1), zstd.WithEncoderLevel(level))
	if err != nil {
		return nil, fmt.Errorf("dshgen: create zstd encoder: %w", err)
	}
	return enc, nil
}
