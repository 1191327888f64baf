package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/logbook/logbook/archive"
)

// progressBar draws import progress on a terminal, redrawing one line in place.
type progressBar struct {
	w     *os.File
	start time.Time
	last  time.Time
	drawn bool
}

func (b *progressBar) update(p archive.Progress) {
	if b == nil || time.Since(b.last) < 100*time.Millisecond {
		return
	}
	b.last = time.Now()
	done := p.DoneBytes + p.FileBytes
	frac := 0.0
	if p.TotalBytes > 0 {
		frac = min(1, float64(done)/float64(p.TotalBytes))
	}
	const width = 30
	fill := int(frac * width)
	rate := float64(done) / max(time.Since(b.start).Seconds(), 0.001) / 1e6
	name := filepath.Base(filepath.Dir(p.File))
	fmt.Fprintf(b.w, "\r\033[K[%s%s] %3.0f%%  file %d/%d  %.1f MB/s  %s",
		strings.Repeat("█", fill), strings.Repeat("░", width-fill), frac*100, p.FileIndex+1, p.Files, rate, clip(name, 40))
	b.drawn = true
}

func (b *progressBar) finish() {
	if b != nil && b.drawn {
		fmt.Fprint(b.w, "\r\033[K")
	}
}

// indexProgress returns a progress bar for indexing on a terminal, or nil.
func (e *env) indexProgress(quiet bool) func(done, total int) {
	f, ok := e.stderr.(*os.File)
	if !ok || !isTerminal(f) || quiet {
		return nil
	}
	bar := &progressBar{w: f, start: time.Now()}
	return func(done, total int) {
		bar.update(archive.Progress{File: "indexing", FileIndex: done, Files: total,
			DoneBytes: int64(done), TotalBytes: int64(total)})
		if done == total {
			bar.finish()
		}
	}
}

// isTerminal reports whether f is a character device (a terminal), for progress bars.
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
