//go:build linux

package openhands

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// readRegular reads a regular file of at most max bytes in four system
// calls: open (O_NOFOLLOW refuses a symlink, O_NONBLOCK keeps a FIFO from
// blocking), fstat, one read and close. Folders of thousands of small event
// files make the per-file call count the cost that matters; the os package
// would add an lstat, a poller registration and an EOF read.
func readRegular(path string, max int64) ([]byte, os.FileInfo, error) {
	return readRegularAt(folder{fd: atFDCWD}, path, max)
}

// atFDCWD is AT_FDCWD: openat relative to the working folder.
const atFDCWD = -0x64

// folder is an open folder whose files readRegularAt opens by their names
// inside it, so that the kernel resolves the folder's path once, not once a
// file (a conversation's events/ holds thousands).
type folder struct {
	path string
	fd   int
}

// openFolder opens dir for readRegularAt; close it with close. A folder that
// cannot be opened is read by path.
func openFolder(dir string) folder {
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return folder{path: dir, fd: atFDCWD}
	}
	return folder{path: dir, fd: fd}
}

func (d folder) close() {
	if d.fd != atFDCWD {
		syscall.Close(d.fd)
	}
}

// readRegularAt is readRegular for the file name (slash-separated, relative)
// inside the folder d.
func readRegularAt(d folder, name string, max int64) ([]byte, os.FileInfo, error) {
	path := name
	if d.fd == atFDCWD {
		path = filepath.Join(d.path, filepath.FromSlash(name))
	}
	var fd int
	var err error
	for {
		fd, err = syscall.Openat(d.fd, path, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if d.fd != atFDCWD {
		path = filepath.Join(d.path, filepath.FromSlash(name)) // for errors
	}
	if err == syscall.ELOOP || err == syscall.ENXIO {
		// A symlink (ELOOP) or a socket (ENXIO): let Lstat name it.
		return readRegularPortable(path, max)
	}
	if err != nil {
		return nil, nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, nil, &os.PathError{Op: "fstat", Path: path, Err: err}
	}
	fi := statInfo{name: path, st: st}
	if err := checkRegular(path, fi, max); err != nil {
		return nil, fi, err
	}
	// One byte more than the size: a short read is EOF, a full one means
	// the file grew and the loop goes on, bounded by max.
	buf := make([]byte, st.Size+1)
	n := 0
	for {
		m, err := syscall.Read(fd, buf[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, fi, &os.PathError{Op: "read", Path: path, Err: err}
		}
		n += m
		if m == 0 || n < len(buf) {
			break
		}
		if int64(n) > max {
			return nil, fi, fmt.Errorf("%s: %w of %d bytes", path, ErrTooLarge, max)
		}
		buf = append(buf, make([]byte, len(buf))...)
	}
	if int64(n) > max {
		return nil, fi, fmt.Errorf("%s: %w of %d bytes", path, ErrTooLarge, max)
	}
	return buf[:n], fi, nil
}

// statInfo is an os.FileInfo over a syscall.Stat_t.
type statInfo struct {
	name string
	st   syscall.Stat_t
}

func (s statInfo) Name() string { return s.name }
func (s statInfo) Size() int64  { return s.st.Size }
func (s statInfo) Mode() os.FileMode {
	m := os.FileMode(s.st.Mode & 0o777)
	switch s.st.Mode & syscall.S_IFMT {
	case syscall.S_IFDIR:
		m |= os.ModeDir
	case syscall.S_IFLNK:
		m |= os.ModeSymlink
	case syscall.S_IFIFO:
		m |= os.ModeNamedPipe
	case syscall.S_IFSOCK:
		m |= os.ModeSocket
	case syscall.S_IFCHR:
		m |= os.ModeDevice | os.ModeCharDevice
	case syscall.S_IFBLK:
		m |= os.ModeDevice
	}
	return m
}
func (s statInfo) ModTime() time.Time { return time.Unix(s.st.Mtim.Unix()) }
func (s statInfo) IsDir() bool        { return s.Mode().IsDir() }
func (s statInfo) Sys() any           { return &s.st }
