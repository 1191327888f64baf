package app

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/internal/atomicfile"
	"github.com/logbook/logbook/sync/archivesync"
	"github.com/logbook/logbook/sync/crypt"
)

// Sync events: a line of progress while a sync runs, and its summary.
const (
	EventSyncProgress = "sync:progress" // SyncProgress
	EventSyncDone     = "sync:done"     // SyncStatus
)

// DefaultSyncEvery is how often the running app syncs when sync is set up
// and the person did not choose otherwise.
const DefaultSyncEvery = 10 * time.Minute

// SyncSettings are the person's choices for the app's background sync, kept
// in DATA/sync_app.json. Sync itself is set up from the command line
// (`logbook sync init`), since it asks for the passphrase.
type SyncSettings struct {
	// Auto syncs on a timer and after every import while the app runs.
	Auto bool `json:"auto"`
	// EveryMinutes is the timer, 1 to 1440.
	EveryMinutes int `json:"every_minutes"`
}

// SyncProgress is one line of what a running sync does.
type SyncProgress struct {
	Line string `json:"line"`
}

// SyncStatus is what the Settings view shows about sync.
type SyncStatus struct {
	// Configured is false until `logbook sync init` ran for this data folder.
	Configured bool         `json:"configured"`
	Remotes    []string     `json:"remotes"`
	Machine    string       `json:"machine"`
	Settings   SyncSettings `json:"settings"`
	Running    bool         `json:"running"`
	// Progress is the running sync's last line.
	Progress string `json:"progress"`
	// LastSync is when the last sync (from here or the command line) ended; nil if never.
	LastSync *time.Time `json:"last_sync"`
	// Last is that sync's summary: pushed, pulled, bytes, conflicts, errors.
	Last *archivesync.Summary `json:"last"`
	// PendingSessions and PendingBytes are what the next sync will send.
	PendingSessions int   `json:"pending_sessions"`
	PendingBytes    int64 `json:"pending_bytes"`
	// Conflicts are the sessions whose versions diverged between machines.
	Conflicts []archivesync.Conflict `json:"conflicts"`
	// Error is why the status could not be read in full, if so.
	Error string `json:"error,omitempty"`
}

// appSync is the app's background sync state.
type appSync struct {
	mu       sync.Mutex
	running  bool
	progress string
	kick     chan struct{}
	once     sync.Once
	// logN is SetUpSync's scrypt work factor for the passphrase (0: age's
	// default, as `logbook sync init`); tests lower it.
	logN int
}

func (a *App) syncPaths() archivesync.Paths { return archivesync.Paths{Dir: a.deps.DataDir} }

func (a *App) syncSettingsPath() string { return filepath.Join(a.deps.DataDir, "sync_app.json") }

// SyncSettings returns the background sync settings (auto, every 10
// minutes when never set).
func (a *App) SyncSettings() (SyncSettings, error) {
	s := defaultSyncSettings()
	if a.deps.DataDir == "" {
		return s, nil
	}
	err := atomicfile.ReadJSON(a.syncSettingsPath(), &s)
	if errors.Is(err, os.ErrNotExist) {
		err = nil
	}
	return s, err
}

func defaultSyncSettings() SyncSettings {
	return SyncSettings{Auto: true, EveryMinutes: int(DefaultSyncEvery / time.Minute)}
}

// loopSettings are the settings the sync loop goes by: a file it cannot read is
// logged and the defaults used, and a timer outside 1 to 1440 minutes (a
// hand-edited file) is brought within them, so the loop never spins.
func (a *App) loopSettings() SyncSettings {
	s, err := a.SyncSettings()
	if err != nil {
		a.log.Warn("sync settings unreadable; using the defaults", "err", err)
		s = defaultSyncSettings()
	}
	s.EveryMinutes = min(max(s.EveryMinutes, 1), 1440)
	return s
}

// SetSyncSettings saves the background sync settings; the timer follows.
func (a *App) SetSyncSettings(s SyncSettings) error {
	if a.deps.DataDir == "" {
		return invalid("this app has no data directory to keep settings in")
	}
	if s.EveryMinutes < 1 || s.EveryMinutes > 1440 {
		return invalid(fmt.Sprintf("every_minutes %d: give 1 to 1440", s.EveryMinutes))
	}
	if err := atomicfile.WriteJSON(a.syncSettingsPath(), s); err != nil {
		return err
	}
	a.kickSync() // the loop re-reads the settings
	return nil
}

// SyncStatus reports sync: set up or not, the last sync, pending bytes,
// errors and conflicts.
func (a *App) SyncStatus() (SyncStatus, error) {
	st := SyncStatus{Remotes: []string{}, Conflicts: []archivesync.Conflict{}}
	var err error
	if st.Settings, err = a.SyncSettings(); err != nil {
		st.Error = err.Error()
	}
	a.sync.mu.Lock()
	st.Running, st.Progress = a.sync.running, a.sync.progress
	a.sync.mu.Unlock()
	p := a.syncPaths()
	c, err := archivesync.LoadConfig(p)
	if errors.Is(err, archivesync.ErrNotConfigured) || a.deps.DataDir == "" {
		return st, nil
	}
	if err != nil {
		st.Error = err.Error()
		return st, nil
	}
	st.Configured, st.Remotes, st.Machine = true, c.Remotes(), c.Machine
	seen := map[string]bool{}
	for i := range c.Remotes() {
		s, err := archivesync.LoadState(p.ForRemote(c, i))
		if err != nil {
			st.Error = err.Error()
			continue
		}
		for _, cf := range s.Conflicts {
			if !seen[cf.SessionID] {
				seen[cf.SessionID] = true
				st.Conflicts = append(st.Conflicts, cf)
			}
		}
	}
	if last, err := archivesync.LastSummary(p); err != nil {
		st.Error = err.Error()
	} else if last != nil {
		st.Last, st.LastSync = last, &last.Finished
	}
	st.PendingSessions, st.PendingBytes, err = archivesync.Pending(a.ctx, a.deps.Archive, p)
	if err != nil {
		st.Error = err.Error()
	}
	return st, nil
}

// SetUpSync is `logbook sync init` from the settings: on the first machine
// it creates the archive's key on remote (a folder path, file:// or s3://
// URL) wrapped with passphrase; on every other machine the same call with
// the same passphrase joins. The passphrase is used here and not kept. A
// wrong passphrase, a remote that cannot be reached or a data folder set up
// already is an error in words, and nothing is saved.
func (a *App) SetUpSync(remote, passphrase string) (SyncStatus, error) {
	remote = strings.TrimSpace(remote)
	switch {
	case a.deps.DataDir == "":
		return SyncStatus{}, invalid("this app has no data directory to keep sync's key in")
	case remote == "":
		return SyncStatus{}, invalid("name the remote: file:///path or s3://bucket/prefix?endpoint=host:port")
	case passphrase == "":
		return SyncStatus{}, invalid("the passphrase is empty")
	}
	_, _, _, err := archivesync.Setup(a.ctx, a.syncPaths(), remote, passphrase, a.sync.logN)
	if errors.Is(err, crypt.ErrWrongPassphrase) {
		return SyncStatus{}, invalid("wrong passphrase: it does not open the key published on the remote (use the passphrase given on the first machine); nothing was changed")
	}
	if err != nil {
		return SyncStatus{}, invalid(fmt.Sprintf("sync not set up: %v", err))
	}
	a.startSyncLoop()
	return a.SyncStatus()
}

// SyncNow starts a sync in the background (progress and the summary come
// as sync:progress and sync:done events). It fails when sync is not set up.
func (a *App) SyncNow() error {
	if _, err := archivesync.LoadConfig(a.syncPaths()); err != nil {
		return invalid(err.Error())
	}
	a.startSyncLoop()
	a.kickSync()
	return nil
}

// kickSync asks the sync loop for a sync now (after an import, or a click).
func (a *App) kickSync() {
	a.sync.mu.Lock()
	k := a.sync.kick
	a.sync.mu.Unlock()
	if k == nil {
		return
	}
	select {
	case k <- struct{}{}:
	default: // one is already asked for
	}
}

// startSyncLoop starts, once, the loop that syncs on the timer and when
// kicked, while sync is set up and Auto is on (a kick syncs regardless).
func (a *App) startSyncLoop() {
	a.sync.once.Do(func() {
		a.sync.mu.Lock()
		a.sync.kick = make(chan struct{}, 1)
		a.sync.mu.Unlock()
		a.watchWG.Add(1)
		go func() {
			defer a.watchWG.Done()
			a.syncLoop()
		}()
	})
}

func (a *App) syncLoop() {
	for {
		s := a.loopSettings()
		every := time.Duration(s.EveryMinutes) * time.Minute
		timer := time.NewTimer(every)
		kicked := false
		select {
		case <-a.ctx.Done():
			timer.Stop()
			return
		case <-timer.C:
		case <-a.sync.kick:
			kicked = true
			timer.Stop()
		}
		s = a.loopSettings()
		if !s.Auto && !kicked {
			continue
		}
		if _, err := archivesync.LoadConfig(a.syncPaths()); err != nil {
			continue
		}
		a.runSync()
	}
}

// runSync runs one sync through every remote, publishing its progress.
// Pulled sessions go through the importer with the options of the app's
// own imports (LenientHeaders as set), and the app catches up with them as
// after any import: index, scheduler, open views (catchUpWith).
func (a *App) runSync() {
	a.sync.mu.Lock()
	a.sync.running, a.sync.progress = true, "starting"
	a.sync.mu.Unlock()
	settings, err := a.ImportSettings()
	if err != nil {
		a.log.Warn("import settings unreadable; using the defaults", "err", err)
	}
	tick := throttle{every: progressEvery}
	sum, err := archivesync.SyncAll(a.ctx, a.deps.Archive, a.syncPaths(), archivesync.Options{
		Import: archive.ImportOptions{LenientHeaders: settings.LenientHeaders},
		Progress: func(line string) {
			a.sync.mu.Lock()
			a.sync.progress = line
			a.sync.mu.Unlock()
			if tick.ready() {
				a.events.Publish(EventSyncProgress, SyncProgress{Line: line})
			}
		},
	})
	if err != nil {
		a.log.Warn("sync failed", "err", err)
	}
	var changed []string
	if sum != nil {
		for _, r := range sum.Remotes {
			if r.Pull != nil && r.Pull.Import != nil {
				changed = append(changed, changedSessions(r.Pull.Import)...)
			}
		}
	}
	if a.ctx.Err() == nil {
		if len(changed) > 0 {
			slices.Sort(changed)
			a.catchUpWith(slices.Compact(changed))
		} else {
			a.noteStamp() // a push records provenance: not a change to catch up with
		}
	}
	a.sync.mu.Lock()
	a.sync.running, a.sync.progress = false, ""
	a.sync.mu.Unlock()
	if a.ctx.Err() != nil {
		return
	}
	if st, err := a.SyncStatus(); err == nil {
		a.events.Publish(EventSyncDone, st)
	}
}

// SessionsSync is every synced session's provenance, by session id: the
// machine its bytes came from and, when its versions diverged between
// machines, those versions (the sessions list marks both). Sessions sync
// never saw are absent; without sync set up it is empty.
func (a *App) SessionsSync() (map[string]archive.SessionSync, error) {
	return a.deps.Archive.SyncInfo(a.ctx)
}
