package index

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"unsafe"

	"golang.org/x/sys/unix"
)

// releasePages drops this process's page-table entries for each of segs, the
// memory maps of segment files in dir, and returns how many it released. A
// slice is released only if /proc/self/maps shows a mapping of a file in dir
// starting at its first byte and covering it: never memory that is not a
// segment file's map. For a shared file mapping, MADV_DONTNEED leaves the data
// in the page cache, and the next read maps it again.
func releasePages(dir string, segs [][]byte) int {
	if len(segs) == 0 {
		return 0
	}
	maps, err := fileMaps(dir)
	if err != nil {
		return 0
	}
	n := 0
	for _, b := range segs {
		start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
		end, ok := maps[start]
		if !ok || start+uintptr(len(b)) > end {
			continue
		}
		if unix.Madvise(b, unix.MADV_DONTNEED) == nil {
			n++
		}
	}
	return n
}

// fileMaps returns the start and end addresses of this process's mappings of
// files in dir, from /proc/self/maps.
func fileMaps(dir string) (map[uintptr]uintptr, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real // /proc names the file by its resolved path
	}
	prefix := []byte(abs + string(filepath.Separator))
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[uintptr]uintptr{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		// start-end perms offset dev inode path
		line := sc.Bytes()
		i := bytes.IndexByte(line, '/')
		if i < 0 || !bytes.HasPrefix(line[i:], prefix) {
			continue
		}
		addr, _, _ := bytes.Cut(line, []byte{' '})
		lo, hi, ok := bytes.Cut(addr, []byte{'-'})
		if !ok {
			continue
		}
		start, err1 := strconv.ParseUint(string(lo), 16, 64)
		end, err2 := strconv.ParseUint(string(hi), 16, 64)
		if err1 == nil && err2 == nil {
			out[uintptr(start)] = uintptr(end)
		}
	}
	return out, sc.Err()
}

// residentFileBytes returns the process's resident file-backed memory, RssFile
// of /proc/self/status: the binary's own pages and the segment maps' (SQLite
// keeps its pages on the heap). Reading it costs some tens of microseconds.
func residentFileBytes() (int64, bool) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	for line := range bytes.Lines(b) {
		rest, ok := bytes.CutPrefix(line, []byte("RssFile:"))
		if !ok {
			continue
		}
		kb, err := strconv.ParseInt(string(bytes.TrimSuffix(bytes.TrimSpace(rest), []byte(" kB"))), 10, 64)
		if err != nil {
			return 0, false
		}
		return kb << 10, true
	}
	return 0, false
}
