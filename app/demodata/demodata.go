// Package demodata is the demo archive's session logs, generated once and
// embedded, so the product binary does not link the test-log generator
// (archive/dshgen). app/internal/demogen generates them: run `go generate
// ./app/demodata` after changing the demo, and commit what it writes here.
//
// The logs are stored dated from a fixed Base; Write moves every instant in them
// so the demo is dated over the ten days before it is made, as a freshly
// generated one was.
package demodata

//go:generate go run ../internal/demogen/gen .

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/klauspost/compress/zstd"
)

//go:embed manifest.json *.jsonl.zst
var files embed.FS

// ManifestName is the file that lists the logs.
const ManifestName = "manifest.json"

// Manifest lists the demo's logs and the date they are stored at.
type Manifest struct {
	// Base is the instant (epoch ms) the stored logs are dated from: the first
	// session begins there, the others over the days after.
	Base  int64  `json:"base"`
	Files []File `json:"files"`
}

// File is one session log of the demo.
type File struct {
	// Path is where the log goes, relative to the demo's sessions root
	// (<project>/<session>/session.jsonl[.zstd]).
	Path string `json:"path"`
	// Data names the embedded file holding the whole log as plain JSONL,
	// zstd-compressed for storage only.
	Data string `json:"data"`
	// Frames, for a log written as session.jsonl.zstd, is how many lines each of
	// its zstd frames holds (the header alone, then one frame per append batch);
	// nil for a plain log.
	Frames []int `json:"frames,omitempty"`
	// Tear cuts the log in the middle of its last line, as when the agent
	// writing it died, to show how a recovered session looks.
	Tear bool `json:"tear,omitempty"`
}

// window bounds how far after Base an instant in the stored logs may lie; every
// instant of the demo is within days of it.
const window = 90 * 24 * time.Hour

// Base is the instant (epoch ms) a demo made at now is dated from: ten days
// before.
func Base(now time.Time) int64 { return now.Add(-10 * 24 * time.Hour).UnixMilli() }

// ReadManifest returns the embedded manifest.
func ReadManifest() (Manifest, error) {
	var m Manifest
	data, err := files.ReadFile(ManifestName)
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return m, fmt.Errorf("demo manifest: %w", err)
	}
	return m, nil
}

// Write replaces root with the demo's session logs, dated over the ten days
// before now.
func Write(root string, now time.Time) error {
	m, err := ReadManifest()
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	if err := os.RemoveAll(root); err != nil {
		return fmt.Errorf("demo: clear %s: %w", root, err)
	}
	dec, err := zstd.NewReader(nil)
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	defer dec.Close()
	// The settings of the agent's own writer (and of dshgen): a checksum per frame.
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderCRC(true), zstd.WithEncoderConcurrency(1),
		zstd.WithEncoderLevel(zstd.SpeedDefault))
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	defer enc.Close()
	delta := Base(now) - m.Base
	for _, f := range m.Files {
		stored, err := files.ReadFile(f.Data)
		if err != nil {
			return fmt.Errorf("demo: %w", err)
		}
		data, err := dec.DecodeAll(stored, nil)
		if err != nil {
			return fmt.Errorf("demo: %s: %w", f.Data, err)
		}
		Shift(data, m.Base, delta)
		if f.Tear {
			data = tear(data)
		}
		if f.Frames != nil {
			if data, err = frame(enc, data, f.Frames); err != nil {
				return fmt.Errorf("demo: %s: %w", f.Data, err)
			}
		}
		path := filepath.Join(root, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("demo: %w", err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return fmt.Errorf("demo: %w", err)
		}
	}
	return nil
}

// tear keeps the log up to the middle of its last line.
func tear(data []byte) []byte {
	last := bytes.LastIndexByte(bytes.TrimSuffix(data, []byte("\n")), '\n')
	return data[:last+1+(len(data)-last-1)/2]
}

// frame compresses data as one zstd frame per group of lines.
func frame(enc *zstd.Encoder, data []byte, lines []int) ([]byte, error) {
	var out []byte
	for _, n := range lines {
		end := 0
		for range n {
			i := bytes.IndexByte(data[end:], '\n')
			if i < 0 {
				return nil, fmt.Errorf("a frame of %d lines runs past the end of the log", n)
			}
			end += i + 1
		}
		out = enc.EncodeAll(data[:end], out)
		data = data[end:]
	}
	if len(data) > 0 {
		return nil, fmt.Errorf("%d bytes after the last frame", len(data))
	}
	return out, nil
}

// isoLayout is how the logs write an instant inside a string (dsh's
// toISOString).
const isoLayout = "2006-01-02T15:04:05.000Z"

// Shift moves every instant in a log that lies within window after base by delta
// milliseconds, in place: the epoch-millisecond numbers (13 digits, as every
// "time" and "createdAt" is) and the ISO-8601 instants (a schedule's
// "scheduledAt"). Both keep their length, so lines, frames and a torn line's cut
// stay where they were. Any other number, a duration or a count, is far from
// base and left alone.
func Shift(b []byte, base, delta int64) {
	hi := base + window.Milliseconds()
	in := func(ms int64) bool { return ms >= base && ms <= hi }
	for i := 0; i < len(b); {
		if !isDigit(b[i]) {
			i++
			continue
		}
		j := i
		for j < len(b) && isDigit(b[j]) {
			j++
		}
		switch {
		case j-i == 13 && (i == 0 || b[i-1] != '.'):
			ms, err := strconv.ParseInt(string(b[i:j]), 10, 64)
			if s := strconv.FormatInt(ms+delta, 10); err == nil && in(ms) && len(s) == 13 {
				copy(b[i:j], s)
			}
		case j-i == 4 && i+len(isoLayout) <= len(b):
			t, err := time.Parse(isoLayout, string(b[i:i+len(isoLayout)]))
			if s := t.Add(time.Duration(delta) * time.Millisecond).Format(isoLayout); err == nil && in(t.UnixMilli()) && len(s) == len(isoLayout) {
				copy(b[i:], s)
				j = i + len(isoLayout)
			}
		}
		i = j
	}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
