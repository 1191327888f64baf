package index

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrReadOnly is returned by a write to an index opened with Options.ReadOnly:
// a Sync that has something to write, and Reindex.
var ErrReadOnly = errors.New("index: opened read-only")

// ErrNoIndex is returned by a read-only Open when there is no index to open.
var ErrNoIndex = errors.New("index: no index in the directory")

// ReadOnly reports whether the index was opened read-only.
func (ix *Index) ReadOnly() bool { return ix.readOnly }

// Dir returns the directory the index is in.
func (ix *Index) Dir() string { return ix.dir }

// Pending returns how many sessions a Sync with src would index or drop: 0 when
// the index is level with src. It writes nothing, so it works on a read-only
// index, to tell whether that index can answer for the archive.
func (ix *Index) Pending(ctx context.Context, src Source) (int, error) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.bl == nil {
		return 0, ErrClosed
	}
	revs, err := src.Revisions(ctx)
	if err != nil {
		return 0, fmt.Errorf("pending: %w", err)
	}
	stale := staleSessions(ix.revs, revs)
	listed, err := listedSessions(ix.bl)
	if err != nil {
		return 0, fmt.Errorf("pending: %w", err)
	}
	gone, err := goneSessions(ctx, ix.bl, revs, listed)
	if err != nil {
		return 0, fmt.Errorf("pending: %w", err)
	}
	return len(stale) + len(gone), nil
}

// OpenTemp opens a new index in a temporary directory under os.TempDir(), which
// Close removes: the index for a data directory that cannot be written, so
// search still answers there. If from is not nil (an index opened read-only) the
// new index starts as a copy of it, its segments hard-linked where the file
// system allows (Bleve never writes a segment once made) and copied where not,
// so a Sync only has to add what from lacks. The caller closes from.
func OpenTemp(from *Index) (*Index, error) {
	root, err := os.MkdirTemp("", "logbook-index-")
	if err != nil {
		return nil, fmt.Errorf("temporary index: %w", noSpace(err))
	}
	dir := filepath.Join(root, "index")
	if from != nil {
		if !from.readOnly {
			_ = os.RemoveAll(root)
			return nil, errors.New("temporary index: copy only from an index opened read-only")
		}
		// Holding mu keeps from open, and its read lock on root.bolt keeps any
		// writer out while the files are copied.
		from.mu.RLock()
		err := copyIndex(from.dir, dir)
		from.mu.RUnlock()
		if err != nil {
			_ = os.RemoveAll(root)
			return nil, fmt.Errorf("temporary index: copy %s: %w", from.dir, noSpace(err))
		}
	}
	ix, err := OpenWith(dir, Options{Holder: Holder{Command: "temporary index"}})
	if err != nil {
		_ = os.RemoveAll(root)
		return nil, err
	}
	ix.tempRoot = root
	return ix, nil
}

// copyIndex copies the index in src to the new directory dst: its metadata,
// its root.bolt and its segments. Time files are left behind; the copy makes
// its own.
func copyIndex(src, dst string) error {
	if err := os.MkdirAll(filepath.Join(dst, storeDir), 0o700); err != nil {
		return err
	}
	if err := copyFile(filepath.Join(src, metaFile), filepath.Join(dst, metaFile)); err != nil {
		return err
	}
	// The revisions of the copied sessions, so the copy indexes only what changed.
	if err := copyFile(filepath.Join(src, revsFile), filepath.Join(dst, revsFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	entries, err := os.ReadDir(filepath.Join(src, storeDir))
	if err != nil {
		return err
	}
	for _, e := range entries {
		name := e.Name()
		from, to := filepath.Join(src, storeDir, name), filepath.Join(dst, storeDir, name)
		switch {
		case name == rootBolt:
			err = copyFile(from, to) // Bolt writes it in place: never shared
		case strings.HasSuffix(name, ".zap"):
			if os.Link(from, to) != nil {
				err = copyFile(from, to)
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func copyFile(from, to string) error {
	r, err := os.Open(from)
	if err != nil {
		return err
	}
	defer r.Close()
	w, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, r); err != nil {
		_ = w.Close()
		return err
	}
	return w.Close()
}
