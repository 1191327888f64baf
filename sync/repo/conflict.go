package repo

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/logbook/logbook/sync/crypt"
)

// Relation says how two versions of one session's bytes relate.
type Relation int

const (
	// Unknown: the piece lists cannot decide; Relate reads bytes.
	Unknown Relation = iota
	// Same: identical bytes.
	Same
	// Prefix: a's bytes are a prefix of b's (b grew from a).
	Prefix
	// Extends: b's bytes are a prefix of a's.
	Extends
	// Diverged: neither is a prefix of the other: a conflict.
	Diverged
)

func (r Relation) String() string {
	return [...]string{"unknown", "same", "prefix", "extends", "diverged"}[r]
}

// Compare relates a and b from their entries alone, without I/O. It is
// exact when it answers anything but Unknown.
func Compare(a, b Entry) Relation {
	if a.Length == b.Length {
		if a.Hash == b.Hash {
			return Same
		}
		return Diverged
	}
	if a.Length > b.Length {
		switch Compare(b, a) {
		case Prefix:
			return Extends
		case Diverged:
			return Diverged
		}
		return Unknown
	}
	// a is shorter. Pieces at the same offset and length with different
	// hashes prove divergence; a's whole list appearing in b proves the
	// prefix (the usual case: b was pushed from a by appending).
	var next int64
	for _, p := range a.Pieces {
		if p.Off != next {
			return Unknown // malformed; let Relate read the bytes
		}
		next += p.Len
	}
	if next != a.Length {
		return Unknown
	}
	bp := make(map[[2]int64]crypt.Hash, len(b.Pieces))
	for _, p := range b.Pieces {
		bp[[2]int64{p.Off, p.Len}] = p.Hash
	}
	all := true
	for _, p := range a.Pieces {
		h, ok := bp[[2]int64{p.Off, p.Len}]
		switch {
		case ok && h != p.Hash:
			return Diverged
		case !ok:
			all = false
		}
	}
	if all && len(a.Pieces) > 0 || a.Length == 0 {
		return Prefix
	}
	return Unknown
}

// Relate is Compare, resolving Unknown by reading the longer version's
// first bytes from the remote and hashing them against the shorter's hash.
func (r *Repo) Relate(ctx context.Context, a, b Entry) (Relation, error) {
	rel := Compare(a, b)
	if rel != Unknown {
		return rel, nil
	}
	short, long, shortIsA := a, b, true
	if a.Length > b.Length {
		short, long, shortIsA = b, a, false
	}
	h := sha256.New()
	err := r.Pull(ctx, long, &limitWriter{w: h, left: short.Length})
	if err != nil && !errors.Is(err, errLimit) {
		return Unknown, err
	}
	var got crypt.Hash
	copy(got[:], h.Sum(nil))
	switch {
	case got != short.Hash:
		return Diverged, nil
	case shortIsA:
		return Prefix, nil
	default:
		return Extends, nil
	}
}

var errLimit = errors.New("repo: enough bytes")

// limitWriter takes left bytes, then stops the Pull with errLimit.
type limitWriter struct {
	w    io.Writer
	left int64
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if l.left <= 0 {
		return 0, errLimit
	}
	n := min(int64(len(p)), l.left)
	l.w.Write(p[:n])
	l.left -= n
	if l.left == 0 {
		return int(n), errLimit
	}
	return int(n), nil
}

// Version is one machine's entry for a session.
type Version struct {
	Machine string
	Entry   Entry
}

// Conflict is a session whose versions diverged on different machines.
// Nothing is resolved: every version stays on the remote and in its
// machine's manifest; the importer keeps them all (e.g. as siblings).
type Conflict struct {
	SessionID string
	Versions  []Version
}

// Conflicts groups the manifests' entries by session id and reports every
// session with at least two versions that are not prefixes of one another
// (a longer version that extends another is an update, not a conflict).
func (r *Repo) Conflicts(ctx context.Context, manifests []Manifest) ([]Conflict, error) {
	by := map[string][]Version{}
	for _, m := range manifests {
		for _, e := range m.Sessions {
			by[e.SessionID] = append(by[e.SessionID], Version{Machine: m.Machine, Entry: e})
		}
	}
	var out []Conflict
	for id, vs := range by {
		if len(vs) < 2 {
			continue
		}
		diverged := false
		for i := 0; i < len(vs) && !diverged; i++ {
			for j := i + 1; j < len(vs); j++ {
				rel, err := r.Relate(ctx, vs[i].Entry, vs[j].Entry)
				if err != nil {
					return nil, fmt.Errorf("conflicts %s: %w", id, err)
				}
				if rel == Diverged {
					diverged = true
					break
				}
			}
		}
		if diverged {
			sort.Slice(vs, func(i, j int) bool { return vs[i].Machine < vs[j].Machine })
			out = append(out, Conflict{SessionID: id, Versions: vs})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].SessionID < out[j].SessionID })
	return out, nil
}
