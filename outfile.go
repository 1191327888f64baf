package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// outFile is a file a command writes for the person (export -o FILE): written to a
// temporary file beside it and renamed into place only when complete, so a failed or
// interrupted write never leaves half a file, and never written through a symbolic
// link. A device or pipe (-o /dev/stdout) is written directly.
type outFile struct {
	*os.File
	path string // where the file goes
	temp bool   // File is a temporary file to rename onto path
}

// createOut opens path for writing. An existing file (or a link, whatever it points
// to) is refused unless force: then the rename replaces it, the link itself rather
// than its target.
func createOut(path string, force bool) (*outFile, error) {
	if lfi, err := os.Lstat(path); err == nil {
		if fi, err := os.Stat(path); err == nil && fi.Mode()&(fs.ModeDevice|fs.ModeCharDevice|fs.ModeNamedPipe) != 0 {
			f, err := os.OpenFile(path, os.O_WRONLY, 0)
			if err != nil {
				return nil, err
			}
			return &outFile{File: f, path: path}, nil
		}
		if !force {
			if lfi.Mode()&fs.ModeSymlink != 0 {
				target, _ := os.Readlink(path)
				return nil, fmt.Errorf("%s is a symbolic link (to %s): not writing through it; add --force to replace the link with the file", path, target)
			}
			if lfi.IsDir() {
				return nil, fmt.Errorf("%s is a directory", path)
			}
			return nil, fmt.Errorf("%s already exists: add --force to replace it", path)
		}
		if lfi.IsDir() {
			return nil, fmt.Errorf("%s is a directory", path)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, err
	}
	return &outFile{File: f, path: path, temp: true}, nil
}

// finish completes the file: on success (err nil) the data is synced and renamed
// into place; otherwise the temporary file is removed and the destination is left
// as it was. It returns err, or the error that finishing met.
func (o *outFile) finish(err error) error {
	if !o.temp {
		if cerr := o.Close(); err == nil {
			err = cerr
		}
		return err
	}
	if err == nil {
		err = o.Sync()
	}
	if cerr := o.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(o.Name(), o.path)
	}
	if err != nil {
		_ = os.Remove(o.Name())
	}
	return err
}
