package archive

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
)

// sumChunk is the span of file bytes each prefix sum covers.
const sumChunk = 1 << 20

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// prefixSums returns the CRC-32C of each sumChunk of f's bytes before off, the last
// over a partial chunk (see files.prefix_sums). The whole chunks of prev, the sums
// of the same file's first prevOff bytes, are reused: those bytes were read and
// checked already, so a file that grows is only read from its last whole chunk on.
func prefixSums(f *os.File, off int64, prev []byte, prevOff int64) ([]byte, error) {
	keep := min(prevOff/sumChunk, off/sumChunk, int64(len(prev)/4))
	out := make([]byte, 0, 4*(off/sumChunk+1))
	out = append(out, prev[:4*keep]...)
	// A buffer no larger than the bytes to sum: most session files are far
	// smaller than a chunk, and a zeroed 1 MiB per file was most of the cost of
	// importing many small sessions.
	buf := make([]byte, max(0, min(sumChunk, off-keep*sumChunk)))
	for pos := keep * sumChunk; pos < off; pos += sumChunk {
		n := min(sumChunk, off-pos)
		if _, err := f.ReadAt(buf[:n], pos); err != nil {
			if errors.Is(err, io.EOF) {
				return nil, fmt.Errorf("sum committed bytes: the file is shorter than its committed %d bytes", off)
			}
			return nil, fmt.Errorf("sum committed bytes: %w", err)
		}
		out = binary.BigEndian.AppendUint32(out, crc32.Checksum(buf[:n], castagnoli))
	}
	return out, nil
}

// samePrefix reports whether f's first off bytes still have the sums recorded
// for them. A file shorter than off has not. It reads the prefix once, a chunk at
// a time, and stops at the first chunk that differs.
func samePrefix(f *os.File, size, off int64, sums []byte) (bool, error) {
	if size < off || int64(len(sums)) != 4*((off+sumChunk-1)/sumChunk) {
		return false, nil
	}
	buf := make([]byte, min(sumChunk, off))
	for i := int64(0); i*sumChunk < off; i++ {
		pos := i * sumChunk
		n := min(sumChunk, off-pos)
		if _, err := f.ReadAt(buf[:n], pos); err != nil {
			if errors.Is(err, io.EOF) {
				return false, nil // shrank since the stat
			}
			return false, fmt.Errorf("check committed bytes: %w", err)
		}
		if crc32.Checksum(buf[:n], castagnoli) != binary.BigEndian.Uint32(sums[4*i:]) {
			return false, nil
		}
	}
	return true, nil
}
