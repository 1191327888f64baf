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

// BundleError is a bundle, or one entry of it, that does not match its
// manifest: an entry that is damaged, missing, unlisted or of the wrong size or
// checksum, or a bundle that cannot be read at all (Entry empty).
type BundleError struct {
	Path  string // the bundle file
	Entry string // the entry at fault; empty when the whole bundle is
	Msg   string // what is wrong with it
}

func (e *BundleError) Error() string {
	if e.Entry == "" {
		return fmt.Sprintf("bundle %s: %s; nothing was imported from it", e.Path, e.Msg)
	}
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
	// faults are the entries OpenBundle found at fault in the layout, and whole
	// the listed entries it did not: the only ones Unpack reads.
	faults []*BundleError
	whole  []ManifestFile
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

// OpenBundle opens a bundle and reads its manifest. A bundle it cannot read
// (not a zip, cut short before its directory, no manifest or one of an unknown
// version) is an error. A fault of one entry is not: the layout is checked (every
// entry listed in the manifest once, with a safe name and a checksum, every
// listed entry present, each source inside the bundle) and what is at fault is
// kept for Unpack to report, which also checks every entry's bytes.
func OpenBundle(p string) (*Bundle, error) {
	zr, err := zip.OpenReader(p)
	if err != nil {
		if errors.Is(err, zip.ErrFormat) {
			// zip.ErrFormat stays in the chain: a bundle cut short can be salvaged.
			return nil, fmt.Errorf("%s: %w (not a zip file, or a truncated one: %w)", p, ErrNotBundle, err)
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

func (b *Bundle) fault(entry, format string, args ...any) *BundleError {
	return &BundleError{Path: b.path, Entry: entry, Msg: fmt.Sprintf(format, args...)}
}

func (b *Bundle) open() error {
	twice := map[string]bool{}
	for _, f := range b.zr.File {
		if _, dup := b.byName[f.Name]; dup {
			twice[f.Name] = true
			continue
		}
		b.byName[f.Name] = f
	}
	mf := b.byName[ManifestName]
	if mf == nil {
		return fmt.Errorf("%s: %w (a zip without %s)", b.path, ErrNotBundle, ManifestName)
	}
	if twice[ManifestName] {
		return b.fault(ManifestName, "appears twice")
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
		var bad *BundleError
		switch {
		case !safeName(f.Name):
			bad = b.fault(f.Name, "an unsafe name (absolute, or climbing out with ..)")
		case listed[f.Name]:
			bad = b.fault(f.Name, "listed twice in the manifest")
		case b.byName[f.Name] == nil:
			bad = b.fault(f.Name, "listed in the manifest but missing from the bundle")
		case twice[f.Name]:
			bad = b.fault(f.Name, "appears twice in the bundle")
		case len(f.SHA256) != 64:
			bad = b.fault(f.Name, "the manifest gives no SHA-256 for it")
		}
		listed[f.Name] = true
		if bad != nil {
			b.faults = append(b.faults, bad)
			continue
		}
		b.whole = append(b.whole, f)
	}
	for _, f := range b.zr.File {
		if !listed[f.Name] {
			listed[f.Name] = true // named once, however often it appears
			b.faults = append(b.faults, b.fault(f.Name, "in the bundle but not in its manifest"))
		}
	}
	for _, s := range m.Sessions {
		if s.Source != "" && !b.holds(s.Source) {
			b.faults = append(b.faults, b.fault(s.Source, "the source of session %s, but no entry is there", s.ID))
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

// Unpacked is what Unpack made of a bundle.
type Unpacked struct {
	// Faults are the entries at fault, in manifest order: none of their bytes
	// were written.
	Faults []*BundleError
	// Damaged maps each session whose original bytes an entry at fault is part
	// of to that entry's fault: nothing of the session (its readable copies
	// included) was written, or kept, by this run, so an import never takes part
	// of a session for the whole.
	Damaged map[string]*BundleError
}

// Unpack writes the bundle's entries under dir, each checked against the
// manifest (size, SHA-256, and the zip's CRC-32) as it is written: an entry is
// written to a temporary file beside its place and renamed there only when whole,
// so a file in dir is always a whole entry. An entry already in dir (an earlier
// unpacking of the same bundle), and still the same, is not written again, but
// its bytes in this bundle are still checked. An entry at fault is reported and
// not written, and the entries of a session whose source has one are removed
// again if this run wrote them; every other session's entries are kept. The
// manifest is written last, as manifest.json. The error is a fault of this
// machine (a folder or file that cannot be written), or ctx's.
func (b *Bundle) Unpack(ctx context.Context, dir string) (*Unpacked, error) {
	u := &Unpacked{Faults: append([]*BundleError(nil), b.faults...), Damaged: map[string]*BundleError{}}
	_, statErr := os.Stat(dir)
	fresh := errors.Is(statErr, os.ErrNotExist)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	var wrote []string // entries this run wrote
	for _, mf := range b.whole {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		dst := filepath.Join(dir, filepath.FromSlash(mf.Name))
		fi, err := os.Lstat(dst)
		existed := err == nil && fi.Mode().IsRegular()
		// A file unpacked before is taken only as long as it is still the entry:
		// one changed since is written again.
		have := existed && fi.Size() == mf.Bytes && fileSum(dst) == mf.SHA256
		fault, err := b.unpackEntry(mf, dst, have)
		if err != nil {
			return nil, err
		}
		if fault != nil {
			u.Faults = append(u.Faults, fault)
		} else if !existed {
			wrote = append(wrote, mf.Name)
		}
	}
	for _, f := range u.Faults {
		for _, s := range b.Manifest.Sessions {
			if _, seen := u.Damaged[s.ID]; !seen && s.Source != "" && s.holds(f.Entry) {
				u.Damaged[s.ID] = f
			}
		}
	}
	kept := 0
	for _, name := range wrote {
		if s := b.sessionOf(name); s != nil && u.Damaged[s.ID] != nil {
			_ = os.Remove(filepath.Join(dir, filepath.FromSlash(name)))
			continue
		}
		kept++
	}
	for _, s := range b.Manifest.Sessions {
		if u.Damaged[s.ID] != nil && s.Dir != "" {
			pruneEmpty(filepath.Join(dir, filepath.FromSlash(s.Dir))) // the folders made for it
		}
	}
	if fresh && kept == 0 {
		// Nothing of the bundle could be taken: leave nothing behind.
		return u, os.RemoveAll(dir)
	}
	raw, err := b.read(b.byName[ManifestName], maxManifest)
	if err != nil {
		return nil, err
	}
	return u, writeWhole(filepath.Join(dir, ManifestName), func(w io.Writer) error { _, err := w.Write(raw); return err })
}

// unpackEntry checks one entry against the manifest, writing it to dst unless
// have. It returns the entry's fault, or an error of this machine.
func (b *Bundle) unpackEntry(mf ManifestFile, dst string, have bool) (*BundleError, error) {
	var fault *BundleError
	check := func(w io.Writer) error {
		err := b.copyEntry(mf, markedWriter{w})
		if errors.As(err, &fault) {
			return errBadEntry
		}
		return err
	}
	if have {
		err := check(io.Discard)
		if errors.Is(err, errBadEntry) {
			err = nil
		}
		return fault, err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return nil, err
	}
	err := writeWhole(dst, check)
	if errors.Is(err, errBadEntry) {
		err = nil
	}
	return fault, err
}

// pruneEmpty removes the folders under p, and p, that hold no file.
func pruneEmpty(p string) {
	ents, err := os.ReadDir(p)
	if err != nil {
		return
	}
	for _, e := range ents {
		if e.IsDir() {
			pruneEmpty(filepath.Join(p, e.Name()))
		}
	}
	_ = os.Remove(p) // fails, as it should, on a folder that still holds something
}

// fileSum is the lowercase hex SHA-256 of the file at p, "" when it cannot be read.
func fileSum(p string) string {
	f, err := os.Open(p)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return hashOf(h)
}

// errBadEntry stops writing an entry at fault.
var errBadEntry = errors.New("export: entry at fault")

// writeWhole writes a file through write into a temporary file beside path,
// renamed to path only when write and the close succeed.
func writeWhole(path string, write func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".partial-*")
	if err != nil {
		return err
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		_ = os.Remove(f.Name())
	}
	return err
}

// holds reports whether entry is part of the session's original bytes.
func (s ManifestSession) holds(entry string) bool {
	return s.Source != "" && (entry == s.Source || (strings.HasSuffix(s.Source, "/") && strings.HasPrefix(entry, s.Source)))
}

// sessionOf is the session entry belongs to (its folder, or its original
// bytes), or nil.
func (b *Bundle) sessionOf(entry string) *ManifestSession {
	for i := range b.Manifest.Sessions {
		s := &b.Manifest.Sessions[i]
		if s.holds(entry) || (s.Dir != "" && strings.HasPrefix(entry, s.Dir+"/")) {
			return s
		}
	}
	return nil
}

// Close closes the bundle file.
func (b *Bundle) Close() error { return b.zr.Close() }
