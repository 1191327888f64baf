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

// readRegular reads a regular file of at most max bytes.
func readRegular(path string, max int64) ([]byte, os.FileInfo, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fi, fmt.Errorf("%s: %w (%s)", path, ErrNotRegular, fi.Mode().Type())
	}
	if fi.Size() > max {
		return nil, fi, fmt.Errorf("%s: %d bytes: %w of %d bytes", path, fi.Size(), ErrTooLarge, max)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fi, err
	}
	defer f.Close()
	// Read through a limit, since the file may have grown since Lstat.
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fi, err
	}
	if int64(len(data)) > max {
		return nil, fi, fmt.Errorf("%s: %w of %d bytes", path, ErrTooLarge, max)
	}
	return data, fi, nil
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
