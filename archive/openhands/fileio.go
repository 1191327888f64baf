package openhands

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// DefaultMaxFileSize caps how many bytes Read keeps of one file, JSONL line
// or zip entry. OpenHands events past it are pathological (a base64 image
// dump, a runaway tool output) and would be held in memory whole.
const DefaultMaxFileSize = 64 << 20

// ErrTooLarge is returned for a file, line or entry over the size cap.
var ErrTooLarge = errors.New("openhands: over the size cap")

// ErrNotRegular is returned for a path that is not a regular file (a
// symlink, device, FIFO or socket): reading one could block or leave the root.
var ErrNotRegular = errors.New("openhands: not a regular file")

// readRegularPortable reads a regular file of at most max bytes with the os
// package: Lstat first, so a symlink, FIFO or device is refused unopened.
func readRegularPortable(path string, max int64) ([]byte, os.FileInfo, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, nil, err
	}
	if err := checkRegular(path, fi, max); err != nil {
		return nil, fi, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fi, err
	}
	defer f.Close()
	// Read into a buffer sized from Lstat, so a file costs one read call
	// plus the one that sees EOF; the limit holds even if the file grew.
	data, err := readAllSized(io.LimitReader(f, max+1), fi.Size())
	if err != nil {
		return nil, fi, err
	}
	if int64(len(data)) > max {
		return nil, fi, fmt.Errorf("%s: %w of %d bytes", path, ErrTooLarge, max)
	}
	return data, fi, nil
}

// checkRegular refuses what is not a regular file of at most max bytes.
func checkRegular(path string, fi os.FileInfo, max int64) error {
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s: %w (%s)", path, ErrNotRegular, fi.Mode().Type())
	}
	if fi.Size() > max {
		return fmt.Errorf("%s: %d bytes: %w of %d bytes", path, fi.Size(), ErrTooLarge, max)
	}
	return nil
}

// readAllSized is io.ReadAll starting from a buffer of size+1 bytes.
func readAllSized(r io.Reader, size int64) ([]byte, error) {
	b := make([]byte, 0, size+1)
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
}

// hashOf is the lowercase hex SHA-256 of b.
func hashOf(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func sourceFile(name string, role FileRole, data []byte, mod time.Time) SourceFile {
	return SourceFile{Name: name, Role: role, Size: int64(len(data)), ModTime: mod, Hash: hashOf(data), Data: data}
}

// problemFromReadErr turns a readRegular error into a problem kind.
func problemFromReadErr(err error) ProblemKind {
	switch {
	case errors.Is(err, ErrTooLarge):
		return ProblemTooLarge
	case errors.Is(err, ErrNotRegular):
		return ProblemNotRegular
	}
	return ProblemUnreadable
}
