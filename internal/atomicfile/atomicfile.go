// Package atomicfile writes small settings files so that a crash never leaves a
// half-written one: the app's import settings and the scheduler's configuration.
package atomicfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Write replaces path with data (mode 0600) through a temporary file and
// a rename, so a crash never leaves a half-written settings file.
func Write(path string, data []byte) error {
	return WriteN(path, bytes.NewReader(data), int64(len(data)))
}

// WriteN replaces path with the next n bytes of r (mode 0600), streamed
// through a temporary file and a rename, so a crash never leaves a
// half-written file and memory stays bounded whatever n is. When r ends
// before n bytes, the error is io.ErrUnexpectedEOF and path is unchanged.
func WriteN(path string, r io.Reader, n int64) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	if _, err := io.CopyN(tmp, r, n); err != nil {
		tmp.Close()
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("rename %s: %w", filepath.Base(path), err)
	}
	return nil
}
