package export

import (
	"bytes"
	"context"
	"io"

	"github.com/klauspost/compress/zstd"

	"github.com/logbook/logbook/archive"
)

// A dsh log written compressed that ends in a torn zstd frame (a live session's
// state between two appends) is archived as its logical JSONL, the complete
// records the torn frame held included, with the torn frame's bytes kept aside.
// planTorn and tornLog.write rebuild a log that imports the same: frame 0 the header line, one
// frame of the records before the torn frame's, then the torn frame as kept, which
// decodes to the same complete records and the same torn one.

// tornLog is how to write that log.
type tornLog struct {
	head         []byte // the header line
	header, body int64  // where the records start, and where the torn frame's start
	torn         []byte // the torn frame as kept
}

// planTorn reads session id's log once to see whether it ends with what the torn
// frame decodes to, as it does when the frame is the file's last; nil when not
// (the file moved on since).
func planTorn(ctx context.Context, s *archive.Store, id string, torn []byte) (*tornLog, error) {
	if !bytes.HasPrefix(torn, zstdMagic) {
		return nil, nil
	}
	dec, err := zstd.NewReader(bytes.NewReader(torn), zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
	if err != nil {
		return nil, err
	}
	prefix, _ := io.ReadAll(io.LimitReader(dec, 64<<20)) // torn: it ends in an error
	dec.Close()
	records := prefix[:bytes.LastIndexByte(prefix, '\n')+1]

	scan := &logShape{keep: len(records)}
	if err := s.ExportJSONL(ctx, id, scan); err != nil {
		return nil, err
	}
	body := scan.n - int64(len(records))
	if !bytes.Equal(scan.last, records) || body < scan.header || scan.header == 0 {
		return nil, nil
	}
	return &tornLog{head: scan.head, header: scan.header, body: body, torn: torn}, nil
}

// write writes the log: the header's frame, one frame of the records before the
// torn frame's, then the torn frame.
func (t *tornLog) write(ctx context.Context, s *archive.Store, id string, w io.Writer) error {
	head, err := zstd.NewWriter(nil, zstd.WithEncoderCRC(true), zstd.WithEncoderConcurrency(1))
	if err != nil {
		return err
	}
	frame0 := head.EncodeAll(t.head, nil)
	head.Close()
	if _, err := w.Write(frame0); err != nil {
		return err
	}
	if t.body > t.header {
		sw, err := zstd.NewWriter(w, zstd.WithEncoderCRC(true), zstd.WithEncoderConcurrency(1))
		if err != nil {
			return err
		}
		err = s.ExportJSONL(ctx, id, &window{w: sw, from: t.header, to: t.body})
		if cerr := sw.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	_, err = w.Write(t.torn)
	return err
}

// logShape measures a logical JSONL stream: its length, its header line (and
// that line's length), and its last keep bytes.
type logShape struct {
	n, header int64
	head      []byte // the header line
	keep      int
	last      []byte
}

func (l *logShape) Write(p []byte) (int, error) {
	if l.header == 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			l.head = append(l.head, p...)
		} else {
			l.head = append(l.head, p[:i+1]...)
			l.header = l.n + int64(i) + 1
		}
	}
	l.n += int64(len(p))
	l.last = append(l.last, p...)
	if len(l.last) > l.keep {
		l.last = append(l.last[:0], l.last[len(l.last)-l.keep:]...)
	}
	return len(p), nil
}

// window passes on bytes [from, to) of what is written to it to w.
type window struct {
	w        io.Writer
	n        int64
	from, to int64
}

func (c *window) Write(p []byte) (int, error) {
	start, end := c.n, c.n+int64(len(p))
	c.n = end
	lo, hi := max(start, c.from), min(end, c.to)
	if lo < hi {
		if _, err := c.w.Write(p[lo-start : hi-start]); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}
