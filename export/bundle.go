package export

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/klauspost/compress/flate"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/export/redact"
)

// FormatBundle is a .logbook bundle of one or many sessions: readable copies,
// their original bytes and a manifest.
//
// A bundle (.logbook) is a zip file holding one or many sessions:
//
//	manifest.json                        what the bundle holds (Manifest), written last
//	sessions/N/session.md                each session readable: Markdown…
//	sessions/N/session.html              …and one self-contained HTML page
//	sessions/N/source/…                  the session's original bytes (not in a redacted bundle)
//
// N counts sessions from 1 in the manifest's order. The source keeps the last
// folders of the path the session was imported from, so a re-import gives it the
// same identity: a dsh session is its log (the logical JSONL the archive holds,
// plus a torn tail it kept aside, or the whole file when the archive kept it as it
// was because it was corrupt; a log ending in a torn zstd frame is rebuilt as a
// zstd log that ends in it, see planTorn), under <project>/<session>/session.jsonl; an
// OpenHands conversation is its files in their layout (a folder, or a single file).
// ManifestSession.Source names the path `logbook import` imports.
//
// The manifest lists every other entry with its size and SHA-256
// (ManifestFile); a reader checks each one as it unpacks it, and that no entry
// is missing or unlisted, and takes nothing of a session whose original bytes
// are not all whole (see OpenBundle and Bundle.Unpack; a bundle cut short, its
// manifest lost, see Salvage). Checksums detect
// damage, not a forger: the manifest itself is not signed. Version is the
// "logbook_export" key: 2 for this layout; 1 was a single session's ID.html,
// ID.md and ID.jsonl at the top level. A redacted bundle (Redacted true) holds the
// readable copies only, with the redaction summary: an exact log cannot be
// redacted and stay the log.
const FormatBundle = "bundle"

// BundleVersion is the manifest version a BundleWriter writes.
const BundleVersion = 2

// ManifestName is the manifest's entry name.
const ManifestName = "manifest.json"

// Manifest is a bundle's manifest.json: what the bundle holds and how it was made.
type Manifest struct {
	Version int `json:"logbook_export"`
	// Redacted is true when the bundle holds redacted readable copies only.
	Redacted  bool              `json:"redacted"`
	Redaction *redact.Summary   `json:"redaction"` // nil when not redacted
	Selection string            `json:"selection,omitempty"`
	Sessions  []ManifestSession `json:"sessions"`
	Files     []ManifestFile    `json:"files"`
	Omitted   []string          `json:"omitted,omitempty"` // what the bundle leaves out, and why
	// Session is the one session of a version 1 bundle.
	Session *ManifestSession `json:"session,omitempty"`
}

// ManifestSession names one session of a bundle.
type ManifestSession struct {
	ID        string    `json:"id"`
	Title     string    `json:"title"`
	Agent     string    `json:"agent"`
	Project   string    `json:"project,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	Events    int64     `json:"events"`
	// Health is the session's verdict in the archive it was exported from (ok,
	// recovered, corrupt, gone); a re-import gives the same, gone aside.
	Health string `json:"health,omitempty"`
	// Dir is the session's folder in the bundle (sessions/N).
	Dir string `json:"dir,omitempty"`
	// Source is the entry (a file) or folder (ending in /) the session's original
	// bytes are in, the path a re-import imports; empty in a redacted bundle.
	Source string `json:"source,omitempty"`
	// Range is the part of the session the readable copies hold, when not all.
	Range string `json:"range,omitempty"`
	// Tail says where the torn tail of a recovered dsh log went: "in-source" (the
	// source ends with it, so a re-import recovers the same), or "left-out" (a
	// torn zstd frame that no longer ends the archived log: the source is the
	// logical JSONL and a re-import finds it ok).
	Tail string `json:"tail,omitempty"`
}

// ManifestFile is one entry of a bundle with its size and SHA-256.
type ManifestFile struct {
	Name   string `json:"name"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// BundleWriter writes a bundle one session at a time; Close writes the manifest.
type BundleWriter struct {
	zw       *zip.Writer
	m        Manifest
	modified time.Time
}

// NewBundleWriter starts a bundle on w. selection says how its sessions were
// chosen (recorded in the manifest); redaction, when not nil, marks the bundle as
// redacted: it then holds no original bytes.
func NewBundleWriter(w io.Writer, selection string, redaction *redact.Summary) *BundleWriter {
	zw := zip.NewWriter(w)
	// klauspost's deflate at its default level writes about what the standard
	// library's does in half the time (a bundle of the real log: 0.6 s → 0.3 s).
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(w, flate.DefaultCompression)
	})
	return &BundleWriter{zw: zw, m: Manifest{Version: BundleVersion, Selection: selection,
		Redacted: redaction != nil, Redaction: redaction, Sessions: []ManifestSession{}, Files: []ManifestFile{}}}
}

// entry writes one file, its checksum recorded in the manifest. Entries carry the
// session's last event time, so the same export gives the same bytes.
func (b *BundleWriter) entry(name string, mod time.Time, write func(io.Writer) error) error {
	f, err := b.zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: mod.UTC()})
	if err != nil {
		return err
	}
	h := sha256.New()
	cw := &countWriter{w: io.MultiWriter(f, h)}
	if err := write(cw); err != nil {
		return fmt.Errorf("bundle entry %s: %w", name, err)
	}
	b.m.Files = append(b.m.Files, ManifestFile{Name: name, Bytes: cw.n, SHA256: hex.EncodeToString(h.Sum(nil))})
	return nil
}

// Add writes a session: t's readable copies and, unless the bundle is redacted,
// the session's original bytes read from s. t may be a range of the session.
func (b *BundleWriter) Add(ctx context.Context, s *archive.Store, t *Transcript) error {
	sess := t.Session
	dir := fmt.Sprintf("sessions/%d", len(b.m.Sessions)+1)
	ms := ManifestSession{ID: sess.ID, Title: sess.Title, Agent: sess.Agent, Project: sess.Project, CreatedAt: sess.CreatedAt,
		UpdatedAt: sess.UpdatedAt, Events: sess.Events, Health: sess.Health, Dir: dir, Range: t.Range}
	mod := sess.UpdatedAt
	if mod.After(b.modified) {
		b.modified = mod
	}
	if err := b.entry(dir+"/session.html", mod, func(w io.Writer) error { return WriteHTML(w, t) }); err != nil {
		return err
	}
	if err := b.entry(dir+"/session.md", mod, func(w io.Writer) error { return WriteMarkdown(w, t) }); err != nil {
		return err
	}
	if b.m.Redacted {
		b.m.Omitted = append(b.m.Omitted, sess.ID+": the original log; an exact log cannot be redacted")
	} else {
		if err := b.source(ctx, s, &ms, sess, dir+"/source/", mod); err != nil {
			return err
		}
	}
	b.m.Sessions = append(b.m.Sessions, ms)
	return nil
}

// AddSessions writes the sessions ids whole, each loaded, added and let go in
// turn, so an unredacted bundle holds one transcript in memory at a time.
func (b *BundleWriter) AddSessions(ctx context.Context, s *archive.Store, ids []string) error {
	for _, id := range ids {
		t, err := Load(ctx, s, id)
		if err != nil {
			return err
		}
		if err := b.Add(ctx, s, t); err != nil {
			return err
		}
	}
	return nil
}

// AddRedacted writes the sessions ids redacted by rd, a redactor of
// ScanSessions' report of the same ids: each loaded, redacted, added and let go
// in turn, so a redacted bundle too holds one transcript in memory at a time.
// Each records the summary of the whole bundle.
func (b *BundleWriter) AddRedacted(ctx context.Context, s *archive.Store, ids []string, rd *redact.Redactor) error {
	for i, id := range ids {
		t, err := Load(ctx, s, id)
		if err != nil {
			return err
		}
		if err := b.Add(ctx, s, t.redacted(rd, setPrefix(i))); err != nil {
			return err
		}
	}
	return nil
}

// source writes the session's original bytes under prefix and records in ms
// the path to import them from (and where a torn tail went).
func (b *BundleWriter) source(ctx context.Context, s *archive.Store, ms *ManifestSession, sess archive.Session, prefix string, mod time.Time) error {
	src, err := b.sourceEntries(ctx, s, ms, sess, prefix, mod)
	ms.Source = src
	return err
}

func (b *BundleWriter) sourceEntries(ctx context.Context, s *archive.Store, ms *ManifestSession, sess archive.Session, prefix string, mod time.Time) (string, error) {
	p := filepath.ToSlash(sess.Path)
	if sess.Agent != "dsh" {
		// The conversation's files as on disk. A single-file source keeps its
		// name; a folder keeps its own and its parent's name (an OpenHands
		// event_service folder takes its id from the parent).
		kept, err := s.KeptFiles(ctx, sess.ID)
		if err != nil {
			return "", err
		}
		root := prefix + lastElems(p, 2) + "/"
		if len(kept) == 1 && kept[0].Name == path.Base(p) {
			root = prefix + lastElems(path.Dir(p), 1) + "/"
		}
		err = s.EachSourceFile(ctx, sess.ID, func(name string, data []byte) error {
			return b.entry(root+name, mod, func(w io.Writer) error { _, err := w.Write(data); return err })
		})
		if errors.Is(err, archive.ErrNotFound) {
			b.m.Omitted = append(b.m.Omitted, sess.ID+": the archive keeps no source files for it")
			return "", nil
		}
		if err != nil {
			return "", err
		}
		if len(kept) == 1 && kept[0].Name == path.Base(p) {
			return root + kept[0].Name, nil
		}
		return root, nil
	}
	// A dsh log: what the archive kept of the file as it was, when it kept the
	// whole of it (a corrupt or unsupported file); else the logical JSONL and a
	// torn tail it kept aside, which is the decompressed file.
	name := path.Base(p)
	if !strings.HasPrefix(name, "session.") {
		// A log named otherwise (a file named on import's command line) keeps
		// what it was compressed with.
		zst := strings.HasSuffix(name, ".zstd")
		name = "session.jsonl"
		if zst {
			name += ".zstd"
		}
	}
	// Only a session that is corrupt now: an earlier corrupt version of the file
	// may have left its bytes kept after the file was repaired.
	probe := &headWriter{}
	err := archive.ErrNotFound
	if sess.Health == string(archive.VerdictCorrupt) {
		_, err = s.KeptBytes(ctx, sess.Path, "original", probe)
	}
	whole := err == nil || errors.Is(err, errHead)
	switch {
	case whole:
		if strings.HasSuffix(name, ".zstd") && !bytes.HasPrefix(probe.head, zstdMagic) {
			name = strings.TrimSuffix(name, ".zstd")
		}
	case errors.Is(err, archive.ErrNotFound):
		name = strings.TrimSuffix(name, ".zstd")
	default:
		return "", err
	}
	entry := prefix + lastElems(path.Dir(p), 2) + "/"
	if !whole && sess.Health == string(archive.VerdictRecovered) && strings.HasSuffix(path.Base(p), ".zstd") {
		// A compressed log that ends in a torn frame: rebuilt as one that does.
		var torn bytes.Buffer
		if _, err := s.KeptBytes(ctx, sess.Path, "tail", &torn); err != nil && !errors.Is(err, archive.ErrNotFound) {
			return "", err
		}
		plan, err := planTorn(ctx, s, sess.ID, torn.Bytes())
		if err != nil {
			return "", err
		}
		if plan != nil {
			ms.Tail = "in-source"
			entry += "session.jsonl.zstd"
			return entry, b.entry(entry, mod, func(w io.Writer) error { return plan.write(ctx, s, sess.ID, w) })
		}
	}
	entry += name
	return entry, b.entry(entry, mod, func(w io.Writer) error {
		if whole {
			_, err := s.KeptBytes(ctx, sess.Path, "original", w)
			return err
		}
		cw := &countWriter{w: w}
		if err := s.ExportJSONL(ctx, sess.ID, cw); err != nil {
			return err
		}
		if sess.Health != string(archive.VerdictRecovered) {
			return nil // no tail kept aside now
		}
		var tail bytes.Buffer
		off, err := s.KeptBytes(ctx, sess.Path, "tail", &tail)
		if errors.Is(err, archive.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		if off != cw.n {
			// A tail that is not where the logical log ends: a torn zstd frame
			// planTorn could not fit (its offset is the compressed file's). What it
			// held that could be read is in the JSONL already.
			ms.Tail = "left-out"
			b.m.Omitted = append(b.m.Omitted, fmt.Sprintf("%s: the torn tail kept at byte %d of the compressed log (a torn zstd frame; its readable records are in the log)", sess.ID, off))
			return nil
		}
		ms.Tail = "in-source"
		_, err = tail.WriteTo(w)
		return err
	})
}

// headWriter keeps the first bytes written to it, then stops the writer.
type headWriter struct{ head []byte }

// errHead stops a headWriter's writer once it has its bytes.
var errHead = errors.New("export: have the head")

func (h *headWriter) Write(p []byte) (int, error) {
	n := min(len(p), len(zstdMagic)-len(h.head))
	h.head = append(h.head, p[:n]...)
	if len(h.head) == len(zstdMagic) {
		return n, errHead
	}
	return n, nil
}

// zstdMagic opens every zstd frame.
var zstdMagic = []byte{0x28, 0xB5, 0x2F, 0xFD}

// lastElems is the last n elements of slash path p, made safe as a bundle path:
// nothing that climbs out, no empty or dot elements.
func lastElems(p string, n int) string {
	var out []string
	for _, e := range strings.Split(p, "/") {
		if e == "" || e == "." || e == ".." || strings.ContainsAny(e, "\\:") {
			continue
		}
		out = append(out, e)
	}
	if len(out) > n {
		out = out[len(out)-n:]
	}
	if len(out) == 0 {
		return "session"
	}
	return strings.Join(out, "/")
}

// Close writes the manifest and finishes the zip.
func (b *BundleWriter) Close() error {
	f, err := b.zw.CreateHeader(&zip.FileHeader{Name: ManifestName, Method: zip.Deflate, Modified: b.modified.UTC()})
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	enc.SetIndent("", "  ")
	if err := enc.Encode(b.m); err != nil {
		return err
	}
	return b.zw.Close()
}

// countWriter counts what it passes on.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// hashOf is the lowercase hex SHA-256 of what h summed.
func hashOf(h hash.Hash) string { return hex.EncodeToString(h.Sum(nil)) }
