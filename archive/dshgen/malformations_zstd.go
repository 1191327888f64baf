package dshgen

import (
	"bytes"
	"encoding/binary"
	"strconv"

	"github.com/klauspost/compress/zstd"
	"github.com/logbook/logbook/archive/dsh"
)

// zstdMagic is the little-endian zstd frame magic number.
const zstdMagic = 0xFD2FB528

// encodeFrames compresses each logical chunk as one checksummed zstd frame.
func encodeFrames(chunks [][]byte) [][]byte {
	enc, err := newEncoder(zstd.SpeedDefault)
	if err != nil {
		panic(err)
	}
	defer enc.Close()
	out := make([][]byte, len(chunks))
	for i, c := range chunks {
		out[i] = enc.EncodeAll(c, nil)
	}
	return out
}

// batchChunks groups header and records into frame contents using batch ends.
func batchChunks(header []byte, lines [][]byte, ends []int) [][]byte {
	chunks := [][]byte{append(append([]byte(nil), header...), '\n')}
	start := 0
	for _, end := range ends {
		chunks = append(chunks, plain(nil, lines[start:end])[1:])
		start = end
	}
	return chunks
}

// blockOffset returns the offset of the first block header in a zstd frame.
func blockOffset(frame []byte) int {
	fhd := frame[4]
	single := fhd>>5&1 == 1
	off := 5
	if !single {
		off++ // window descriptor
	}
	off += []int{0, 1, 2, 4}[fhd&3]
	switch fhd >> 6 {
	case 0:
		if single {
			off++
		}
	case 1:
		off += 2
	case 2:
		off += 4
	case 3:
		off += 8
	}
	return off
}

// containerCases adds .jsonl.zstd container and framing problems.
func (m *mal) containerCases() {
	frames := encodeFrames(batchChunks(m.header, m.lines, m.ends))
	if len(frames) < 4 {
		panic("dshgen: malformation base log has too few frames")
	}
	join := func(fs [][]byte) []byte { return bytes.Join(fs, nil) }
	edit := func(f int, fn func(b []byte) []byte) []byte {
		fs := append([][]byte(nil), frames...)
		fs[f] = fn(append([]byte(nil), frames[f]...))
		return join(fs)
	}
	mid := len(frames) / 2
	last := len(frames) - 1
	corrupt := func(name string, k dsh.Kind, data []byte) {
		m.add("zstd/"+name, true, data, dsh.VerdictCorrupt, k, -1)
	}
	m.add("zstd/empty-file", true, nil, dsh.VerdictCorrupt, dsh.KindEmptyFile, 0)
	corrupt("bad-magic-header-frame", dsh.KindBadFrame, edit(0, func(b []byte) []byte { b[0] ^= 0xFF; return b }))
	corrupt("bad-magic-middle-frame", dsh.KindBadFrame, edit(mid, func(b []byte) []byte { b[3] = 0x00; return b }))
	skippable := make([]byte, 12)
	binary.LittleEndian.PutUint32(skippable, 0x184D2A50)
	binary.LittleEndian.PutUint32(skippable[4:], 4)
	corrupt("skippable-frame", dsh.KindBadFrame, edit(mid, func(b []byte) []byte { return append(skippable, b...) }))
	corrupt("reserved-descriptor-bit", dsh.KindBadFrame, edit(mid, func(b []byte) []byte { b[4] |= 0x08; return b }))
	corrupt("reserved-block-type", dsh.KindBadFrame, edit(mid, func(b []byte) []byte {
		b[blockOffset(b)] |= 0x06
		return b
	}))
	corrupt("checksum-mismatch", dsh.KindBadChecksum, edit(mid, func(b []byte) []byte { b[len(b)-1] ^= 0xFF; return b }))
	corrupt("checksum-mismatch-last-frame", dsh.KindBadChecksum, edit(last, func(b []byte) []byte { b[len(b)-2] ^= 0x5A; return b }))
	corrupt("corrupt-compressed-data", dsh.KindBadFrame, edit(mid, garbleFirstBlock))
	// Frame 0 must hold exactly the header line.
	chunks := batchChunks(m.header, m.lines, m.ends)
	two := append([][]byte{append(append([]byte(nil), chunks[0]...), chunks[1]...)}, chunks[2:]...)
	corrupt("header-frame-two-lines", dsh.KindBadFrame, join(encodeFrames(two)))
	noNL := append([][]byte{m.header, append([]byte{'\n'}, chunks[1]...)}, chunks[2:]...)
	corrupt("header-frame-no-newline", dsh.KindBadFrame, join(encodeFrames(noNL)))
	m.add("zstd/only-torn-header-frame", true, frames[0][:len(frames[0])-7], dsh.VerdictCorrupt, dsh.KindBadHeader, -1)
	// A complete frame must end on a record boundary.
	split := append([][]byte(nil), chunks...)
	cut := len(split[mid]) / 2
	split[mid], split[mid+1] = split[mid][:cut], append(append([]byte(nil), split[mid][cut:]...), split[mid+1]...)
	corrupt("frame-ends-mid-record", dsh.KindBadFrame, join(encodeFrames(split)))
	lastCut := append([][]byte(nil), chunks...)
	lastCut[last] = lastCut[last][:len(lastCut[last])-3]
	corrupt("last-frame-ends-mid-record", dsh.KindBadFrame, join(encodeFrames(lastCut)))
	// Torn final frame (EOF inside the last frame) is recoverable.
	whole := join(frames)
	tornAt := len(whole) - len(frames[last])/2
	m.add("zstd/torn-last-frame", true, whole[:tornAt], dsh.VerdictRecovered, dsh.KindTornTail, -1)
	m.add("zstd/torn-last-frame-header", true, whole[:len(whole)-len(frames[last])+3], dsh.VerdictRecovered, dsh.KindTornTail, -1)
	m.add("zstd/torn-last-frame-checksum", true, whole[:len(whole)-2], dsh.VerdictRecovered, dsh.KindTornTail, -1)
	m.add("zstd/cut-at-frame-boundary", true, whole[:len(whole)-len(frames[last])], dsh.VerdictOK, "", 0)
	// Record-level problems inside complete frames are fatal even at the end.
	lastLine := len(m.lines) - 1
	badLast := with(m.lines, lastLine, []byte("not json"))
	m.add("zstd/bad-json-in-last-frame", true, join(encodeFrames(batchChunks(m.header, badLast, m.ends))),
		dsh.VerdictCorrupt, dsh.KindBadJSON, int64(lastLine)+2)
	gap := with(m.lines, m.midIdx, []byte(ev("plan/mode", m.midSeq+1, `{"active":true}`, "")))
	m.add("zstd/seq-gap-in-frame", true, join(encodeFrames(batchChunks(m.header, gap, m.ends))),
		dsh.VerdictCorrupt, dsh.KindSeqGap, int64(m.midIdx)+2)
	row := with(m.lines, lastLine, []byte(`{"type":"text-chunks","seq0":`+strconv.FormatInt(m.n-1, 10)+
		`,"time0":`+malTime+`,"data":{"turn":1,"step":1,"index":0,"dt":[1],"texts":["a","b","c"]}}`))
	m.add("zstd/malformed-row-in-last-frame", true, join(encodeFrames(batchChunks(m.header, row, m.ends))),
		dsh.VerdictCorrupt, dsh.KindMalformedPackedRow, int64(lastLine)+2)
	hdr := func(h string) []byte {
		fs := append([][]byte(nil), frames...)
		fs[0] = encodeFrames([][]byte{[]byte(h + "\n")})[0]
		return join(fs)
	}
	m.add("zstd/header-not-json", true, hdr(`{"type":"session"`), dsh.VerdictCorrupt, dsh.KindBadHeader, 1)
	m.add("zstd/header-version-1", true, hdr(`{"type":"session","version":1,"id":"session-malformed","createdAt":1,"delegationDepth":0}`),
		dsh.VerdictUnsupported, dsh.KindUnsupportedVersion, 1)
	m.add("zstd/seed-length-exceeds-events", true, hdr(`{"type":"session","version":0,"id":"session-malformed","createdAt":1786901809409,"cwd":"/home/u/proj","seedLength":`+
		strconv.FormatInt(m.n+1, 10)+`,"delegationDepth":0}`), dsh.VerdictCorrupt, dsh.KindSeedLength, 1)
}

// garbleFirstBlock turns the first block of a frame into a compressed block whose
// literals section is undecodable (a treeless literals block with no previous table).
func garbleFirstBlock(b []byte) []byte {
	off := blockOffset(b)
	h := uint32(b[off]) | uint32(b[off+1])<<8 | uint32(b[off+2])<<16
	size := int(h >> 3)
	h = h&^0x6 | 2<<1 // block type: compressed
	b[off], b[off+1], b[off+2] = byte(h), byte(h>>8), byte(h>>16)
	for i := off + 3; i < off+3+size && i < len(b); i++ {
		b[i] = 0xFF
	}
	return b
}
