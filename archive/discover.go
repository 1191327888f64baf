package archive

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// V0 artifact names inside a dsh session folder.
const (
	dshPlainName      = "session.jsonl"
	dshCompressedName = "session.jsonl.zstd"
)

// DefaultRoots returns the dsh session roots that exist on this machine:
// $DSH_HOME/sessions (a blank DSH_HOME counts as unset) and ~/.dsh/sessions.
func DefaultRoots() []string {
	var roots []string
	if h := strings.TrimSpace(os.Getenv("DSH_HOME")); h != "" {
		roots = append(roots, filepath.Join(h, "sessions"))
	}
	if home, err := os.UserHomeDir(); err == nil {
		roots = append(roots, filepath.Join(home, ".dsh", "sessions"))
	}
	var out []string
	seen := map[string]bool{}
	for _, r := range roots {
		abs, err := filepath.Abs(r)
		if err != nil || seen[abs] {
			continue
		}
		seen[abs] = true
		if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
			out = append(out, abs)
		}
	}
	return out
}

// isSessionFile reports whether a file name is a V0 session artifact. Later formats
// (session.vN.jsonl*) and other files in a session folder are not V0 and are skipped.
func isSessionFile(name string) bool {
	return name == dshPlainName || name == dshCompressedName
}

// Discovered is the result of expanding import paths into session files.
type Discovered struct {
	Files  []string          // absolute paths of session files, sorted
	Roots  []string          // folders that were walked (for "gone upstream" checks)
	Errors map[string]string // path → why it could not be read
}

// Discover expands paths (dsh roots, session folders or single files) into the
// session files below them. A single file is taken whatever its name, so a user can
// point at a renamed log; folders are walked for session.jsonl / session.jsonl.zstd.
func Discover(paths []string) Discovered {
	d := Discovered{Errors: map[string]string{}}
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			d.Files = append(d.Files, p)
		}
	}
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			d.Errors[p] = err.Error()
			continue
		}
		fi, err := os.Stat(abs)
		if err != nil {
			d.Errors[abs] = err.Error()
			continue
		}
		if !fi.IsDir() {
			add(abs)
			continue
		}
		d.Roots = append(d.Roots, abs)
		_ = filepath.WalkDir(abs, func(path string, e fs.DirEntry, err error) error {
			if err != nil {
				if path != abs {
					d.Errors[path] = err.Error()
				}
				if e != nil && e.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if e.Type().IsRegular() && isSessionFile(e.Name()) {
				add(path)
			}
			return nil
		})
	}
	sort.Strings(d.Files)
	return d
}
