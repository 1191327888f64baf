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
// tooLarge marks a frame refused for its size rather than its structure (msg then
// says what about it, to follow "frame N at byte X"); torn tells whether the file
// ended inside it.
type frameError struct {
	offset   int64
	msg      string
	tooLarge bool
	torn     bool
}

func (e *frameError) Error() string { return e.msg }

// frameInfo is what scanning a frame tells about its decoded size without decoding
// it: raw and RLE blocks decode to exactly their size, a compressed block to at most
// one block (Block_Maximum_Size, RFC 8878 §3.1.1.2.4).
type frameInfo struct {
	lower uint64 // the frame decodes to at least this many bytes
	upper uint64 // and to at most this many
}

// frameScanner splits a .jsonl.zstd stream into whole frames without decoding them,
// by walking frame headers and block headers (RFC 8878 §3.1.1). Splitting first lets
// every frame be decoded and checksum-verified on its own, and tells a torn final
// frame (recoverable) from damage inside a complete one (corrupt).
//
// max bounds a frame's decoded size. A frame whose header declares more content or a
// larger window, whose raw and RLE blocks alone pass max, or whose compressed bytes
// pass what max bytes of content can take, is refused before its bytes are held.
type frameScanner struct {
	r      *bufio.Reader
	offset int64 // physical offset of the next frame
	buf    []byte
	max    uint64
	info   frameInfo // of the frame next returned
}

// maxCompressed is the most compressed bytes a frame of max decoded bytes needs: a
// frame of raw blocks (compression never pays) plus every block header, the frame
// header and the checksum.
func maxCompressed(max uint64) uint64 {
	return max + (max/maxBlockSize+1)*3 + 18 + 4
}

// scanBufKeep is the largest frame buffer kept for the next frame; a larger one (a
// big frame) is let go, so one big frame does not pin its size for the whole file.
const scanBufKeep = 1 << 20

// next returns the raw bytes of the next frame and its offset. At a clean end of
// input it returns io.EOF. A frame cut short returns the partial bytes and
// errTornFrame. Structural damage, or a frame past the size limit, returns a
// *frameError.
func (s *frameScanner) next() ([]byte, int64, error) {
	start := s.offset
	if cap(s.buf) > scanBufKeep {
		s.buf = nil
	}
	s.buf = s.buf[:0]
	s.info = frameInfo{}
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
	// tooLarge refuses the frame. The rest of it is skipped, never held, to learn
	// whether the file ends inside it (a torn final frame is an uncommitted tail).
	tooLarge := func(skip func() (bool, error), format string, args ...any) ([]byte, int64, error) {
		torn, err := skip()
		if err != nil {
			return nil, start, err
		}
		s.buf = nil
		return nil, start, &frameError{offset: start, msg: fmt.Sprintf(format, args...), tooLarge: true, torn: torn}
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
	didLen := []int{0, 1, 2, 4}[desc&0x03]
	fcsLen := []int{0, 2, 4, 8}[desc>>6]
	if fcsLen == 0 && singleSegment {
		fcsLen = 1
	}
	n := didLen + fcsLen
	if !singleSegment {
		n++ // window descriptor
	}
	hdr, err := read(n)
	if err != nil {
		return s.buf, start, err
	}
	skip := func() (bool, error) { return s.skipBlocks(checksum) }
	window := uint64(0)
	if !singleSegment {
		// Window_Descriptor: exponent and mantissa (RFC 8878 §3.1.1.1.2).
		wd := hdr[0]
		base := uint64(1) << (10 + wd>>3)
		window = base + base/8*uint64(wd&7)
		if window > s.max {
			return tooLarge(skip, "needs a window of %d bytes, over the limit of %d bytes", window, s.max)
		}
	}
	fcs := uint64(0)
	hasFCS := fcsLen > 0
	if hasFCS {
		b := hdr[n-fcsLen:]
		for i := fcsLen - 1; i >= 0; i-- {
			fcs = fcs<<8 | uint64(b[i])
		}
		if fcsLen == 2 {
			fcs += 256
		}
		if fcs > s.max {
			return tooLarge(skip, "declares %d bytes of content, over the limit of %d bytes", fcs, s.max)
		}
	}
	blockMax := uint64(maxBlockSize)
	if !singleSegment && window < blockMax {
		blockMax = window
	}
	compressedMax := maxCompressed(s.max)
	for {
		bh, err := read(3)
		if err != nil {
			return s.buf, start, err
		}
		last, typ, size := blockHeader(bh)
		switch typ {
		case 0: // raw
			s.info.lower += uint64(size)
			s.info.upper += uint64(size)
		case 1: // RLE: one byte repeated size times
			if size > maxBlockSize {
				return bad("zstd frame at byte %d has an RLE block of %d bytes (limit %d)", start, size, maxBlockSize)
			}
			s.info.lower += uint64(size)
			s.info.upper += uint64(size)
			size = 1
		case 2: // compressed
			s.info.upper += blockMax
		case 3:
			return bad("zstd frame at byte %d has a block of reserved type 3", start)
		}
		if size > maxBlockSize {
			return bad("zstd frame at byte %d has a block of %d bytes (limit %d)", start, size, maxBlockSize)
		}
		if s.info.lower > s.max {
			return tooLarge(func() (bool, error) { return s.skipRest(size, last, checksum) },
				"decodes to more than %d bytes (the limit)", s.max)
		}
		if uint64(len(s.buf)+size) > compressedMax {
			return tooLarge(func() (bool, error) { return s.skipRest(size, last, checksum) },
				"has more than %d compressed bytes, more than %d bytes of content can take", compressedMax, s.max)
		}
		if _, err := read(size); err != nil {
			return s.buf, start, err
		}
		if last {
			break
		}
	}
	if hasFCS && s.info.upper > fcs {
		s.info.upper = fcs
	}
	if checksum {
		if _, err := read(4); err != nil {
			return s.buf, start, err
		}
	}
	return s.buf, start, nil
}

// blockHeader decodes a 3-byte block header (RFC 8878 §3.1.1.2.1): whether the
// block is the frame's last, its type (0 raw, 1 RLE, 2 compressed, 3 reserved) and
// its Block_Size.
func blockHeader(b []byte) (last bool, typ uint32, size int) {
	h := uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16
	return h&1 != 0, (h >> 1) & 3, int(h >> 3)
}

// skipRest skips a refused frame's current block (whose header has been read) and
// the blocks after it; see skipBlocks.
func (s *frameScanner) skipRest(size int, last, checksum bool) (bool, error) {
	if torn, err := s.discard(size); torn || err != nil {
		return torn, err
	}
	if last {
		return s.discardChecksum(checksum)
	}
	return s.skipBlocks(checksum)
}

// skipBlocks skips a refused frame's blocks up to its end without holding them. It
// reports whether the input ended inside the frame. Damage in the skipped blocks is
// not reported: the frame is refused already.
func (s *frameScanner) skipBlocks(checksum bool) (bool, error) {
	var bh [3]byte
	for {
		got, err := io.ReadFull(s.r, bh[:])
		s.offset += int64(got)
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return true, nil
		}
		if err != nil {
			return false, err
		}
		last, typ, size := blockHeader(bh[:])
		if typ == 1 { // RLE: one byte
			size = 1
		}
		if torn, err := s.discard(size); torn || err != nil {
			return torn, err
		}
		if last {
			return s.discardChecksum(checksum)
		}
	}
}

func (s *frameScanner) discardChecksum(checksum bool) (bool, error) {
	if !checksum {
		return false, nil
	}
	return s.discard(4)
}

// discard skips n bytes; torn reports that the input ended first.
func (s *frameScanner) discard(n int) (torn bool, err error) {
	got, err := s.r.Discard(n)
	s.offset += int64(got)
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return true, nil
	}
	return false, err
}
