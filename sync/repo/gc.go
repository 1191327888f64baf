package repo

import (
	"context"
	"fmt"
	"strings"
	"time"

	arcsync "github.com/logbook/logbook/sync"
)

// DefaultGrace is how old an unreferenced object must be before GC deletes
// it. It bounds how long a push may take, and how long a machine may sit
// between a pull and the push that reuses pulled pieces (see GC).
const DefaultGrace = 7 * 24 * time.Hour

// GCStats says what GC found and did.
type GCStats struct {
	Objects     int   `json:"objects"`      // pieces and manifests listed
	Referenced  int   `json:"referenced"`   // kept: named by a live manifest
	Young       int   `json:"young"`        // kept: unreferenced but newer than the grace period
	Deleted     int   `json:"deleted"`      // deleted (or, in a dry run, would be)
	DeletedSize int64 `json:"deleted_size"` // their bytes
}

// GC deletes the pieces and manifests that no live manifest references
// and that are older than grace. It is safe with other machines pushing
// and pulling at the same time, by this rule:
//
//   - Live manifests are every machine's current one (its head) and every
//     manifest written within the grace period. Heads are read first, so a
//     head moved while GC runs points at a manifest younger than grace.
//   - A piece is kept if a live manifest lists it or if it is younger than
//     grace: a push in flight uploads its pieces before its manifest, and
//     those are new.
//   - A push that finds a piece already stored (dedupe, resume) trusts it
//     only if it is younger than grace/2 (Repo.Fresh), and otherwise uploads
//     it again, which makes it young: so GC never deletes a piece that a
//     manifest about to be committed relies on, as long as a push takes
//     less than grace/2.
//
// Heads and keys are never deleted. A head that cannot be read stops GC
// with an error (a skipped machine's pieces would look unreferenced).
func (r *Repo) GC(ctx context.Context, grace time.Duration, dryRun bool) (GCStats, error) {
	var st GCStats
	if grace <= 0 {
		return st, fmt.Errorf("gc: grace period %v: it must be positive", grace)
	}
	heads, err := r.Manifests(ctx)
	if err != nil {
		return st, fmt.Errorf("gc: %w", err)
	}
	now := r.Now()
	var objs []arcsync.Object
	for _, prefix := range []string{"manifests/", "data/"} {
		if err := r.Remote.List(ctx, prefix, func(o arcsync.Object) error {
			objs = append(objs, o)
			return nil
		}); err != nil {
			return st, fmt.Errorf("gc: list %s: %w", prefix, err)
		}
	}
	live := map[string]bool{}
	mark := func(m Manifest) {
		live[m.Name] = true
		for _, e := range m.Sessions {
			for _, p := range e.Pieces {
				live[r.pieceName(p.Hash)] = true
			}
		}
	}
	for _, m := range heads {
		mark(m)
	}
	young := func(o arcsync.Object) bool { return now.Sub(o.ModTime) < grace }
	for _, o := range objs {
		if strings.HasPrefix(o.Name, "manifests/") && young(o) && !live[o.Name] {
			m, err := r.readManifest(ctx, o.Name)
			if err != nil {
				return st, fmt.Errorf("gc: %w", err)
			}
			mark(m)
		}
	}
	for _, o := range objs {
		st.Objects++
		switch {
		case live[o.Name]:
			st.Referenced++
		case young(o):
			st.Young++
		default:
			st.Deleted++
			st.DeletedSize += o.Size
			if dryRun {
				continue
			}
			if err := r.Remote.Delete(ctx, o.Name); err != nil {
				return st, fmt.Errorf("gc: delete %s: %w", o.Name, err)
			}
		}
	}
	return st, nil
}
