package export

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"time"

	"github.com/logbook/logbook/export/redact"
)

// FormatBundle is a zip of the session as HTML, Markdown and (unredacted exports
// only) JSONL, with a manifest.
const FormatBundle = "bundle"

// Manifest is a bundle's manifest.json: what the bundle holds and how it was made.
type Manifest struct {
	Version   int             `json:"logbook_export"` // 1
	Session   ManifestSession `json:"session"`
	Files     []ManifestFile  `json:"files"`
	Redaction *redact.Summary `json:"redaction"`         // nil when not redacted
	Omitted   []string        `json:"omitted,omitempty"` // what a redacted bundle leaves out, and why
}

// ManifestSession names the session a bundle holds.
type ManifestSession struct {
	ID        string    `json:"id"`
	Title     string    `json:"title"`
	Agent     string    `json:"agent"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	Events    int64     `json:"events"`
}

// ManifestFile is one file of a bundle with its size and SHA-256.
type ManifestFile struct {
	Name   string `json:"name"`
	Bytes  int    `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// WriteBundle writes t as a zip: ID.html, ID.md, ID.jsonl written by jsonl (nil for
// a redacted transcript: the exact log cannot be redacted, so it is left out and the
// manifest says so) and manifest.json. Entries carry the session's last event time,
// so the same export gives the same bytes.
func WriteBundle(w io.Writer, t *Transcript, jsonl func(io.Writer) error) error {
	s := t.Session
	m := Manifest{Version: 1, Redaction: t.Redaction, Session: ManifestSession{
		ID: s.ID, Title: s.Title, Agent: s.Agent, CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt, Events: s.Events}}
	zw := zip.NewWriter(w)
	add := func(name string, write func(io.Writer) error) error {
		var buf bytes.Buffer
		if err := write(&buf); err != nil {
			return err
		}
		f, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: s.UpdatedAt.UTC()})
		if err != nil {
			return err
		}
		if _, err := f.Write(buf.Bytes()); err != nil {
			return err
		}
		sum := sha256.Sum256(buf.Bytes())
		m.Files = append(m.Files, ManifestFile{Name: name, Bytes: buf.Len(), SHA256: hex.EncodeToString(sum[:])})
		return nil
	}
	if err := add(s.ID+".html", func(w io.Writer) error { return WriteHTML(w, t) }); err != nil {
		return err
	}
	if err := add(s.ID+".md", func(w io.Writer) error { return WriteMarkdown(w, t) }); err != nil {
		return err
	}
	if jsonl != nil {
		if err := add(s.ID+".jsonl", jsonl); err != nil {
			return err
		}
	} else {
		m.Omitted = append(m.Omitted, s.ID+".jsonl: the exact log cannot be redacted")
	}
	f, err := zw.CreateHeader(&zip.FileHeader{Name: "manifest.json", Method: zip.Deflate, Modified: s.UpdatedAt.UTC()})
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	enc.SetIndent("", "  ")
	if err := enc.Encode(m); err != nil {
		return err
	}
	return zw.Close()
}
