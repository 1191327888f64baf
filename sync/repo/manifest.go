package repo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/klauspost/compress/zstd"

	arcsync "github.com/logbook/logbook/sync"
	"github.com/logbook/logbook/sync/crypt"
)

// ManifestVersion is the format written; readers refuse newer ones and
// the development format 1, whose pieces were not compressed.
const ManifestVersion = 2

// ErrOlderFormat means a manifest of format 1 (uncompressed pieces), which
// only development builds wrote: start a new remote.
var ErrOlderFormat = errors.New("repo: manifest written by a development build of Logbook (format 1, uncompressed pieces); sync to a new remote")

// ErrNewerFormat means another machine runs a newer Logbook.
var ErrNewerFormat = errors.New("repo: manifest written by a newer Logbook; update this machine")

// Manifest is one machine's view of its sessions at one sync.
type Manifest struct {
	Version int       `json:"version"`
	Machine string    `json:"machine"`
	Seq     int64     `json:"seq"`
	Created time.Time `json:"created"`
	// Prev names the manifest this one replaced, for history and repair.
	Prev     string  `json:"prev,omitempty"`
	Sessions []Entry `json:"sessions"`

	// Name is the manifest's object name (not stored inside it).
	Name string `json:"-"`
}

// head is the small mutable pointer to a machine's latest manifest.
type head struct {
	Machine  string `json:"machine"`
	Seq      int64  `json:"seq"`
	Manifest string `json:"manifest"`
}

func (r *Repo) machineTag(machine string) string { return r.Key.Tag("machine", machine) }

func (r *Repo) headName(machine string) string { return "heads/" + r.machineTag(machine) }

// Commit writes a new manifest for machine listing sessions, then points
// the machine's head at it. The manifest is immutable and named by its
// content; the head is the only object replaced, and only this machine
// writes it, so two machines committing at once cannot interfere. A crash
// before the head is written leaves the previous manifest current.
func (r *Repo) Commit(ctx context.Context, machine string, sessions []Entry) (Manifest, error) {
	prev, err := r.Head(ctx, machine)
	if err != nil && !arcsync.IsNotExist(err) {
		return Manifest{}, err
	}
	m := Manifest{
		Version:  ManifestVersion,
		Machine:  machine,
		Seq:      prev.Seq + 1,
		Created:  r.Now().UTC(),
		Prev:     prev.Name,
		Sessions: sessions,
	}
	js, err := json.Marshal(m)
	if err != nil {
		return Manifest{}, fmt.Errorf("commit: %w", err)
	}
	// Piece hashes are hex in JSON; zstd wins back about half.
	enc, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1), zstd.WithLowerEncoderMem(true))
	z := enc.EncodeAll(js, nil)
	enc.Close()
	m.Name = "manifests/" + r.machineTag(machine) + "/" + r.Key.Name(crypt.Sum(z))
	if _, err := r.putSealed(ctx, m.Name, z, true); err != nil {
		return Manifest{}, fmt.Errorf("commit manifest: %w", err)
	}
	hj, _ := json.Marshal(head{Machine: machine, Seq: m.Seq, Manifest: m.Name})
	if _, err := r.putSealed(ctx, r.headName(machine), hj, false); err != nil {
		return Manifest{}, fmt.Errorf("commit head: %w", err)
	}
	return m, nil
}

// Head reads machine's current manifest; ErrNotExist if it never synced.
func (r *Repo) Head(ctx context.Context, machine string) (Manifest, error) {
	m, err := r.readHead(ctx, r.headName(machine), false)
	if err == nil && m.Machine != machine {
		return Manifest{}, fmt.Errorf("head of %s: %w: it names machine %q", machine, crypt.ErrCorrupt, m.Machine)
	}
	return m, err
}

func (r *Repo) readHead(ctx context.Context, name string, listed bool) (Manifest, error) {
	hj, _, err := r.getSealed(ctx, name, nil, listed)
	if err != nil {
		return Manifest{}, err
	}
	var h head
	if err := json.Unmarshal(hj, &h); err != nil {
		return Manifest{}, fmt.Errorf("%s: %w: %v", name, crypt.ErrCorrupt, err)
	}
	// A head moved from another machine's slot would be authentic but
	// misplaced; its name must match the machine inside it.
	if name != r.headName(h.Machine) || !strings.HasPrefix(h.Manifest, "manifests/"+r.machineTag(h.Machine)+"/") {
		return Manifest{}, fmt.Errorf("%s: %w: head does not belong here", name, crypt.ErrCorrupt)
	}
	m, err := r.readManifest(ctx, h.Manifest)
	if err != nil {
		return Manifest{}, err
	}
	if m.Machine != h.Machine || m.Seq != h.Seq {
		return Manifest{}, fmt.Errorf("%s: %w: head and manifest disagree", name, crypt.ErrCorrupt)
	}
	return m, nil
}

func (r *Repo) readManifest(ctx context.Context, name string) (Manifest, error) {
	z, _, err := r.getSealed(ctx, name, nil, false)
	if err != nil {
		return Manifest{}, err
	}
	// The name is the keyed hash of the compressed bytes: check it, so an
	// authentic manifest cannot be swapped for an older one.
	if want := r.Key.Name(crypt.Sum(z)); !strings.HasSuffix(name, "/"+want) {
		return Manifest{}, fmt.Errorf("%s: %w: content does not match name", name, crypt.ErrCorrupt)
	}
	dec, _ := zstd.NewReader(nil, zstd.WithDecoderMaxMemory(maxObject), zstd.WithDecoderConcurrency(1))
	defer dec.Close()
	js, err := dec.DecodeAll(z, nil)
	if err != nil {
		return Manifest{}, fmt.Errorf("%s: %w: %v", name, crypt.ErrCorrupt, err)
	}
	var m Manifest
	if err := json.NewDecoder(bytes.NewReader(js)).Decode(&m); err != nil {
		return Manifest{}, fmt.Errorf("%s: %w: %v", name, crypt.ErrCorrupt, err)
	}
	if m.Version < ManifestVersion {
		return Manifest{}, fmt.Errorf("%s: %w", name, ErrOlderFormat)
	}
	if m.Version > ManifestVersion {
		return Manifest{}, fmt.Errorf("%s: %w (version %d)", name, ErrNewerFormat, m.Version)
	}
	m.Name = name
	return m, nil
}

// Manifests reads every machine's current manifest, in head-name order.
// Any head that cannot be read (wrong key, corrupt) fails the call: a
// silently skipped machine would look like deleted sessions.
func (r *Repo) Manifests(ctx context.Context) ([]Manifest, error) {
	var names []string
	if err := r.Remote.List(ctx, "heads/", func(o arcsync.Object) error {
		names = append(names, o.Name)
		return nil
	}); err != nil {
		return nil, fmt.Errorf("list heads: %w", err)
	}
	out := make([]Manifest, 0, len(names))
	for _, n := range names {
		m, err := r.readHead(ctx, n, true)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}
