package export

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// ErrNotBundle is returned (wrapped) by OpenBundle for a file that is no Logbook
// bundle at all: not a zip, or a zip without a Logbook manifest.
var ErrNotBundle = errors.New("not a Logbook bundle")

// BundleError is a bundle whose contents do not match its manifest: an entry that
// is damaged, missing, unlisted or of the wrong size or checksum.
type BundleError struct {
	Path  string // the bundle file
	Entry string // the entry at fault
	Msg   string // what is wrong with it
}

func (e *BundleError) Error() string {
	return fmt.Sprintf("bundle %s: entry %s: %s; nothing was imported from it", e.Path, e.Entry, e.Msg)
}

// maxManifest bounds the manifest a reader decodes.
const maxManifest = 64 << 20

// Bundle is an open .logbook file.
type Bundle struct {
	Manifest Manifest
	// ID names the bundle by its contents: the first 16 hex digits of the
	// manifest's SHA-256 (the manifest holds every other entry's checksum).
	ID     string
	path   string
	zr     *zip.ReadCloser
	byName map[string]*zip.File
}

// LooksLikeBundle reports whether path is what `logbook import` takes as a
// bundle rather than a session log: a regular file named *.logbook (whole or
// not), or a zip file whose manifest.json says "logbook_export" (a bundle renamed;
// an OpenHands export zip has no such manifest and stays a session source).
func LooksLikeBundle(path string) bool {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	if strings.HasSuffix(strings.ToLower(path), ".logbook") {
		return true
	}
	zr, err := zip.OpenReader(path)
	if err != nil {
		return false
	}
	defer zr.Close()
	for _, f := range zr.File {
		if f.Name != ManifestName {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return false
		}
		defer rc.Close()
		var m struct {
			Version *int `json:"logbook_export"`
		}
		err = json.NewDecoder(io.LimitReader(rc, maxManifest)).Decode(&m)
		return err == nil && m.Version != nil
	}
	return false
}

// OpenBundle opens a bundle and reads its manifest. It checks the layout (a
// known version, every entry listed in the manifest with a safe name, every
// listed entry present, each source inside the bundle) but not the bytes: call
// Verify before using any entry.
func OpenBundle(p string) (*Bundle, error) {
	zr, err := zip.OpenReader(p)
	if err != nil {
		if errors.Is(err, zip.ErrFormat) {
			return nil, fmt.Errorf("%s: %w (not a zip file, or a truncated one: %v)", p, ErrNotBundle, err)
		}
		return nil, err
	}
	b := &Bundle{path: p, zr: zr, byName: map[string]*zip.File{}}
	if err := b.open(); err != nil {
		zr.Close()
		return nil, err
	}
	return b, nil
}

func (b *Bundle) fault(entry, format string, args ...any) error {
	return &BundleError{Path: b.path, Entry: entry, Msg: fmt.Sprintf(format, args...)}
}

func (b *Bundle) open() error {
	for _, f := range b.zr.File {
		if _, dup := b.byName[f.Name]; dup {
			return b.fault(f.Name, "appears twice")
		}
		b.byName[f.Name] = f
	}
	mf := b.byName[ManifestName]
	if mf == nil {
		return fmt.Errorf("%s: %w (a zip without %s)", b.path, ErrNotBundle, ManifestName)
	}
	raw, err := b.read(mf, maxManifest)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(raw)
	b.ID = fmt.Sprintf("%x", sum[:8])
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&b.Manifest); err != nil {
		return b.fault(ManifestName, "not a Logbook manifest: %v", err)
	}
	m := &b.Manifest
	switch m.Version {
	case 1:
		// One session: ID.jsonl (the dsh log) beside its readable copies.
		if m.Session == nil {
			return b.fault(ManifestName, "version 1 without a session")
		}
		s := *m.Session
		if s.Agent == "dsh" && b.byName[s.ID+".jsonl"] != nil {
			s.Source = s.ID + ".jsonl"
		}
		m.Sessions = []ManifestSession{s}
		m.Redacted = m.Redaction != nil
	case BundleVersion:
	default:
		return b.fault(ManifestName, `"logbook_export" is %d: this Logbook reads bundles of version 1 and %d`, m.Version, BundleVersion)
	}
	listed := map[string]bool{ManifestName: true}
	for _, f := range m.Files {
		if !safeName(f.Name) {
			return b.fault(f.Name, "an unsafe name (absolute, or climbing out with ..)")
		}
		if b.byName[f.Name] == nil {
			return b.fault(f.Name, "listed in the manifest but missing from the bundle")
		}
		if len(f.SHA256) != 64 {
			return b.fault(f.Name, "the manifest gives no SHA-256 for it")
		}
		listed[f.Name] = true
	}
	for _, f := range b.zr.File {
		if !listed[f.Name] {
			return b.fault(f.Name, "in the bundle but not in its manifest")
		}
	}
	for _, s := range m.Sessions {
		if s.Source == "" {
			continue
		}
		if !b.holds(s.Source) {
			return b.fault(s.Source, "the source of session %s, but no entry is there", s.ID)
		}
	}
	return nil
}

// holds reports whether src names a listed entry, or a folder (ending in /) some
// listed entry is in.
func (b *Bundle) holds(src string) bool {
	for _, f := range b.Manifest.Files {
		if f.Name == src || (strings.HasSuffix(src, "/") && strings.HasPrefix(f.Name, src)) {
			return true
		}
	}
	return false
}

// safeName reports whether an entry name stays inside the folder it is extracted to.
func safeName(name string) bool {
	if name == "" || strings.Contains(name, "\\") || path.IsAbs(name) || strings.HasSuffix(name, "/") {
		return false
	}
	c := path.Clean(name)
	return c == name && c != "." && c != ".." && !strings.HasPrefix(c, "../")
}

// read reads a whole (small) entry, at most limit bytes.
func (b *Bundle) read(f *zip.File, limit int64) ([]byte, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, b.fault(f.Name, "cannot be read: %v", err)
	}
	defer rc.Close()
	raw, err := io.ReadAll(io.LimitReader(rc, limit+1))
	if err != nil {
		return nil, b.fault(f.Name, "damaged: %v", err)
	}
	if int64(len(raw)) > limit {
		return nil, b.fault(f.Name, "larger than %d bytes", limit)
	}
	return raw, nil
}

// Verify reads every listed entry to its end and checks its size and SHA-256
// against the manifest (and the zip's own CRC-32). The first difference is a
// *BundleError naming the entry.
func (b *Bundle) Verify(ctx context.Context) error {
	for _, mf := range b.Manifest.Files {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := b.copyEntry(mf, io.Discard); err != nil {
			return err
		}
	}
	return nil
}

// copyEntry streams one entry to w, checking it against the manifest.
func (b *Bundle) copyEntry(mf ManifestFile, w io.Writer) error {
	f := b.byName[mf.Name]
	if f.UncompressedSize64 != uint64(mf.Bytes) {
		return b.fault(mf.Name, "%d bytes, but the manifest says %d", f.UncompressedSize64, mf.Bytes)
	}
	rc, err := f.Open()
	if err != nil {
		return b.fault(mf.Name, "cannot be read: %v", err)
	}
	defer rc.Close()
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(w, h), rc)
	var we *writeError
	switch {
	case errors.As(err, &we):
		return we.err // a fault of this machine, not of the bundle
	case err != nil:
		return b.fault(mf.Name, "damaged at byte %d: %v", n, err)
	case n != mf.Bytes:
		return b.fault(mf.Name, "%d bytes, but the manifest says %d", n, mf.Bytes)
	case hashOf(h) != mf.SHA256:
		return b.fault(mf.Name, "its SHA-256 is %s, but the manifest says %s (the bundle was changed after it was written)", hashOf(h), mf.SHA256)
	}
	return nil
}

// writeError marks an error of the writer copyEntry writes to.
type writeError struct{ err error }

func (e *writeError) Error() string { return e.err.Error() }

type markedWriter struct{ w io.Writer }

func (m markedWriter) Write(p []byte) (int, error) {
	n, err := m.w.Write(p)
	if err != nil {
		err = &writeError{err}
	}
	return n, err
}

// Extract writes every entry under dir, the manifest last as manifest.json. dir
// appears whole or not at all: the entries are written into a new folder beside
// it, each checked against the manifest as it is written, and the folder is
// renamed to dir only when all are. A damaged bundle leaves nothing behind. When
// dir exists already (another import of the same bundle finished first) that one
// is kept.
func (b *Bundle) Extract(ctx context.Context, dir string) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), filepath.Base(dir)+".partial-*")
	if err != nil {
		return err
	}
	err = b.extract(ctx, tmp)
	if err == nil {
		if err = os.Rename(tmp, dir); err != nil {
			if fi, serr := os.Stat(dir); serr == nil && fi.IsDir() {
				err = nil // another import of this bundle unpacked it first
			}
		}
	}
	_ = os.RemoveAll(tmp) // nothing left after a rename
	return err
}

func (b *Bundle) extract(ctx context.Context, dir string) error {
	for _, mf := range b.Manifest.Files {
		if err := ctx.Err(); err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(mf.Name))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return err
		}
		err = b.copyEntry(mf, markedWriter{f})
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	raw, err := b.read(b.byName[ManifestName], maxManifest)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, ManifestName), raw, 0o644)
}

// Close closes the bundle file.
func (b *Bundle) Close() error { return b.zr.Close() }
