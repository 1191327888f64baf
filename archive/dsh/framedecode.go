package dsh

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"
)

// sharedFrameMax is the largest decoded size (by the scan's upper bound) of a frame
// handed to Options.Decoder; see loadFrame.
const sharedFrameMax = 4 << 20

// nextFrameLine serves lines out of decoded frames, decoding the next frame when the
// current one is used up.
func (r *Reader) nextFrameLine() ([]byte, bool, error) {
	for r.framePos >= len(r.frame) {
		if r.frameTorn {
			r.dropTail(VerdictRecovered, &Problem{Kind: KindTornTail, Line: r.pos.Line + 1, Offset: r.frameStart,
				Message: fmt.Sprintf("frame %d at byte %d is cut short by the end of the file; its complete records were kept and the partial record from line %d was dropped", r.frameIdx, r.frameStart, r.pos.Line+1)})
			return nil, false, nil
		}
		if err := r.loadFrame(); err != nil || r.done {
			return nil, false, err
		}
		if r.frame == nil {
			return nil, false, nil
		}
	}
	rest := r.frame[r.framePos:]
	i := bytes.IndexByte(rest, '\n')
	if i < 0 {
		// Only a torn frame keeps a partial record; loadFrame rejects it elsewhere.
		r.framePos = len(r.frame)
		return rest, false, nil
	}
	r.framePos += i + 1
	r.pos.LogicalOffset += int64(i + 1)
	r.pos.Line++
	if r.framePos >= len(r.frame) && !r.frameTorn {
		r.pos.Offset = r.frames.offset
		r.pos.Frame = r.frameIdx + 1
	}
	if i > r.opts.MaxLineBytes {
		// Possible only with a line limit below the frame limit; the frame is in
		// memory already, but the line goes no further.
		r.tooLong = skippedLine{length: int64(i), newline: true}
		return nil, false, errLineTooLong
	}
	r.lineOwned = r.frameOwned
	return rest[:i], true, nil
}

// frameReuseMax is the largest decoded frame buffer reused for the next frame. A
// larger one is let go of: its lines go to detached records as they are, and one big
// frame does not pin its size for the rest of the file.
const frameReuseMax = 1 << 20

// loadFrame reads and decodes the next frame. It sets r.frame to nil at a clean end.
func (r *Reader) loadFrame() error {
	raw, start, err := r.frames.next()
	r.frameStart = start
	r.frameIdx++
	// Detached records own copies of their lines, so the last frame's buffer can
	// take the next one: a fresh buffer per frame was as many bytes allocated as the
	// file holds. The header frame's is never reused, as the header keeps its line.
	var reuse []byte
	if r.opts.Detached && r.frameIdx > 1 && !r.frameOwned {
		reuse = r.frame[:0]
	}
	r.frame, r.framePos, r.frameOwned = nil, 0, false
	line := r.pos.Line + 1
	info := r.frames.info
	switch {
	case err == io.EOF:
		return nil
	case errors.Is(err, errTornFrame):
		r.frameTorn = true
		var p *Problem
		r.frame, p = r.decodePartial(raw, info, line, start)
		r.frameOwned = true
		if r.frameIdx == 0 {
			r.fail(VerdictCorrupt, &Problem{Kind: KindBadHeader, Line: 1, Offset: start,
				Message: "the header frame is incomplete: the file ends inside frame 0"})
			return nil
		}
		if p != nil {
			r.dropTail(VerdictRecovered, p)
			return nil
		}
		if len(r.frame) == 0 {
			r.dropTail(VerdictRecovered, &Problem{Kind: KindTornTail, Line: line, Offset: start,
				Message: fmt.Sprintf("frame %d at byte %d is cut short by the end of the file and holds no complete record; dropped", r.frameIdx, start)})
			return nil
		}
		return nil
	case err != nil:
		var fe *frameError
		if errors.As(err, &fe) {
			if fe.tooLarge {
				p := r.frameTooLarge(line, start, "%s; it was refused without being decoded", fe.msg)
				if fe.torn && r.frameIdx > 0 {
					// The final frame, cut short: an uncommitted tail, as any torn frame.
					p.Message += " (the file ends inside it, so it is an uncommitted tail)"
					r.dropTail(VerdictRecovered, p)
					return nil
				}
				r.fail(VerdictCorrupt, p)
				return nil
			}
			r.fail(VerdictCorrupt, &Problem{Kind: KindBadFrame, Line: line, Offset: start,
				Message: fmt.Sprintf("frame %d: %s", r.frameIdx, fe.msg)})
			return nil
		}
		return fmt.Errorf("read frame %d: %w", r.frameIdx, err)
	}
	out, err := r.decodeFrame(raw, info, reuse)
	switch {
	case errors.Is(err, zstd.ErrDecoderSizeExceeded) || (err == nil && uint64(len(out)) > r.opts.MaxFrameBytes):
		r.fail(VerdictCorrupt, r.frameTooLarge(line, start, "decodes to more than %d bytes (the limit); decoding stopped there", r.opts.MaxFrameBytes))
		return nil
	case err != nil:
		kind, what := KindBadFrame, "cannot be decompressed"
		if errors.Is(err, zstd.ErrCRCMismatch) {
			kind, what = KindBadChecksum, "fails its content checksum"
		}
		r.fail(VerdictCorrupt, &Problem{Kind: kind, Line: line, Offset: start,
			Message: fmt.Sprintf("frame %d at byte %d %s: %v", r.frameIdx, start, what, err)})
		return nil
	}
	if r.frameIdx == 0 && (bytes.IndexByte(out, '\n') != len(out)-1) {
		r.fail(VerdictCorrupt, &Problem{Kind: KindBadFrame, Line: 1, Offset: start,
			Message: "first frame is not exactly one header line"})
		return nil
	}
	if len(out) > 0 && out[len(out)-1] != '\n' {
		partial := line + int64(bytes.Count(out, []byte{'\n'}))
		r.fail(VerdictCorrupt, &Problem{Kind: KindBadFrame, Line: partial, Offset: start,
			Message: fmt.Sprintf("complete frame %d at byte %d ends in the middle of line %d (a torn record inside committed data)", r.frameIdx, start, partial)})
		return nil
	}
	r.frame = out
	r.frameOwned = cap(out) > frameReuseMax
	if len(out) == 0 {
		// An empty frame holds no records; it is committed as it stands.
		r.pos.Offset = r.frames.offset
		r.pos.Frame = r.frameIdx + 1
		r.committed = r.pos
	}
	return nil
}

// frameTooLarge is the problem of a frame refused for its decoded size.
func (r *Reader) frameTooLarge(line, start int64, format string, args ...any) *Problem {
	return &Problem{Kind: KindFrameTooLarge, Line: line, Offset: start,
		Message: fmt.Sprintf("frame %d at byte %d ", r.frameIdx, start) + fmt.Sprintf(format, args...)}
}

// decodeFrame decodes one complete frame. A frame the scan shows to be small goes
// to the shared decoder (Options.Decoder) when there is one. Any other goes to the
// Reader's own, whose output is capped at MaxFrameBytes; a large one is decoded into
// a buffer sized from the scan's bound (never from the frame's own claims) so that
// it never grows: a bomb is stopped at the cap.
func (r *Reader) decodeFrame(raw []byte, info frameInfo, reuse []byte) ([]byte, error) {
	small := info.upper <= min(sharedFrameMax, r.opts.MaxFrameBytes)
	if small && r.opts.Decoder != nil {
		return r.opts.Decoder.DecodeAll(raw, reuse)
	}
	if r.zdec == nil {
		var err error
		if r.zdec, err = newBoundedDecoder(r.opts.MaxFrameBytes); err != nil {
			return nil, err
		}
	}
	if small {
		return r.zdec.DecodeAll(raw, reuse)
	}
	// One block of headroom: the block that passes the cap is decoded in place and
	// then refused, instead of growing the buffer first.
	size := min(info.upper, r.opts.MaxFrameBytes) + maxBlockSize + 64
	return r.zdec.DecodeAll(raw, make([]byte, 0, size))
}

// newBoundedDecoder makes a one-goroutine decoder that refuses to decode more than
// max bytes or to use a window larger than that.
func newBoundedDecoder(max uint64) (*zstd.Decoder, error) {
	d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
		zstd.WithDecoderMaxMemory(max), zstd.WithDecoderMaxWindow(max), zstd.IgnoreChecksum(false))
	if err != nil {
		return nil, fmt.Errorf("zstd decoder: %w", err)
	}
	return d, nil
}

// decodePartial stream-decodes what survives of a torn frame and keeps only complete
// lines, as dsh's repair does. Output past MaxFrameBytes is refused (the problem is
// returned), never held.
func (r *Reader) decodePartial(raw []byte, info frameInfo, line, start int64) ([]byte, *Problem) {
	max := r.opts.MaxFrameBytes
	zr, err := newBoundedDecoder(max)
	if err != nil {
		return nil, nil
	}
	defer zr.Close()
	if err := zr.Reset(bytes.NewReader(raw)); err != nil {
		return nil, nil
	}
	// The scan bounds what the blocks read so far decode to, plus the block cut short.
	// WriteTo, not Read: it passes on each block as it is decoded, before the frame's
	// cut-short end is met.
	out := &cappedBuffer{b: make([]byte, 0, min(info.upper+maxBlockSize, max)), max: int(max)}
	_, err = zr.WriteTo(out) // an error is expected: the frame is cut short
	if errors.Is(err, errFrameOverCap) {
		return nil, r.frameTooLarge(line, start, "decodes to more than %d bytes (the limit) before the end of the file cuts it short; it was dropped", max)
	}
	b := out.b
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		return b[:i+1], nil
	}
	return nil, nil
}

// errFrameOverCap is cappedBuffer's refusal of bytes past its limit.
var errFrameOverCap = errors.New("frame over the size limit")

// cappedBuffer collects at most max bytes and refuses any more.
type cappedBuffer struct {
	b   []byte
	max int
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if len(c.b)+len(p) > c.max {
		return 0, errFrameOverCap
	}
	c.b = append(c.b, p...)
	return len(p), nil
}
