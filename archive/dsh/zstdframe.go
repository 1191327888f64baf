package dsh

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
)

// zstdMagic is the little-endian magic number that opens every Zstandard frame.
const zstdMagic = 0xFD2FB528

// maxBlockSize bounds one block (the format caps it at 128 KiB); anything larger is
// damage, and refusing it keeps a corrupt length field from claiming memory.
const maxBlockSize = 128 << 10

// errTornFrame reports a frame cut short by the end of the file.
var errTornFrame = errors.New("end of file inside a frame")

// frameError is structural damage in a frame, with the frame's physical offset.
type frameError struct {
	offset int64
	msg    string
}

func (e *frameError) Error() string { return e.msg }

// frameScanner splits a .jsonl.zstd stream into whole frames without decoding them,
// by walking frame headers and block headers (RFC 8878 §3.1.1). Splitting first lets
// every frame be decoded and checksum-verified on its own, and tells a torn final
// frame (recoverable) from damage inside a complete one (corrupt).
type frameScanner struct {
	r      *bufio.Reader
	offset int64 // physical offset of the next frame
	buf    []byte
}

// next returns the raw bytes of the next frame and its offset. At a clean end of
// input it returns io.EOF. A frame cut short returns the partial bytes and
// errTornFrame. Structural damage returns a *frameError.
func (s *frameScanner) next() ([]byte, int64, error) {
	start := s.offset
	s.buf = s.buf[:0]
	read := func(n int) ([]byte, error) {
		old := len(s.buf)
		s.buf = slices.Grow(s.buf, n)[:old+n]
		got, err := io.ReadFull(s.r, s.buf[old:])
		s.buf = s.buf[:old+got]
		s.offset += int64(got)
		switch {
		case err == nil:
			return s.buf[old:], nil
		case err == io.EOF || err == io.ErrUnexpectedEOF:
			if len(s.buf) == 0 {
				return nil, io.EOF // a clean end between frames
			}
			return nil, errTornFrame
		default:
			return nil, err
		}
	}
	bad := func(format string, args ...any) ([]byte, int64, error) {
		return nil, start, &frameError{offset: start, msg: fmt.Sprintf(format, args...)}
	}
	magic, err := read(4)
	if err == io.EOF {
		return nil, start, io.EOF
	}
	if err != nil {
		return s.buf, start, err
	}
	if m := binary.LittleEndian.Uint32(magic); m != zstdMagic {
		return bad("bad zstd magic 0x%08X at byte %d (skippable or foreign frames are not accepted)", m, start)
	}
	fhd, err := read(1)
	if err != nil {
		return s.buf, start, err
	}
	desc := fhd[0]
	if desc&0x18 != 0 {
		return bad("zstd frame at byte %d sets reserved descriptor bits (0x%02X)", start, desc)
	}
	singleSegment := desc&0x20 != 0
	checksum := desc&0x04 != 0
	n := 0
	if !singleSegment {
		n++ // window descriptor
	}
	n += []int{0, 1, 2, 4}[desc&0x03] // dictionary id
	switch desc >> 6 {
	case 0:
		if singleSegment {
			n++
		}
	case 1:
		n += 2
	case 2:
		n += 4
	case 3:
		n += 8
	}
	if _, err := read(n); err != nil {
		return s.buf, start, err
	}
	for {
		bh, err := read(3)
		if err != nil {
			return s.buf, start, err
		}
		h := uint32(bh[0]) | uint32(bh[1])<<8 | uint32(bh[2])<<16
		last := h&1 != 0
		size := int(h >> 3)
		switch (h >> 1) & 3 {
		case 1: // RLE: one byte repeated size times
			size = 1
		case 3:
			return bad("zstd frame at byte %d has a block of reserved type 3", start)
		}
		if size > maxBlockSize {
			return bad("zstd frame at byte %d has a block of %d bytes (limit %d)", start, size, maxBlockSize)
		}
		if _, err := read(size); err != nil {
			return s.buf, start, err
		}
		if last {
			break
		}
	}
	if checksum {
		if _, err := read(4); err != nil {
			return s.buf, start, err
		}
	}
	return s.buf, start, nil
}
