package archive

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/logbook/logbook/archive/format"
)

// DefaultRoots returns the session roots of every format (see formats) that exist
// on this machine, as absolute paths without duplicates.
func DefaultRoots() []string {
	var out []string
	seen := map[string]bool{}
	for _, f := range formats() {
		for _, r := range f.Roots() {
			abs, err := filepath.Abs(r)
			if err != nil || seen[abs] {
				continue
			}
			seen[abs] = true
			if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
				out = append(out, abs)
			}
		}
	}
	return out
}

// Discovered is the result of expanding import paths into session sources.
type Discovered struct {
	Files []string // absolute paths of session sources (files, or folders for a format whose sessions are folders), sorted
	Roots []string // folders that were walked (for "gone upstream" checks)
	// Formats names the format of each source (format.Format.Name), by path.
	Formats map[string]string
	// Bundles are the files named *.logbook found in the walked folders (plain
	// files, or links to them), sorted: Logbook's bundles, perhaps, for the
	// caller to unpack before importing (export.UnpackBundles). Import does
	// nothing with them.
	Bundles []string
	// Problems holds every path that could not be taken, and why, as a problem with
	// a stable kind:
	// not-regular-file for a named pipe, device or socket (named on the command line,
	// or named like a session file inside a walked root), io-error otherwise.
	Problems map[string]*Problem
}

// ErrNotRegular is matched (errors.Is) by every *NotRegularError.
var ErrNotRegular = errors.New("not a regular file")

// NotRegularError reports a path that is not a regular file. Such a path is never
// opened for reading: opening a named pipe blocks until a writer comes, and a device
// such as /dev/zero never ends.
type NotRegularError struct {
	Path string
	What string // what it is instead: "a named pipe (FIFO)", "a character device", …
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s: is %s, not a regular file; it was not read", e.Path, e.What)
}

// Is makes errors.Is(err, ErrNotRegular) hold.
func (e *NotRegularError) Is(target error) bool { return target == ErrNotRegular }

// fileKind names what a non-regular file is.
func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a folder"
	}
	return "an irregular file"
}

// openRegular opens a session file for reading, refusing anything that is not a
// regular file (a *NotRegularError) without blocking on it: the path is checked
// before it is opened, it is opened non-blocking in case it was swapped for a named
// pipe in between, and the opened file is checked again.
func openRegular(path string) (*os.File, os.FileInfo, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	return openStated(path, fi)
}

// openStated is openRegular for a path whose stat, fi, the caller has just taken
// (Import stats every file it finds): a second stat before the open would cost a
// small file's import as much as its reading.
func openStated(path string, fi os.FileInfo) (*os.File, os.FileInfo, error) {
	if !fi.Mode().IsRegular() {
		return nil, nil, &NotRegularError{Path: path, What: fileKind(fi.Mode())}
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err = f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, &NotRegularError{Path: path, What: fileKind(fi.Mode())}
	}
	return f, fi, nil
}

// Discover expands paths (roots, session folders or single files) into the session
// sources below them. A single file is taken whatever its name, so a user can point
// at a renamed log; folders are walked for what the formats call a source (dsh:
// session.jsonl / session.jsonl.zstd).
// Only regular files are taken (a symbolic link counts as what it points to): a
// named pipe, device or socket is reported in Problems instead.
func Discover(paths []string) Discovered {
	d := Discovered{Problems: map[string]*Problem{}, Formats: map[string]string{}}
	seen := map[string]bool{}
	add := func(p, format string) {
		if !seen[p] {
			seen[p] = true
			d.Files = append(d.Files, p)
			d.Formats[p] = format
		}
	}
	fail := func(p string, kind Kind, why string) {
		d.Problems[p] = &Problem{Kind: kind, Offset: -1, Message: p + ": " + why}
	}
	notRegular := func(p string, m fs.FileMode) {
		fail(p, KindNotRegular, fmt.Sprintf("is %s, not a regular file; it was not read", fileKind(m)))
	}
	// walk takes the sources among a folder's entries, in name order, and walks
	// the folders that are none. Each folder is read once: the entries that tell
	// whether it is a source (format.FolderSourcer) are those the walk goes on
	// with (filepath.WalkDir, and a format's IsSource, read each folder again).
	var walk func(dir string, entries []fs.DirEntry)
	walk = func(dir string, entries []fs.DirEntry) {
		var listed []listing
		for i, e := range entries {
			if i%listAhead == 0 {
				listed = listFolders(dir, entries[i:min(i+listAhead, len(entries))], listed)
			}
			path := filepath.Join(dir, e.Name())
			if e.IsDir() {
				children, err := listed[i%listAhead].read(path)
				if format := folderFormat(path, e, children, err); format != "" {
					add(path, format) // a session that is a folder of files
					continue
				}
				if err != nil {
					fail(path, faultKind(err), err.Error())
					continue
				}
				walk(path, children)
				continue
			}
			format := sourceFormat(path, e)
			if format == "" {
				if isBundleName(e.Name()) && leadsToRegular(path, e) {
					d.Bundles = append(d.Bundles, path)
				}
				continue
			}
			if e.Type().IsRegular() {
				add(path, format)
				continue
			}
			// A session file that is not a plain file: follow a symbolic link, and
			// report anything that is not (or does not lead to) a regular file.
			fi, err := os.Stat(path)
			switch {
			case err != nil:
				fail(path, faultKind(err), err.Error())
			case fi.Mode().IsRegular():
				add(path, format)
			default:
				notRegular(path, fi.Mode())
			}
		}
	}
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			fail(p, faultKind(err), err.Error())
			continue
		}
		fi, err := os.Stat(abs)
		if err != nil {
			fail(abs, faultKind(err), err.Error())
			continue
		}
		if !fi.IsDir() {
			if !fi.Mode().IsRegular() {
				notRegular(abs, fi.Mode())
				continue
			}
			add(abs, formatOfPath(abs))
			continue
		}
		// A root named through a symbolic link is walked where it leads: a walk
		// does not follow a link, not even the root's, and would find nothing.
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			abs = real
		}
		d.Roots = append(d.Roots, abs)
		entries, err := os.ReadDir(abs)
		if format := folderFormat(abs, fs.FileInfoToDirEntry(fi), entries, err); format != "" {
			add(abs, format) // the root is a session that is a folder of files
			continue
		}
		if err == nil {
			walk(abs, entries)
		}
	}
	sort.Strings(d.Files)
	sort.Strings(d.Bundles)
	return d
}

// A walk lists the folders of listAhead entries of a folder at once, on up to
// listWorkers goroutines, then takes the entries in order as before: with
// thousands of session folders, listing them one after the other was most of a
// walk, and a walk comes before anything else an import does. What it holds
// ahead is bounded by listAheadEntries entries: a folder listed past that is
// listed again in its turn.
const (
	listAhead   = 64
	listWorkers = 4
)

var listAheadEntries int64 = 16 << 10 // a variable for the tests

// listing is a folder's entries read ahead, or the error that stopped reading
// them; a listing not kept (not a folder, or past the budget) is read in its
// turn.
type listing struct {
	kept    bool
	entries []fs.DirEntry
	err     error
}

func (l listing) read(path string) ([]fs.DirEntry, error) {
	if l.kept {
		return l.entries, l.err
	}
	return os.ReadDir(path)
}

// listFolders lists the folders among entries (of dir) concurrently, into out
// (reused), by index in entries.
func listFolders(dir string, entries []fs.DirEntry, out []listing) []listing {
	out = slices.Grow(out[:0], len(entries))[:len(entries)]
	clear(out)
	folders := 0
	for _, e := range entries {
		if e.IsDir() {
			folders++
		}
	}
	if folders < 2 {
		return out // nothing to overlap: each is listed in its turn
	}
	var held atomic.Int64
	eachOn(min(listWorkers, folders), len(entries), func(i int) {
		if !entries[i].IsDir() || held.Load() > listAheadEntries {
			return // past the budget: listed in its turn, not twice
		}
		children, err := os.ReadDir(filepath.Join(dir, entries[i].Name()))
		if held.Add(int64(len(children))) <= listAheadEntries {
			out[i] = listing{kept: true, entries: children, err: err}
		}
	})
	return out
}

// Merge adds what other found (a Discover of other paths) to d.
func (d *Discovered) Merge(other Discovered) {
	seen := make(map[string]bool, len(d.Files))
	for _, f := range d.Files {
		seen[f] = true
	}
	for _, f := range other.Files {
		if !seen[f] {
			seen[f] = true
			d.Files = append(d.Files, f)
			d.Formats[f] = other.Formats[f]
		}
	}
	d.Roots = append(d.Roots, other.Roots...)
	d.Bundles = append(d.Bundles, other.Bundles...)
	for p, pr := range other.Problems {
		if _, ok := d.Problems[p]; !ok {
			d.Problems[p] = pr
		}
	}
	sort.Strings(d.Files)
	sort.Strings(d.Bundles)
	d.Bundles = slices.Compact(d.Bundles)
}

// BundleSuffix ends the name of a Logbook bundle.
const BundleSuffix = ".logbook"

// isBundleName reports whether a file name is a bundle's (any case).
func isBundleName(name string) bool {
	return len(name) >= len(BundleSuffix) && strings.EqualFold(name[len(name)-len(BundleSuffix):], BundleSuffix)
}

// leadsToRegular reports whether the walked entry e at path is a plain file or
// a link to one.
func leadsToRegular(path string, e fs.DirEntry) bool {
	if e.Type().IsRegular() {
		return true
	}
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// Reports are the report entries of the paths that could not be taken, in path
// order: each failed (nothing was read, so nothing is said of the file's content)
// with its problem: not-regular-file for a pipe, device or socket, or the fault that
// stopped the walk (permission-denied, io-error).
func (d Discovered) Reports() []FileReport {
	paths := make([]string, 0, len(d.Problems))
	for p := range d.Problems {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	out := make([]FileReport, 0, len(paths))
	for _, p := range paths {
		pr := *d.Problems[p]
		out = append(out, FileReport{Path: p, Verdict: VerdictFailed, Action: "failed", LastSeq: -1, Error: &pr,
			Warnings: []Problem{}})
	}
	return out
}

// folderFormat is sourceFormat for a folder whose entries were read (entries, or
// the error that stopped reading them): a format that tells its folders by their
// entries is given those.
func folderFormat(path string, e fs.DirEntry, entries []fs.DirEntry, readErr error) string {
	for _, f := range formats() {
		var ok bool
		if fsr, is := f.(format.FolderSourcer); is {
			ok = readErr == nil && fsr.IsSourceFolder(path, entries)
		} else {
			ok = f.IsSource(path, e)
		}
		if ok {
			return f.Name()
		}
	}
	return ""
}
