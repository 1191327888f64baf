package archivesync

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/internal/atomicfile"
	"github.com/logbook/logbook/sync/crypt"
	"github.com/logbook/logbook/sync/repo"
)

// Summary is what one sync (`logbook sync now`, the app's timer) did over
// every remote: the counts the CLI prints and the UI shows.
type Summary struct {
	Machine string `json:"machine"`
	// Pushed and Pulled count sessions sent and imported.
	Pushed int `json:"pushed"`
	Pulled int `json:"pulled"`
	// BytesUp and BytesDown are what crossed the network (encrypted,
	// compressed), manifests and heads included.
	BytesUp   int64 `json:"bytes_up"`
	BytesDown int64 `json:"bytes_down"`
	// Conflicts counts the sessions whose versions diverged, kept.
	Conflicts int `json:"conflicts"`
	// Errors are the failures, one per remote that failed.
	Errors   []string       `json:"errors"`
	Remotes  []RemoteReport `json:"remotes"`
	Started  time.Time      `json:"started"`
	Finished time.Time      `json:"finished"`
}

// RemoteReport is one remote's part of a Summary.
type RemoteReport struct {
	Remote    string      `json:"remote"`
	Push      *PushReport `json:"push"`
	Pull      *PullReport `json:"pull"`
	BytesUp   int64       `json:"bytes_up"`
	BytesDown int64       `json:"bytes_down"`
	Error     string      `json:"error,omitempty"`
}

// Options tune SyncAll.
type Options struct {
	// Import is passed to the importer for pulled sessions.
	Import archive.ImportOptions
	// Progress, when set, is told what happens, one line at a time.
	Progress func(msg string)
	// Push and Pull select the halves; both false means both.
	Push, Pull bool
}

// SyncAll pushes and pulls once through every remote of the data
// directory, in order, under the data directory's sync lock. A failing
// remote is reported in Summary.Errors and the others still run; the
// returned error is non-nil when any failed (the first failure), so a
// wrong key or a tampered object makes the command exit non-zero. A pull
// that fails imports nothing: the archive is unchanged.
func SyncAll(ctx context.Context, store *archive.Store, p Paths, o Options) (*Summary, error) {
	if !o.Push && !o.Pull {
		o.Push, o.Pull = true, true
	}
	c, release, err := LockConfig(p)
	if err != nil {
		return nil, err
	}
	defer release()
	sum := &Summary{Machine: c.Machine, Errors: []string{}, Remotes: []RemoteReport{}, Started: time.Now().UTC()}
	var first error
	fail := func(rr *RemoteReport, err error) {
		rr.Error = err.Error()
		sum.Errors = append(sum.Errors, fmt.Sprintf("%s: %v", c.Remotes()[len(sum.Remotes)], err))
		if first == nil {
			first = err
		}
	}
	conflicts := map[string]bool{}
	for i, spec := range c.Remotes() {
		rr := RemoteReport{Remote: spec}
		rp, err := OpenRepo(ctx, p, spec)
		if err != nil {
			fail(&rr, err)
			sum.Remotes = append(sum.Remotes, rr)
			continue
		}
		sy := New(store, rp, p.ForRemote(c, i), c.Machine)
		sy.Import = o.Import
		sy.Progress = o.Progress
		func() {
			if o.Push {
				if rr.Push, err = sy.Push(ctx); err != nil {
					fail(&rr, fmt.Errorf("push: %w", err))
					return
				}
				sum.Pushed += rr.Push.Pushed
			}
			if o.Pull {
				if rr.Pull, err = sy.Pull(ctx); err != nil {
					fail(&rr, fmt.Errorf("pull: %w", err))
					return
				}
				sum.Pulled += rr.Pull.Pulled
				for _, cf := range rr.Pull.Conflicts {
					conflicts[cf.SessionID] = true
				}
			}
		}()
		if m := Metered(rp.Remote); m != nil {
			rr.BytesUp, rr.BytesDown = m.Up.Load(), m.Down.Load()
			sum.BytesUp += rr.BytesUp
			sum.BytesDown += rr.BytesDown
		}
		sum.Remotes = append(sum.Remotes, rr)
	}
	if len(c.More) > 0 && o.Pull && first == nil {
		// Each remote's pull recorded its own conflicts; the archive keeps
		// the union.
		all := map[string][]archive.SyncVersion{}
		for i := range c.Remotes() {
			st, err := LoadState(p.ForRemote(c, i))
			if err != nil {
				return sum, err
			}
			for id, vs := range archiveConflicts(st.Conflicts) {
				all[id] = append(all[id], vs...)
			}
		}
		if err := store.SetSyncConflicts(ctx, c.Machine, all); err != nil {
			return sum, err
		}
	}
	sum.Conflicts = len(conflicts)
	sum.Finished = time.Now().UTC()
	if err := atomicfile.WriteJSON(p.Status(), sum); err != nil && first == nil {
		first = err
	}
	return sum, first
}

// LockConfig takes the data directory's sync lock and loads its config.
func LockConfig(p Paths) (Config, func(), error) {
	release, err := Lock(p)
	if err != nil {
		return Config{}, nil, err
	}
	c, err := LoadConfig(p)
	if err != nil {
		release()
		return Config{}, nil, err
	}
	return c, release, nil
}

// LastSummary is the last SyncAll's summary (DATA/sync/status.json); nil
// when none ran.
func LastSummary(p Paths) (*Summary, error) {
	var s Summary
	if err := atomicfile.ReadJSON(p.Status(), &s); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	return &s, nil
}

// ErrNoConflict means Resolve was asked about a session not in conflict,
// or a machine without a version of it.
var ErrNoConflict = errors.New("no such conflict")

// Resolve settles a conflict by keeping machine's version of session id.
// Keeping this machine's version records the others as dismissed (they
// stay on the remote, in their machines' manifests, and are not reported
// again until they change). Keeping another machine's version imports the
// kept file as a rewrite of the session: the archive marks the old lines
// superseded (nothing is deleted) and this machine publishes nothing for
// the session until it grows here again. When this machine read the session
// from an agent's log, that log is never written: the archive takes the
// session over from it (archive.ImportOptions.TakeOver), keeps what it had
// archived from it as superseded lines, and an import of the log later does
// not take the session back (see adopt). opts are the importer's options
// (LenientHeaders as the person set them).
func Resolve(ctx context.Context, store *archive.Store, p Paths, id, machine string, opts archive.ImportOptions) (*archive.ImportReport, error) {
	c, release, err := LockConfig(p)
	if err != nil {
		return nil, err
	}
	defer release()
	for i := range c.Remotes() {
		rp := p.ForRemote(c, i)
		st, err := LoadState(rp)
		if err != nil {
			return nil, err
		}
		for ci, cf := range st.Conflicts {
			if cf.SessionID != id {
				continue
			}
			var keep *Version
			for vi := range cf.Versions {
				v := &cf.Versions[vi]
				if v.Machine == machine || v.Local && machine == c.Machine {
					keep = v
				}
			}
			if keep == nil {
				return nil, fmt.Errorf("%w: session %s has no version from machine %q", ErrNoConflict, id, machine)
			}
			var rep *archive.ImportReport
			if !keep.Local {
				rep, err = adopt(ctx, store, rp, st, id, *keep, opts)
				if err != nil {
					return rep, err
				}
			}
			for _, v := range cf.Versions {
				if !v.Local && v != *keep {
					st.Dismissed = append(st.Dismissed, Dismissed{SessionID: id, Machine: v.Machine, SHA256: v.SHA256, Length: v.Length})
					if v.Path != "" {
						_ = os.RemoveAll(filepath.Dir(v.Path))
					}
				}
			}
			st.Conflicts = append(st.Conflicts[:ci], st.Conflicts[ci+1:]...)
			if err := st.Save(rp); err != nil {
				return rep, err
			}
			return rep, store.SetSyncConflicts(ctx, c.Machine, archiveConflicts(st.Conflicts))
		}
	}
	return nil, fmt.Errorf("%w: session %s is not in conflict (see `logbook sync status`)", ErrNoConflict, id)
}

// adopt imports machine's kept version v of session id over the archive's.
//
// When the archive reads the session from a file sync pulled, v replaces
// that file and is imported as its rewrite. When it reads it from an
// agent's log on this machine (the importer takes one source per session),
// v is moved to where a pull keeps the sessions it imports
// (sync/in/<machine>/<session>/) and imported with TakeOver: the agent's log
// is released, never written, and what the archive held from it stays
// archived as superseded lines. The rule for that log afterwards: imported
// again unchanged, it is unchanged; grown or rewritten (the agent wrote on
// here), it is reported as a duplicate of the kept file and archives
// nothing more, so the choice never flips back silently. Its bytes stay in
// the agent's file. Deleting the kept file under sync/in hands the session
// back to the log at its next import, as for any source that disappears.
func adopt(ctx context.Context, store *archive.Store, p Paths, st *State, id string, v Version, opts archive.ImportOptions) (*archive.ImportReport, error) {
	pl, pulled := st.Pulled[id]
	if !pulled {
		in, err := inPath(p, v.Path)
		if err != nil {
			return nil, err
		}
		pl = Pulled{Path: in}
		if err := os.MkdirAll(filepath.Dir(in), 0o700); err != nil {
			return nil, err
		}
	}
	// Also when the session was pulled: should the agent's log have taken
	// it back (the pulled file was deleted), the choice takes it again.
	opts.TakeOver = true
	target := pl.Path // the file the archive reads the session from
	if v.Path != target {
		if err := os.Rename(v.Path, target); err != nil {
			return nil, err
		}
	}
	if pl.Import != "" || filepath.Base(target) == streamName(OpenHandsFormat) {
		imp, err := unpack(target, filepath.Join(filepath.Dir(target), "conversation"))
		if err != nil {
			return nil, err
		}
		pl.Import, target = imp, imp
	}
	rep, err := store.Import(ctx, []string{target}, opts)
	if err != nil {
		return rep, err
	}
	for _, f := range rep.Files {
		if f.SessionID == id && f.Verdict != archive.VerdictOK {
			return rep, fmt.Errorf("session %s: the kept version imported as %s", id, f.Verdict)
		}
	}
	if !slices.ContainsFunc(rep.Files, func(f archive.FileReport) bool { return f.SessionID == id && f.Action != "duplicate" }) {
		return rep, fmt.Errorf("session %s: the kept version in %s was not imported (see its report)", id, target)
	}
	var h crypt.Hash
	if err := h.UnmarshalText([]byte(v.SHA256)); err != nil {
		return rep, err
	}
	// The archive now holds machine's bytes: the next pull sees that
	// version as unchanged, the next push leaves it to its machine.
	st.Pulled[id] = Pulled{Machine: v.Machine, Entry: repo.Entry{SessionID: id, Length: v.Length, Hash: h}, Path: pl.Path, Import: pl.Import}
	st.Pushed[id] = Pushed{Revision: -1, Origin: v.Machine}
	return rep, store.SetSyncOrigins(ctx, map[string]string{id: v.Machine})
}

// inPath is where a pull keeps the imported version of the session whose
// version kept is (kept aside under sync/conflicts, or already under sync/in).
func inPath(p Paths, kept string) (string, error) {
	for _, dir := range []string{p.In(), p.Conflicts()} {
		if rel, err := filepath.Rel(dir, kept); err == nil && filepath.IsLocal(rel) {
			return filepath.Join(p.In(), rel), nil
		}
	}
	return "", fmt.Errorf("session version %s: not a file sync kept (under %s)", kept, p.Work())
}

// Pending counts the sessions that changed since the last push to the
// first remote, and their bytes not yet pushed (plaintext, before
// compression): what the next sync will send. Sessions whose bytes are
// another machine's are not counted.
func Pending(ctx context.Context, store *archive.Store, p Paths) (sessions int, bytes int64, err error) {
	st, err := LoadState(p)
	if err != nil {
		return 0, 0, err
	}
	revs, err := store.Revisions(ctx)
	if err != nil {
		return 0, 0, err
	}
	all, err := store.ListSessions(ctx, archive.SessionFilter{})
	if err != nil {
		return 0, 0, err
	}
	for _, sess := range all {
		rev, ok := revs[sess.ID]
		if !ok || !synced(sess.Agent) {
			continue
		}
		prev, had := st.Pushed[sess.ID]
		if had && prev.Revision == rev {
			continue
		}
		cw := &countWriter{w: io.Discard}
		if err := os.MkdirAll(p.Work(), 0o700); err != nil {
			return sessions, bytes, err
		}
		if err := exportSession(ctx, store, sess, p.Work(), cw); err != nil {
			return sessions, bytes, err
		}
		var base int64
		if had && prev.Entry != nil {
			base = prev.Entry.Length
		} else if pl, ok := st.Pulled[sess.ID]; ok {
			if pl.Entry.Length == cw.n {
				continue // another machine's bytes, unchanged
			}
			base = pl.Entry.Length
		}
		sessions++
		bytes += max(0, cw.n-base)
	}
	return sessions, bytes, nil
}

// synced reports whether sessions of agent travel.
func synced(agent string) bool { return agent == SyncedFormat || agent == OpenHandsFormat }

// exportSession writes the bytes that travel for sess: a dsh session's
// logical JSONL, an OpenHands conversation's pack of its original files
// (work is a folder for the pack's temporary files).
func exportSession(ctx context.Context, store *archive.Store, sess archive.Session, work string, w io.Writer) error {
	if sess.Agent == OpenHandsFormat {
		return writePack(ctx, store, sess, work, w)
	}
	return store.ExportJSONL(ctx, sess.ID, w)
}
