package archivesync

import (
	"bufio"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/sync/crypt"
	"github.com/logbook/logbook/sync/repo"
)

// SyncedFormat is the dsh session format: its logical JSONL export
// re-imports through the same importer to the same bytes.
const SyncedFormat = "dsh"

// OpenHandsFormat is the OpenHands conversation format: its kept original
// files travel as a pack (pack.go) and re-import from the unpacked folder.
const OpenHandsFormat = "openhands"

// Syncer pushes this machine's sessions and pulls the others'.
type Syncer struct {
	Archive *archive.Store
	Repo    *repo.Repo
	Paths   Paths
	Machine string
	// Import is passed to archive.Store.Import for pulled sessions.
	Import archive.ImportOptions
	// Progress, when set, is told what happens, one line at a time.
	Progress func(msg string)
	Logger   *slog.Logger
	Now      func() time.Time
}

// New returns a Syncer with defaults.
func New(a *archive.Store, r *repo.Repo, p Paths, machine string) *Syncer {
	return &Syncer{Archive: a, Repo: r, Paths: p, Machine: machine, Logger: slog.Default(), Now: time.Now}
}

func (s *Syncer) progress(format string, args ...any) {
	if s.Progress != nil {
		s.Progress(fmt.Sprintf(format, args...))
	}
}

// PushReport says what a push did.
type PushReport struct {
	Machine  string `json:"machine"`
	Sessions int    `json:"sessions"` // listed in this machine's manifest
	// Pushed sessions changed since the last push; Unchanged did not;
	// FromOthers are other machines' bytes, left to them to publish.
	Pushed     int `json:"pushed"`
	Unchanged  int `json:"unchanged"`
	FromOthers int `json:"from_others"`
	// NotSynced counts sessions of formats sync does not carry yet.
	NotSynced int   `json:"not_synced"`
	Pieces    int   `json:"pieces"`       // pieces uploaded
	Bytes     int64 `json:"bytes"`        // encrypted bytes of those pieces
	Existing  int   `json:"existing"`     // pieces already on the remote (resumed or shared)
	Kept      int   `json:"kept"`         // pieces reused from the previous push
	Manifest  int64 `json:"manifest_seq"` // 0 when nothing changed and no manifest was written
}

// Push pushes every archived session whose bytes changed since the last
// push and commits this machine's manifest. A push cut short commits
// nothing; run again, it uploads only the pieces the remote lacks.
func (s *Syncer) Push(ctx context.Context) (*PushReport, error) {
	st, err := LoadState(s.Paths)
	if err != nil {
		return nil, err
	}
	revs, err := s.Archive.Revisions(ctx)
	if err != nil {
		return nil, err
	}
	all, err := s.Archive.ListSessions(ctx, archive.SessionFilter{})
	if err != nil {
		return nil, err
	}
	rep := &PushReport{Machine: s.Machine}
	ids := make([]string, 0, len(revs))
	for _, sess := range all {
		if _, ok := revs[sess.ID]; !ok {
			continue
		}
		if !synced(sess.Agent) {
			rep.NotSynced++ // a format this Logbook does not carry
			continue
		}
		ids = append(ids, sess.ID)
	}
	slices.Sort(ids)
	next := make(map[string]Pushed, len(ids))
	var entries []repo.Entry
	changed := false
	for i, id := range ids {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		prev, had := st.Pushed[id]
		if had && prev.Revision == revs[id] {
			next[id] = prev
			if prev.Entry != nil {
				rep.Unchanged++
				entries = append(entries, *prev.Entry)
			} else {
				rep.FromOthers++
			}
			continue
		}
		p, ps, err := s.pushOne(ctx, st, id, revs[id], prev)
		if err != nil {
			return rep, err
		}
		next[id] = p
		if p.Entry == nil {
			rep.FromOthers++
			if had && prev.Entry != nil {
				changed = true
			}
			continue
		}
		entries = append(entries, *p.Entry)
		if !had || prev.Entry == nil || prev.Entry.Hash != p.Entry.Hash || prev.Entry.Length != p.Entry.Length {
			changed = true
			rep.Pushed++
		} else {
			rep.Unchanged++
		}
		rep.Pieces += ps.Pieces
		rep.Bytes += ps.Bytes
		rep.Existing += ps.Existing
		rep.Kept += ps.Kept
		s.progress("pushed %d/%d %s: %d bytes in %d new pieces", i+1, len(ids), id, ps.Bytes, ps.Pieces)
	}
	rep.Sessions = len(entries)
	if !changed {
		// The first push always writes a manifest, even an empty one. (A
		// push that changed something commits anyway, and Commit reads the
		// head and its manifest itself: once is enough.)
		if _, err := s.Repo.Head(ctx, s.Machine); err != nil {
			if !isNotExist(err) {
				return rep, err
			}
			changed = true
		}
	}
	if changed {
		m, err := s.Repo.Commit(ctx, s.Machine, entries)
		if err != nil {
			return rep, err
		}
		rep.Manifest = m.Seq
		s.progress("committed manifest %d: %d sessions", m.Seq, len(entries))
	}
	st.Pushed = next
	st.LastPush = s.Now().UTC()
	if err := st.Save(s.Paths); err != nil {
		return rep, err
	}
	// Provenance: this machine's own sessions, and the machine each pulled
	// one came from.
	origins := make(map[string]string, len(all))
	for _, sess := range all {
		origins[sess.ID] = s.Machine
		if p, ok := next[sess.ID]; ok && p.Origin != "" {
			origins[sess.ID] = p.Origin
		}
	}
	return rep, s.Archive.SetSyncOrigins(ctx, origins)
}

// pushOne spools the session's logical JSONL to a temp file and pushes it,
// unless the bytes are exactly a version pulled from another machine.
func (s *Syncer) pushOne(ctx context.Context, st *State, id string, rev int64, prev Pushed) (Pushed, repo.PushStats, error) {
	f, size, sum, err := s.spool(ctx, id)
	if err != nil {
		return Pushed{}, repo.PushStats{}, err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	if pl, ok := st.Pulled[id]; ok && pl.Entry.Length == size && pl.Entry.Hash == sum {
		return Pushed{Revision: rev, Origin: pl.Machine}, repo.PushStats{}, nil
	}
	base := prev.Entry
	if base == nil {
		// Grown here from another machine's version: its pieces are reused,
		// if they were seen recently enough that GC cannot have taken them
		// (repo.GC's rule).
		if pl, ok := st.Pulled[id]; ok && (s.Repo.Fresh <= 0 || s.Now().Sub(st.LastPull) < s.Repo.Fresh) {
			base = &pl.Entry
		}
	}
	sess, err := s.Archive.Session(ctx, id)
	if err != nil {
		return Pushed{}, repo.PushStats{}, err
	}
	meta := repo.Entry{SessionID: id, Agent: sess.Agent, Format: sess.Agent, SourceKind: "logical-jsonl"}
	if sess.Agent == OpenHandsFormat {
		meta.SourceKind = "openhands-pack"
	}
	e, ps, err := s.Repo.Push(ctx, f, size, meta, base)
	if err != nil {
		return Pushed{}, ps, err
	}
	return Pushed{Revision: rev, Entry: &e}, ps, nil
}

// spool writes the session's logical JSONL to a temp file in the sync work
// folder and returns it open, with its size and hash.
func (s *Syncer) spool(ctx context.Context, id string) (*os.File, int64, crypt.Hash, error) {
	var sum crypt.Hash
	if err := os.MkdirAll(s.Paths.Work(), 0o700); err != nil {
		return nil, 0, sum, err
	}
	f, err := os.CreateTemp(s.Paths.Work(), ".spool-*")
	if err != nil {
		return nil, 0, sum, err
	}
	h := sha256.New()
	// The export writes a line at a time: buffered, not a syscall each.
	bw := bufio.NewWriterSize(f, 1<<20)
	cw := &countWriter{w: io.MultiWriter(bw, h)}
	sess, err := s.Archive.Session(ctx, id)
	if err == nil {
		err = exportSession(ctx, s.Archive, sess, s.Paths.Work(), cw)
	}
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, 0, sum, fmt.Errorf("export %s: %w", id, err)
	}
	copy(sum[:], h.Sum(nil))
	return f, cw.n, sum, nil
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// PullReport says what a pull did.
type PullReport struct {
	Machine   string   `json:"machine"`
	Machines  []string `json:"machines"` // the other machines read
	Pulled    int      `json:"pulled"`   // sessions fetched and imported
	Unchanged int      `json:"unchanged"`
	Behind    int      `json:"behind"`     // versions this archive already holds more of
	NotSynced int      `json:"not_synced"` // entries of formats this Logbook does not pull
	Dismissed int      `json:"dismissed"`  // versions set aside by `logbook sync resolve`
	Bytes     int64    `json:"bytes"`      // plaintext bytes fetched
	// Import is the importer's report on the pulled files (verdicts).
	Import    *archive.ImportReport `json:"import"`
	Conflicts []Conflict            `json:"conflicts"`
}

// Pull reads every other machine's manifest and imports each session that is
// new or grew, through the same importer as `logbook import`. A version that
// diverges from the local archive's is a conflict: it is kept as a file and
// listed, never imported over the local one.
func (s *Syncer) Pull(ctx context.Context) (*PullReport, error) {
	st, err := LoadState(s.Paths)
	if err != nil {
		return nil, err
	}
	ms, err := s.Repo.Manifests(ctx)
	if err != nil {
		return nil, err
	}
	rep := &PullReport{Machine: s.Machine, Machines: []string{}, Conflicts: []Conflict{}}
	var paths []string
	pulled := map[string]Pulled{}
	conflicts := map[string]*Conflict{}
	for _, m := range ms {
		if m.Machine == s.Machine {
			continue
		}
		rep.Machines = append(rep.Machines, m.Machine)
		for _, e := range m.Sessions {
			if err := ctx.Err(); err != nil {
				return rep, err
			}
			if !synced(e.Format) {
				rep.NotSynced++ // a newer Logbook's format: left on the remote
				continue
			}
			if pl, ok := st.Pulled[e.SessionID]; ok && pl.Machine == m.Machine && pl.Entry.Hash == e.Hash && pl.Entry.Length == e.Length {
				rep.Unchanged++
				continue
			}
			if own, ok := st.Pushed[e.SessionID]; ok && own.Entry != nil {
				if rel := repo.Compare(e, *own.Entry); rel == repo.Same || rel == repo.Prefix {
					rep.Behind++ // ours holds all of it, and our push publishes it
					continue
				}
			}
			if st.dismissed(m.Machine, e) {
				rep.Dismissed++ // the user kept another version (Resolve)
				continue
			}
			if v, ok := knownConflict(st, m.Machine, e); ok {
				// Diverged before: local logs only grow, so it still does.
				s.addConflict(ctx, conflicts, e.SessionID, v)
				continue
			}
			target := ""
			var prior *Pulled
			if p, ok := st.Pulled[e.SessionID]; ok {
				// The archive already reads this session from that file: a longer
				// version from any machine continues it there.
				target, prior = p.Path, &p
			}
			if p, ok := pulled[e.SessionID]; ok {
				target = p.Path
			}
			verdict, path, imp, n, err := s.pullOne(ctx, m.Machine, e, pulled, target, prior)
			rep.Bytes += n
			if err != nil {
				return rep, err
			}
			switch verdict {
			case pullNew:
				paths = append(paths, imp)
				pulled[e.SessionID] = Pulled{Machine: m.Machine, Entry: e, Path: path, Import: imp}
				rep.Pulled++
				s.progress("pulled %s from %s: %d bytes", e.SessionID, m.Machine, e.Length)
			case pullSame:
				rep.Unchanged++
			case pullBehind:
				rep.Behind++
			case pullConflict:
				s.addConflict(ctx, conflicts, e.SessionID, Version{Machine: m.Machine, Length: e.Length, SHA256: e.Hash.String(), Path: path})
				s.progress("conflict %s: %s's version diverges from this archive's; kept in %s", e.SessionID, m.Machine, path)
			}
		}
	}
	if len(paths) > 0 {
		ir, err := s.Archive.Import(ctx, paths, s.Import)
		if err != nil {
			return rep, err
		}
		rep.Import = ir
		if err := s.notePulled(ctx, st, ir, pulled); err != nil {
			return rep, err
		}
		byPath := make(map[string]string, len(pulled))
		for id, p := range pulled {
			byPath[filepath.Clean(p.importPath())] = id
		}
		for _, f := range ir.Files {
			id, ok := byPath[filepath.Clean(f.Path)]
			if !ok || f.Action != "duplicate" {
				continue
			}
			p := pulled[id]
			// The archive reads this session from an agent's log here, of
			// which the other machine holds more: the importer takes one
			// source per session, so the longer version is kept aside and
			// listed with the conflicts, not lost and not imported.
			delete(pulled, id)
			rep.Pulled--
			s.addConflict(ctx, conflicts, id, Version{Machine: p.Machine, Length: p.Entry.Length, SHA256: p.Entry.Hash.String(), Path: p.Path})
			s.progress("kept %s from %s aside: this archive reads the session from a log on this machine", id, p.Machine)
		}
	}
	for id, p := range pulled {
		st.Pulled[id] = p
	}
	ids := make([]string, 0, len(conflicts))
	for id := range conflicts {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		rep.Conflicts = append(rep.Conflicts, *conflicts[id])
	}
	st.Conflicts = rep.Conflicts
	st.LastPull = s.Now().UTC()
	if err := st.Save(s.Paths); err != nil {
		return rep, err
	}
	origins := map[string]string{}
	for id, p := range st.Pushed {
		if p.Origin != "" {
			origins[id] = p.Origin
		}
	}
	if err := s.Archive.SetSyncOrigins(ctx, origins); err != nil {
		return rep, err
	}
	return rep, s.Archive.SetSyncConflicts(ctx, s.Machine, archiveConflicts(rep.Conflicts))
}

// archiveConflicts is conflicts as the archive records them.
func archiveConflicts(cs []Conflict) map[string][]archive.SyncVersion {
	out := make(map[string][]archive.SyncVersion, len(cs))
	for _, c := range cs {
		for _, v := range c.Versions {
			out[c.SessionID] = append(out[c.SessionID], archive.SyncVersion(v))
		}
	}
	return out
}

// notePulled records, for the sessions the import took in whole, that the
// archive's revision of them holds another machine's bytes, so the next push
// leaves them to that machine without exporting them again.
func (s *Syncer) notePulled(ctx context.Context, st *State, ir *archive.ImportReport, pulled map[string]Pulled) error {
	revs, err := s.Archive.Revisions(ctx)
	if err != nil {
		return err
	}
	for _, f := range ir.Files {
		p, ok := pulled[f.SessionID]
		if !ok || filepath.Clean(p.importPath()) != filepath.Clean(f.Path) || f.Verdict != archive.VerdictOK {
			continue
		}
		switch f.Action {
		case "new", "appended", "rewritten", "unchanged":
			st.Pushed[f.SessionID] = Pushed{Revision: revs[f.SessionID], Origin: p.Machine}
		}
	}
	return nil
}

type pullVerdict int

const (
	pullNew pullVerdict = iota
	pullSame
	pullBehind
	pullConflict
)

// pullOne relates e to the local version of the session (the archive's, or
// one taken earlier in this pull) and fetches it when it is needed: none
// or a prefix of e (import it, into target when set), the same or longer
// (nothing to fetch), or diverged (keep it aside as a conflict). A
// diverged version from the machine whose older version this archive holds
// unchanged (prior) is that machine rewriting its own session: an update.
// It returns the file the version is in and the bytes fetched.
func (s *Syncer) pullOne(ctx context.Context, machine string, e repo.Entry, already map[string]Pulled, target string, prior *Pulled) (verdict pullVerdict, path, imp string, fetched int64, err error) {
	if err := os.MkdirAll(s.Paths.Work(), 0o700); err != nil {
		return 0, "", "", 0, err
	}
	local, ln, lsum, err := s.localFile(ctx, e.SessionID, already)
	if err != nil {
		return 0, "", "", 0, err
	}
	if local != nil {
		defer local.Close()
		if _, pulledNow := already[e.SessionID]; !pulledNow {
			defer os.Remove(local.Name()) // a spooled export
		}
	}
	verdict = pullNew
	if local != nil && e.Length <= ln {
		// This archive holds at least as much: compare without fetching.
		h, err := hashPrefix(local, e.Length)
		if err != nil {
			return 0, "", "", 0, err
		}
		switch {
		case h != e.Hash:
			verdict = pullConflict
		case e.Length == ln:
			return pullSame, "", "", 0, nil
		default:
			return pullBehind, "", "", 0, nil
		}
	}
	tmp, err := os.CreateTemp(s.Paths.Work(), ".pull-*")
	if err != nil {
		return 0, "", "", 0, err
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	if fetched, err = s.Repo.PullN(ctx, e, tmp); err != nil {
		return 0, "", "", fetched, err
	}
	if local != nil && verdict == pullNew {
		if h, err := hashPrefix(tmp, ln); err != nil {
			return 0, "", "", fetched, err
		} else if h != lsum {
			verdict = pullConflict
		}
	}
	if verdict == pullConflict && prior != nil && prior.Machine == machine && prior.Entry.Hash == lsum && prior.Entry.Length == ln {
		verdict = pullNew // its origin rewrote it; the archive keeps the old lines as superseded
	}
	path = target
	if verdict == pullConflict || path == "" {
		dir := s.Paths.In()
		if verdict == pullConflict {
			dir = s.Paths.Conflicts()
		}
		path = filepath.Join(dir, s.Repo.Key.Tag("machine", machine)[:16], s.Repo.Key.Tag("session", e.SessionID)[:24], streamName(e.Format))
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return 0, "", "", fetched, err
	}
	if err := tmp.Sync(); err != nil {
		return 0, "", "", fetched, err
	}
	if err := tmp.Close(); err != nil {
		return 0, "", "", fetched, err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return 0, "", "", fetched, err
	}
	imp = path
	if e.Format == OpenHandsFormat && verdict != pullConflict {
		if imp, err = unpack(path, filepath.Join(filepath.Dir(path), "conversation")); err != nil {
			return 0, "", "", fetched, err
		}
	}
	return verdict, path, imp, fetched, nil
}

// streamName is the file a pulled session's bytes are kept in.
func streamName(format string) string {
	if format == OpenHandsFormat {
		return "conversation.pack"
	}
	return "session.jsonl"
}

// localFile opens the local version of session id: the file pulled for it
// earlier in this pull, or the archive's export spooled to a temp file.
// It returns nil when there is none.
func (s *Syncer) localFile(ctx context.Context, id string, already map[string]Pulled) (*os.File, int64, crypt.Hash, error) {
	var sum crypt.Hash
	if p, ok := already[id]; ok {
		f, err := os.Open(p.Path)
		if err != nil {
			return nil, 0, sum, err
		}
		return f, p.Entry.Length, p.Entry.Hash, nil
	}
	if ok, err := s.holds(ctx, id); !ok || err != nil {
		return nil, 0, sum, err
	}
	return s.spool(ctx, id)
}

// hashPrefix hashes the first n bytes of f.
func hashPrefix(f *os.File, n int64) (crypt.Hash, error) {
	var sum crypt.Hash
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(f, 0, n)); err != nil {
		return sum, err
	}
	copy(sum[:], h.Sum(nil))
	return sum, nil
}

// localVersion describes the archive's version of a session.
func (s *Syncer) localVersion(ctx context.Context, id string) (Version, error) {
	h := sha256.New()
	cw := &countWriter{w: h}
	if found, err := s.export(ctx, id, cw); err != nil || !found {
		return Version{}, fmt.Errorf("export %s: %w (found %v)", id, err, found)
	}
	var sum crypt.Hash
	copy(sum[:], h.Sum(nil))
	return Version{Machine: s.Machine, Local: true, Length: cw.n, SHA256: sum.String()}, nil
}

// export writes the archive's logical JSONL of session id; found is false
// when the archive does not hold it.
func (s *Syncer) export(ctx context.Context, id string, w io.Writer) (found bool, err error) {
	if ok, err := s.holds(ctx, id); !ok || err != nil {
		return false, err
	}
	sess, err := s.Archive.Session(ctx, id)
	if err != nil {
		return true, err
	}
	return true, exportSession(ctx, s.Archive, sess, s.Paths.Work(), w)
}

// holds reports whether the archive holds exactly session id (its Session
// also matches an unambiguous id prefix).
func (s *Syncer) holds(ctx context.Context, id string) (bool, error) {
	sess, err := s.Archive.Session(ctx, id)
	if errors.Is(err, archive.ErrNotFound) || err == nil && sess.ID != id {
		return false, nil
	}
	return err == nil, err
}

// addConflict records v as a version of the conflicting session id, with
// the local archive's version first.
func (s *Syncer) addConflict(ctx context.Context, conflicts map[string]*Conflict, id string, v Version) {
	c := conflicts[id]
	if c == nil {
		c = &Conflict{SessionID: id}
		conflicts[id] = c
		if l, err := s.localVersion(ctx, id); err == nil {
			c.Versions = append(c.Versions, l)
		}
	}
	c.Versions = append(c.Versions, v)
}

// knownConflict finds machine's version e among the conflicts of the last
// pull, with its file still kept.
func knownConflict(st *State, machine string, e repo.Entry) (Version, bool) {
	for _, c := range st.Conflicts {
		if c.SessionID != e.SessionID {
			continue
		}
		for _, v := range c.Versions {
			if v.Machine == machine && !v.Local && v.SHA256 == e.Hash.String() && v.Length == e.Length {
				if _, err := os.Stat(v.Path); err == nil {
					return v, true
				}
			}
		}
	}
	return Version{}, false
}
