package openhands

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// FileState is what a read saw of one file: enough to notice, by stat, that
// it changed, and to prove, by hash, that it really did.
type FileState struct {
	Name    string    `json:"name"`
	Role    FileRole  `json:"role"`
	Size    int64     `json:"size"`
	ModTime time.Time `json:"mod_time"`
	Hash    string    `json:"hash"`
}

// Snapshot is what a read saw of a conversation. Keep it between scans and
// pass it to Changed and ReadSince.
type Snapshot struct {
	Unit  Unit        `json:"unit"`
	Files []FileState `json:"files"`
	// EventIDs are the ids of the records read, in order; new events with
	// one of these ids are duplicates.
	EventIDs []string `json:"event_ids"`
	// Cursor is where a JSONL read stopped.
	Cursor *Cursor `json:"cursor,omitempty"`
}

// Snapshot returns what c saw. For JSONL the file state covers the whole
// file as it was, not only the bytes kept.
func (c *Conversation) Snapshot() Snapshot {
	s := Snapshot{Unit: c.Unit, Cursor: c.Cursor}
	for _, f := range c.Files {
		fs := FileState{Name: f.Name, Role: f.Role, Size: f.Size, ModTime: f.ModTime, Hash: f.Hash}
		s.Files = append(s.Files, fs)
	}
	if c.Unit.Layout == LayoutJSONL && len(s.Files) == 1 {
		if fi, err := os.Lstat(c.Unit.Path); err == nil {
			s.Files[0].Size, s.Files[0].ModTime = fi.Size(), fi.ModTime()
		}
	}
	for _, r := range c.Records {
		s.EventIDs = append(s.EventIDs, r.Event.ID)
	}
	return s
}

// filePath is where a snapshot's file lives.
func (s Snapshot) filePath(name string) string {
	if s.Unit.Layout.SingleFile() {
		return s.Unit.Path
	}
	return filepath.Join(s.Unit.Path, filepath.FromSlash(name))
}

// Changed reports, by stat and folder listing alone (no file is read),
// whether the conversation may differ from snap: a file's size or mtime
// moved, a file vanished, or a new event file appeared.
func Changed(ctx context.Context, snap Snapshot) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	if snap.Unit.Layout.SingleFile() {
		if len(snap.Files) == 0 {
			_, err := os.Lstat(snap.Unit.Path)
			return err == nil, nil
		}
		return statMoved(snap), nil
	}
	// A folder: a new event file is the usual change (a live conversation), and
	// one listing tells it, before a stat of every file held.
	if added, err := folderAdded(snap); added || err != nil {
		return true, nil
	}
	return statMoved(snap), nil
}

// statMoved reports whether a file of snap is gone or its size or mtime moved.
func statMoved(snap Snapshot) bool {
	for _, f := range snap.Files {
		fi, err := os.Lstat(snap.filePath(f.Name))
		if err != nil || fi.Size() != f.Size || !fi.ModTime().Equal(f.ModTime) {
			return true
		}
	}
	return false
}

// folderAdded reports whether a folder conversation has an event file or a side
// file snap does not hold; an error when it cannot be listed.
func folderAdded(snap Snapshot) (bool, error) {
	known := make(map[string]bool, len(snap.Files))
	for _, f := range snap.Files {
		known[f.Name] = true
	}
	spec, numbered := folderSpecs[snap.Unit.Layout]
	sub, re := spec.sub, spec.re
	if !numbered {
		re = appBName
		if snap.Unit.Layout == LayoutAppA {
			re = appAName
		}
	}
	entries, err := os.ReadDir(filepath.Join(snap.Unit.Path, sub))
	if err != nil {
		return false, err
	}
	for _, e := range entries {
		// The name's known first: in an unchanged folder every event file is,
		// and a map lookup costs less than a match.
		name := e.Name()
		if sub != "" {
			name = sub + "/" + name
		}
		if !known[name] && re.MatchString(e.Name()) {
			return true, nil
		}
	}
	for _, s := range spec.sides {
		if !known[s.name] {
			if _, err := os.Lstat(filepath.Join(snap.Unit.Path, s.name)); err == nil {
				return true, nil
			}
		}
	}
	return false, nil
}

// Delta is what ReadSince found.
type Delta struct {
	// Unchanged is true when nothing was read because nothing changed.
	Unchanged bool `json:"unchanged"`
	// Rewritten lists earlier event files (or the single file) whose bytes
	// changed or that vanished. ReadSince then reads everything again.
	Rewritten []string `json:"rewritten,omitempty"`
	// Reset is true when Conversation is a full re-read, not a delta.
	Reset bool `json:"reset"`
	// Conversation holds only the new and changed files and the new records
	// (their Index continues the snapshot's), or everything when Reset.
	// Its Meta reflects only what was read this time.
	Conversation *Conversation `json:"conversation"`
	// Next is the snapshot to keep for the next call.
	Next Snapshot `json:"next"`
}

// ReadSince reads u with the default limits; see Reader.ReadSince.
func ReadSince(ctx context.Context, snap Snapshot) (*Delta, error) {
	return NewReader().ReadSince(ctx, snap)
}

// ReadSince reads only what changed since snap: new event files, new JSONL
// lines past the cursor, and side files (base_state.json, meta.json) whose
// bytes changed. An earlier event file (or line before the cursor, or a
// single-file conversation) whose bytes changed is a rewrite: it is reported
// in Rewritten and the whole conversation is read again.
func (r *Reader) ReadSince(ctx context.Context, snap Snapshot) (*Delta, error) {
	changed, err := Changed(ctx, snap)
	if err != nil {
		return nil, err
	}
	if !changed {
		return &Delta{Unchanged: true, Conversation: &Conversation{Unit: snap.Unit, Verdict: VerdictOK}, Next: snap}, nil
	}
	unchanged, rewritten := r.compare(snap)
	if snap.Unit.Layout == LayoutJSONL && snap.Cursor != nil && len(rewritten) == 0 {
		if !r.tailIntact(snap) {
			rewritten = append(rewritten, filepath.Base(snap.Unit.Path))
		}
	}
	if len(rewritten) > 0 || (snap.Unit.Layout.SingleFile() && snap.Unit.Layout != LayoutJSONL) {
		c, err := r.Read(ctx, snap.Unit)
		if err != nil {
			return nil, err
		}
		if len(rewritten) > 0 {
			c.Problems = append(c.Problems, Problem{Kind: ProblemRewritten, Severity: SeverityNote, File: rewritten[0],
				Message: fmt.Sprintf("%d earlier file(s) rewritten since the last read; read again in full", len(rewritten))})
		}
		return &Delta{Rewritten: rewritten, Reset: true, Conversation: c, Next: c.Snapshot()}, nil
	}
	b := &builder{conv: &Conversation{Unit: snap.Unit}, max: r.max(), seen: map[string]int{}, known: unchanged, base: len(snap.EventIDs)}
	for _, id := range snap.EventIDs {
		b.seen[id] = -1
	}
	switch snap.Unit.Layout {
	case LayoutJSONL:
		var from Cursor
		if snap.Cursor != nil {
			from = *snap.Cursor
		}
		err = b.readJSONL(ctx, snap.Unit, from)
	case LayoutAppA, LayoutAppB:
		err = b.readApp(ctx, snap.Unit)
	default:
		err = b.readFolder(ctx, snap.Unit)
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", snap.Unit.Path, err)
	}
	b.finish()
	return &Delta{Conversation: b.conv, Next: merge(snap, b.conv)}, nil
}

func (r *Reader) max() int64 {
	if r.MaxFileSize <= 0 {
		return DefaultMaxFileSize
	}
	return r.MaxFileSize
}

// compare sorts the snapshot's files into unchanged ones and rewritten event
// files. A side file that changed is neither: it is simply read again.
func (r *Reader) compare(snap Snapshot) (unchanged map[string]bool, rewritten []string) {
	unchanged = map[string]bool{}
	for _, f := range snap.Files {
		p := snap.filePath(f.Name)
		fi, err := os.Lstat(p)
		if err == nil && fi.Size() == f.Size && fi.ModTime().Equal(f.ModTime) {
			unchanged[f.Name] = true
			continue
		}
		if snap.Unit.Layout == LayoutJSONL {
			continue // checked by its cursor
		}
		same := false
		if err == nil {
			if data, _, rerr := readRegular(p, r.max()); rerr == nil && hashOf(data) == f.Hash {
				same = true
			}
		}
		switch {
		case same:
			unchanged[f.Name] = true
		case f.Role == RoleEvent || f.Role == RoleContainer:
			rewritten = append(rewritten, f.Name)
		}
	}
	return unchanged, rewritten
}

// tailIntact checks that the JSONL file still holds the last line read
// where it was.
func (r *Reader) tailIntact(snap Snapshot) bool {
	c := snap.Cursor
	f, fi, err := openRegular(snap.Unit.Path)
	if err != nil {
		return false
	}
	defer f.Close()
	if fi.Size() < c.Offset {
		return false
	}
	if c.TailEnd == 0 {
		return true
	}
	buf := make([]byte, c.TailEnd-c.TailStart)
	if _, err := f.ReadAt(buf, c.TailStart); err != nil && err != io.EOF {
		return false
	}
	return hashOf(buf) == c.TailHash
}

// merge adds a delta's files and records to a snapshot.
func merge(prev Snapshot, c *Conversation) Snapshot {
	next := c.Snapshot()
	byName := map[string]bool{}
	for _, f := range next.Files {
		byName[f.Name] = true
	}
	var files []FileState
	for _, f := range prev.Files {
		if !byName[f.Name] {
			files = append(files, f)
		}
	}
	next.Files = append(files, next.Files...)
	next.EventIDs = append(append([]string(nil), prev.EventIDs...), next.EventIDs...)
	if next.Cursor == nil {
		next.Cursor = prev.Cursor
	}
	return next
}
