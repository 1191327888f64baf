// Package fsremote is a sync.Remote kept in a local folder: a USB disk, a
// NAS mount, or a folder another tool (Syncthing, Dropbox) replicates.
//
// Each object is one file at root/<name>. Put writes a temporary file in the
// target's directory, fsyncs it, renames it over the target and fsyncs the
// directory, so a reader sees the old file or the new one, never a partial
// one, and a crash leaves at worst a stray ".tmp-" file that List ignores.
package fsremote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	arcsync "github.com/logbook/logbook/sync"
)

// tmpPrefix starts temporary file names. Valid object names never have a
// segment starting with '.', so a temp file can never shadow an object.
const tmpPrefix = ".tmp-"

// Remote stores objects under Root.
type Remote struct {
	// Root is the folder holding the objects.
	Root string
	// DirPerm and FilePerm are used for created folders and objects.
	DirPerm, FilePerm fs.FileMode
}

var _ arcsync.Remote = (*Remote)(nil)

// New returns a Remote rooted at root. It does no I/O: folders are created
// by the first Put, and a missing root lists as empty. (There is no
// Open(ctx) constructor step: Open is sync.Remote's read method.)
func New(root string) *Remote {
	return &Remote{Root: root, DirPerm: 0o700, FilePerm: 0o600}
}

func (r *Remote) path(name string) string {
	return filepath.Join(r.Root, filepath.FromSlash(name))
}

// List implements sync.Remote. It walks only the folder the prefix names,
// then sorts, because walk order ("a/b" before "a-c") is not byte order.
func (r *Remote) List(ctx context.Context, prefix string, fn func(arcsync.Object) error) error {
	if err := arcsync.ValidatePrefix(prefix); err != nil {
		return err
	}
	dir := r.Root
	if i := strings.LastIndexByte(prefix, '/'); i >= 0 {
		dir = r.path(prefix[:i])
	}
	var objs []arcsync.Object
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(r.Root, p)
		if err != nil {
			return err
		}
		name := filepath.ToSlash(rel)
		if !strings.HasPrefix(name, prefix) || arcsync.ValidateName(name) != nil {
			return nil // temp files and foreign files are not objects
		}
		info, err := d.Info()
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // deleted while listing
			}
			return err
		}
		objs = append(objs, arcsync.Object{Name: name, Size: info.Size(), ModTime: info.ModTime()})
		return nil
	})
	if err != nil {
		return fmt.Errorf("list %q: %w", prefix, err)
	}
	sort.Slice(objs, func(i, j int) bool { return objs[i].Name < objs[j].Name })
	for _, o := range objs {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fn(o); err != nil {
			return err
		}
	}
	return nil
}

// Open implements sync.Remote.
func (r *Remote) Open(ctx context.Context, name string) (io.ReadCloser, error) {
	if err := arcsync.ValidateName(name); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, err := os.Open(r.path(name))
	if err != nil {
		return nil, notExist(name, err)
	}
	if info, err := f.Stat(); err != nil || info.IsDir() {
		f.Close()
		return nil, fmt.Errorf("open %s: %w", name, arcsync.ErrNotExist)
	}
	return f, nil
}

// notExist maps a missing file (or a path through a file: ENOTDIR) to
// sync.ErrNotExist.
func notExist(name string, err error) error {
	if errors.Is(err, fs.ErrNotExist) || isNotDir(err) {
		return fmt.Errorf("%s: %w", name, arcsync.ErrNotExist)
	}
	return fmt.Errorf("%s: %w", name, err)
}

// Stat implements sync.Remote.
func (r *Remote) Stat(ctx context.Context, name string) (arcsync.Object, error) {
	if err := arcsync.ValidateName(name); err != nil {
		return arcsync.Object{}, err
	}
	if err := ctx.Err(); err != nil {
		return arcsync.Object{}, err
	}
	info, err := os.Stat(r.path(name))
	if err != nil {
		return arcsync.Object{}, notExist(name, err)
	}
	if info.IsDir() {
		return arcsync.Object{}, fmt.Errorf("stat %s: %w", name, arcsync.ErrNotExist)
	}
	return arcsync.Object{Name: name, Size: info.Size(), ModTime: info.ModTime()}, nil
}

// Put implements sync.Remote with write-to-temp, fsync, rename, fsync dir.
func (r *Remote) Put(ctx context.Context, name string, rd io.Reader, size int64) (err error) {
	if err := arcsync.ValidateName(name); err != nil {
		return err
	}
	if size < 0 {
		return fmt.Errorf("put %s: negative size: %w", name, arcsync.ErrSizeMismatch)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	dst := r.path(name)
	dir := filepath.Dir(dst)
	if err := os.MkdirAll(dir, r.DirPerm); err != nil {
		return fmt.Errorf("put %s: %w", name, err)
	}
	f, err := os.CreateTemp(dir, tmpPrefix+"*")
	if err != nil {
		return fmt.Errorf("put %s: %w", name, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	n, err := io.Copy(f, io.LimitReader(arcsync.ContextReader(ctx, rd), size+1))
	if err != nil {
		return fmt.Errorf("put %s: %w", name, err)
	}
	if n != size {
		return fmt.Errorf("put %s: read %d bytes, want %d: %w", name, n, size, arcsync.ErrSizeMismatch)
	}
	if err := f.Chmod(r.FilePerm); err != nil {
		return fmt.Errorf("put %s: %w", name, err)
	}
	// fsync before rename: otherwise a crash can leave the new name
	// pointing at an empty or partial file on some file systems.
	if err := f.Sync(); err != nil {
		return fmt.Errorf("put %s: sync: %w", name, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("put %s: %w", name, err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := os.Rename(f.Name(), dst); err != nil {
		return fmt.Errorf("put %s: rename: %w", name, err)
	}
	// fsync the folder so the rename itself survives a crash.
	syncDir(dir)
	return nil
}

// Delete implements sync.Remote; a missing file is not an error.
func (r *Remote) Delete(ctx context.Context, name string) error {
	if err := arcsync.ValidateName(name); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := os.Remove(r.path(name)); err != nil && !errors.Is(err, fs.ErrNotExist) && !isNotDir(err) {
		return fmt.Errorf("delete %s: %w", name, err)
	}
	return nil
}
