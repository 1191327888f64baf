// Package newfile writes the files an export creates: a file that must not
// exist yet, written whole or not at all. The store's export of a session's
// original files and openhands.Export share it.
package newfile

import (
	"errors"
	"fmt"
	"os"
)

// Write writes data to dst, which must not exist (an error naming it wraps
// os.ErrExist). A file it could not write in full (a full disk, a failed
// close) is removed rather than left looking like an export.
func Write(dst string, data []byte) error {
	f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return fmt.Errorf("%s exists; the export never overwrites a file: %w", dst, os.ErrExist)
		}
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(dst) // ours: created above
		return err
	}
	return nil
}
