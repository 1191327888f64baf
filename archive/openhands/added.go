package openhands

import (
	"context"
	"fmt"
	"path"
	"strconv"
	"strings"
)

// ReadAdded reads, of a folder conversation read before (snap), only the files
// named in added (paths inside the folder, forward slashes): event files its
// writer added since, and side files (meta.json…) it replaced. Nothing else is
// listed, stat'ed or read, so a read costs what the files named hold, not what
// the conversation does. It is for a writer that changes a folder in no other
// way and says what it wrote: the archive's own pushed conversations, whose
// event files are never rewritten. A name that is not a file of the layout is
// ignored. ok is false when snap is not of a folder layout with numbered event
// files; then the caller reads with ReadSince.
func (r *Reader) ReadAdded(ctx context.Context, snap Snapshot, added []string) (d *Delta, ok bool, err error) {
	spec, numbered := folderSpecs[snap.Unit.Layout]
	if !numbered {
		return nil, false, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, false, err
	}
	replaced := map[string]bool{}
	for _, a := range added {
		replaced[a] = true
	}
	b := &builder{conv: &Conversation{Unit: snap.Unit}, max: r.max(), seen: make(map[string]int, len(snap.EventIDs)),
		known: make(map[string]bool, len(snap.Files)), base: len(snap.EventIDs)}
	for _, id := range snap.EventIDs {
		b.seen[id] = -1
	}
	for _, f := range snap.Files {
		if !replaced[f.Name] {
			b.known[f.Name] = true
		}
		if f.Role == RoleEvent {
			if seq, ok := seqOfName(spec, f.Name); ok && seq >= b.seqFrom {
				b.seqFrom = seq + 1
			}
		}
	}
	for _, s := range spec.sides {
		if replaced[s.name] {
			b.readState(snap.Unit.Path, s.name, s.role)
		}
	}
	var files []seqFile
	for _, a := range added {
		if b.known[a] {
			continue
		}
		if seq, ok := seqOfName(spec, a); ok {
			files = append(files, seqFile{seq: seq, name: a})
		}
	}
	if err := b.readSeqFiles(ctx, snap.Unit.Path, files); err != nil {
		return nil, true, fmt.Errorf("read %s: %w", snap.Unit.Path, err)
	}
	b.finish()
	return &Delta{Conversation: b.conv, Next: merge(snap, b.conv)}, true, nil
}

// seqOfName is the sequence number of an event file of spec's layout (a path
// inside the folder), if name is one.
func seqOfName(spec folderSpec, name string) (int64, bool) {
	dir, base := path.Split(name)
	if strings.TrimSuffix(dir, "/") != spec.sub {
		return 0, false
	}
	m := matchSeq(spec.re, base)
	if m == nil {
		return 0, false
	}
	seq, err := strconv.ParseInt(m[1], 10, 64)
	return seq, err == nil
}
