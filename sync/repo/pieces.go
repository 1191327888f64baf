package repo

import (
	"context"
	"crypto/sha256"
	"fmt"
	"hash"
	"io"
	gosync "sync"
	"time"

	"github.com/logbook/logbook/sync/crypt"
)

// Piece is one stored range of a session's bytes.
type Piece struct {
	Off  int64      `json:"off"`
	Len  int64      `json:"len"`
	Hash crypt.Hash `json:"sha256"`
}

// Entry describes one session's bytes as a machine last pushed them.
type Entry struct {
	SessionID string `json:"session_id"`
	Agent     string `json:"agent,omitempty"`
	Format    string `json:"format,omitempty"`
	// SourceKind says where the original came from (e.g. "claude-projects"),
	// never the path itself.
	SourceKind string     `json:"source_kind,omitempty"`
	Length     int64      `json:"length"`
	Hash       crypt.Hash `json:"sha256"`
	Pieces     []Piece    `json:"pieces"`
	// Generation counts the pushes that changed the bytes.
	Generation int64     `json:"generation"`
	Updated    time.Time `json:"updated"`
}

// PushStats says what a Push moved.
type PushStats struct {
	// Pieces and Bytes count uploaded pieces and their encrypted size.
	Pieces int
	Bytes  int64
	// Kept counts pieces reused from the previous entry unchanged;
	// Existing counts new pieces already on the remote (dedupe, resume).
	Kept, Existing int
}

// Push stores the size bytes of src as meta.SessionID and returns the new
// entry. prev is this machine's previous entry for the session, or nil.
//
// Chunking is designed for append-only logs. Boundaries come from a fixed
// grid of PieceSize, plus the lengths earlier pushes ended at:
//
//   - If src still starts with exactly prev's bytes (every prev piece's
//     hash is re-checked against src), prev's pieces are kept as they are
//     and only the bytes after prev.Length are cut, at grid lines. An
//     append of N bytes therefore uploads N bytes (plus age overhead),
//     never a re-upload of the old partial last piece.
//   - Frequent small appends leave grid cells made of many fragments; once
//     a cell holds more than MaxFragments pieces it is rewritten as one
//     piece (the whole cell, or up to the end for the last cell), bounding
//     manifest growth at a one-off cost of at most one cell.
//   - If the bytes changed in place (not an append), everything is cut on
//     the plain grid; unchanged whole cells keep their names and are not
//     uploaded again.
//
// Fixed grid rather than content-defined chunking: logs only grow, so
// CDC's robustness to insertions buys nothing, while grid-aligned whole
// cells are deterministic across machines and re-pushes.
//
// Each piece is checked for existence before upload, so a Push interrupted
// half way and run again uploads only what is missing.
func (r *Repo) Push(ctx context.Context, src io.ReaderAt, size int64, meta Entry, prev *Entry) (Entry, PushStats, error) {
	var st PushStats
	// whole hashes the session; keptPrefix feeds it the kept prefix, so
	// the old bytes are read and hashed once.
	whole := sha256.New()
	kept := r.keptPrefix(src, size, prev, whole)
	pieces := append([]Piece(nil), kept...)
	start := int64(0)
	if n := len(kept); n > 0 {
		start = kept[n-1].Off + kept[n-1].Len
	}
	for off := start; off < size; {
		end := min(size, (off/r.PieceSize+1)*r.PieceSize)
		pieces = append(pieces, Piece{Off: off, Len: end - off})
		off = end
	}
	pieces = r.consolidate(pieces, size)

	// Hash every piece in order (feeding the whole-session hash) and
	// upload the ones that are not kept.
	keptSet := make(map[Piece]bool, len(kept))
	for _, p := range kept {
		keptSet[p] = true
	}
	var (
		mu       gosync.Mutex
		firstErr error
		wg       gosync.WaitGroup
	)
	sem := make(chan struct{}, max(1, r.Parallel))
	for i := range pieces {
		p := &pieces[i]
		if keptSet[*p] {
			st.Kept++
			continue
		}
		buf := make([]byte, p.Len)
		if _, err := src.ReadAt(buf, p.Off); err != nil {
			wg.Wait()
			return Entry{}, st, fmt.Errorf("push %s: read at %d: %w", meta.SessionID, p.Off, err)
		}
		whole.Write(buf)
		p.Hash = crypt.Sum(buf)
		if ctx.Err() != nil {
			break
		}
		sem <- struct{}{}
		wg.Add(1)
		go func(name string, data []byte) {
			defer wg.Done()
			defer func() { <-sem }()
			n, err := r.putSealed(ctx, name, compressPiece(data), true)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if firstErr == nil {
					firstErr = err
				}
				return
			}
			if n == 0 {
				st.Existing++
			} else {
				st.Pieces++
				st.Bytes += n
			}
		}(r.pieceName(p.Hash), buf)
	}
	wg.Wait()
	if firstErr == nil {
		firstErr = ctx.Err()
	}
	if firstErr != nil {
		return Entry{}, st, fmt.Errorf("push %s: %w", meta.SessionID, firstErr)
	}

	e := meta
	e.Length = size
	copy(e.Hash[:], whole.Sum(nil))
	e.Pieces = pieces
	e.Updated = r.Now().UTC()
	e.Generation = 1
	if prev != nil {
		e.Generation = prev.Generation
		if prev.Hash != e.Hash || prev.Length != e.Length {
			e.Generation++
		}
	}
	return e, st, nil
}

// keptPrefix returns prev's pieces if src still begins with them, having
// written those bytes to whole; otherwise it returns nil and leaves whole
// reset.
func (r *Repo) keptPrefix(src io.ReaderAt, size int64, prev *Entry, whole hash.Hash) (kept []Piece) {
	defer func() {
		if kept == nil {
			whole.Reset()
		}
	}()
	if prev == nil || prev.Length > size || len(prev.Pieces) == 0 {
		return nil
	}
	var buf []byte
	next := int64(0)
	for _, p := range prev.Pieces {
		if p.Off != next {
			return nil // not contiguous: distrust it
		}
		if int64(cap(buf)) < p.Len {
			buf = make([]byte, p.Len)
		}
		b := buf[:p.Len]
		if _, err := src.ReadAt(b, p.Off); err != nil || crypt.Sum(b) != p.Hash {
			return nil
		}
		whole.Write(b)
		next += p.Len
	}
	if next != prev.Length {
		return nil
	}
	return prev.Pieces
}

// consolidate replaces each complete grid cell made of more than
// MaxFragments pieces with one whole-cell piece (hash left for Push).
func (r *Repo) consolidate(pieces []Piece, size int64) []Piece {
	out := pieces[:0:0]
	for i := 0; i < len(pieces); {
		cell := pieces[i].Off / r.PieceSize
		j := i
		for j < len(pieces) && pieces[j].Off/r.PieceSize == cell &&
			(pieces[j].Off+pieces[j].Len-1)/r.PieceSize == cell {
			j++
		}
		// The last cell may be partial; it is merged too once fragmented,
		// so a log synced every few seconds does not grow an unbounded
		// piece list.
		cellStart, cellEnd := cell*r.PieceSize, min((cell+1)*r.PieceSize, size)
		if j-i > r.MaxFragments && pieces[i].Off == cellStart &&
			pieces[j-1].Off+pieces[j-1].Len == cellEnd {
			out = append(out, Piece{Off: cellStart, Len: cellEnd - cellStart})
			i = j
			continue
		}
		if j == i { // a piece spanning cells (PieceSize changed): keep it
			j = i + 1
		}
		out = append(out, pieces[i:j]...)
		i = j
	}
	return out
}

// Pull writes the session's bytes to w, verifying every piece and the whole.
func (r *Repo) Pull(ctx context.Context, e Entry, w io.Writer) error {
	_, err := r.PullN(ctx, e, w)
	return err
}

// PullN is Pull that also returns the bytes fetched from the remote
// (encrypted, compressed: what crossed the network).
func (r *Repo) PullN(ctx context.Context, e Entry, w io.Writer) (fetched int64, err error) {
	whole := sha256.New()
	var off int64
	for _, p := range e.Pieces {
		if p.Off != off {
			return fetched, fmt.Errorf("pull %s: %w: piece at %d, want %d", e.SessionID, crypt.ErrCorrupt, p.Off, off)
		}
		name := r.pieceName(p.Hash)
		z, n, err := r.getSealed(ctx, name, nil, false)
		fetched += n
		if err != nil {
			return fetched, fmt.Errorf("pull %s: %w", e.SessionID, err)
		}
		pt, err := decompressPiece(name, z, p.Len, p.Hash)
		if err != nil {
			return fetched, fmt.Errorf("pull %s: %w", e.SessionID, err)
		}
		whole.Write(pt)
		if _, err := w.Write(pt); err != nil {
			return fetched, fmt.Errorf("pull %s: %w", e.SessionID, err)
		}
		off += p.Len
	}
	var got crypt.Hash
	copy(got[:], whole.Sum(nil))
	if off != e.Length || got != e.Hash {
		return fetched, fmt.Errorf("pull %s: %w: assembled bytes do not match the entry", e.SessionID, crypt.ErrCorrupt)
	}
	return fetched, nil
}
