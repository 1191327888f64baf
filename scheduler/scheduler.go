// Package scheduler brings archived scheduled prompts back. dsh fires a schedule only
// while its own session is live, so a closed session's reminders never fire; the
// scheduler re-arms every active one found in the archive on a robfig/cron instance,
// runs the configured action when one comes due, and records each fire in the
// archive (schedule_fires). What a schedule's next fire is follows from the session's
// own fold, the user's overrides and the fire history (archive.Store.Schedules); the
// scheduler only turns that into cron entries, one per schedule, replaced whenever
// the answer changes.
//
// Instants are absolute (UTC in the logs): cron's timers wait for durations, so a DST
// change of the local zone neither repeats nor skips a fire.
//
// It is a domain package: it depends on archive, never on app; the app's bound
// methods validate what the UI sends and call it, and main wires it into the app.
package scheduler

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/dsh"
)

// catchUpGrace is how late a fire may start and still count as on time; a later
// one (the machine slept through it) is a catch-up and follows the catch-up policy.
const catchUpGrace = 2 * time.Minute

// dueSlack tolerates a timer that wakes a little before its instant.
const dueSlack = time.Second

// defaultWakeEvery is how often cron's loop wakes when nothing is due. Go's timers
// run on the monotonic clock, which stands still while the machine is suspended
// (Linux, macOS): a timer set at 8:30 for a 9:00 fire, with the lid closed from
// 8:45 to 10:00, would go off at 10:15. Each wake re-checks every entry against the
// wall clock, so after a suspend (or a wall-clock jump) a due fire runs within
// this much.
const defaultWakeEvery = time.Minute

// Options configure New. Zero fields take defaults.
type Options struct {
	Logger *slog.Logger
	// Now is the clock for due and overdue decisions and fire records (default
	// time.Now). Cron's own timers always run on the real clock.
	Now func() time.Time
	// Location is the zone cron runs in and the CLI shows times in (default
	// time.Local). Instants stay absolute, so it never changes when a fire happens.
	Location *time.Location
	// ConfigPath is the JSON file (scheduler.json in the data directory) the
	// configuration is read from at Start and saved to by SetConfig. When empty,
	// Config is used and SetConfig keeps changes in memory.
	ConfigPath string
	Config     Config
	// Notify is called after every fire is recorded, and for every catch-up
	// question; the app publishes it to the UI. It must not block for long.
	Notify func(Fire)
	// HTTPClient sends webhooks (default: a client without a global timeout; each
	// attempt is bounded by the configured timeout).
	HTTPClient *http.Client
	// StopTimeout bounds how long Stop waits for running actions (default 10 s).
	StopTimeout time.Duration
	// MinEvery is the shortest every interval armed (default dsh.MinEverySeconds,
	// 300 s, which dsh itself enforces, so the archive's fold never yields less).
	// Test-only: tests lower it to watch an every cadence in seconds.
	MinEvery time.Duration
	// WakeEvery is the longest cron sleeps without looking at the wall clock
	// (default defaultWakeEvery); see there. Tests shorten it.
	WakeEvery time.Duration
	// LocalRoots are this machine's own agent session roots (default
	// archive.DefaultRoots()). Only a session archived from a file under one of them
	// runs a command or webhook by itself when its prompt comes due; any other
	// session (imported from elsewhere: a copied file, a bundle, a sync, a webhook)
	// is someone else's text, so its fire is asked about and runs only when the
	// person fires it.
	LocalRoots []string
	// DemoRoots are the session roots of a demo archive (the app's generated
	// demo-sessions folder). A session archived from under one is a demo: its
	// schedules are shown but never armed, and firing one by hand fails with
	// ErrDemo.
	DemoRoots []string
}

// Fire is what the scheduler reports after each fire (and each catch-up question):
// the recorded history entry plus what the UI shows with it.
type Fire struct {
	archive.ScheduleFire
	Kind   string `json:"kind"`
	Prompt string `json:"prompt"`
	Cwd    string `json:"cwd,omitempty"`
}

// Scheduler arms the archive's active schedules on cron and fires them. Create it
// with New, then Start; Stop ends it. Its methods are safe for concurrent
// use.
type Scheduler struct {
	Logger *slog.Logger
	Now    func() time.Time
	Notify func(Fire)

	store       *archive.Store
	loc         *time.Location
	configPath  string
	client      *http.Client
	stopTimeout time.Duration
	minEvery    time.Duration
	wakeEvery   time.Duration
	localRoots  []string // see Options.LocalRoots
	demoRoots   []string // see Options.DemoRoots

	cfgMu     sync.Mutex
	cfg       Config
	cfgLoaded bool
	cfgStamp  fileStamp    // of the config file cfg was read from (zero: none)
	wakes     atomic.Int64 // runs of the wake-up entry

	mu       sync.Mutex // guards everything below; held while arming, never while an action runs
	cron     *cron.Cron
	wakeID   cron.EntryID    // the entry that only wakes cron's loop (see defaultWakeEvery)
	ctx      context.Context // the running scheduler's; cancelled by Stop
	cancel   context.CancelFunc
	stopped  bool
	armed    map[schedKey]armedEntry
	inflight map[schedKey]bool
	wg       sync.WaitGroup // manual fires started by Trigger
}

// schedKey names one schedule: dsh never reuses an id within a session.
type schedKey struct{ session, id string }

func (k schedKey) String() string { return k.session + "/" + k.id }

// armPlan is how a schedule is armed: a first instant and, for an every, the grid
// it continues on.
type armPlan struct {
	at     time.Time     // the first fire; in the past for an overdue schedule (fires at once)
	every  time.Duration // 0 for a one-shot
	anchor time.Time     // every: the grid anchor, the fold's scheduledAt
}

type armedEntry struct {
	id   cron.EntryID
	plan armPlan
	// since is when this scheduler began watching the schedule without a break
	// (kept when the entry is replaced): a target after it came due while
	// Logbook ran, so it is never a fire missed while closed, however the entry
	// was re-armed around it.
	since time.Time
}

// New returns a scheduler for the archive; call Start to arm schedules.
func New(store *archive.Store, o Options) *Scheduler {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Location == nil {
		o.Location = time.Local
	}
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{}
	}
	if o.StopTimeout <= 0 {
		o.StopTimeout = 10 * time.Second
	}
	if o.MinEvery <= 0 {
		o.MinEvery = dsh.MinEverySeconds * time.Second
	}
	if o.WakeEvery <= 0 {
		o.WakeEvery = defaultWakeEvery
	}
	if o.LocalRoots == nil {
		o.LocalRoots = archive.DefaultRoots()
	}
	cfg := fillConfig(o.Config)
	s := &Scheduler{
		Logger: o.Logger.With("component", "scheduler"), Now: o.Now, Notify: o.Notify,
		store: store, loc: o.Location, configPath: o.ConfigPath, client: o.HTTPClient,
		stopTimeout: o.StopTimeout, minEvery: o.MinEvery, wakeEvery: o.WakeEvery, cfg: cfg,
		armed: map[schedKey]armedEntry{}, inflight: map[schedKey]bool{}, localRoots: cleanRoots(o.LocalRoots),
		demoRoots: cleanRoots(o.DemoRoots),
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	return s
}

// fillConfig gives the zero fields of c their defaults (Retries, BackoffSeconds and
// MaxCatchUpHours keep an explicit 0 only when Action is set, i.e. the config was
// written out).
func fillConfig(c Config) Config {
	d := DefaultConfig()
	if c.Action == "" {
		c.Action, c.Retries, c.BackoffSeconds = d.Action, d.Retries, d.BackoffSeconds
		c.MaxCatchUpHours = d.MaxCatchUpHours
	}
	if c.TimeoutSeconds == 0 {
		c.TimeoutSeconds = d.TimeoutSeconds
	}
	if c.CatchUp == "" {
		c.CatchUp = d.CatchUp
	}
	if c.Command == nil {
		c.Command = []string{}
	}
	return c
}

// Start loads the configuration, starts cron and arms every active schedule;
// overdue ones are caught up at once per the catch-up policy. ctx is the app's root
// context: cancelling it cancels running actions, but only Stop ends cron.
func (s *Scheduler) Start(ctx context.Context) error {
	s.mu.Lock()
	if s.stopped {
		s.mu.Unlock()
		return errors.New("scheduler: stopped; make a new one")
	}
	if s.cron != nil {
		s.mu.Unlock()
		return errors.New("scheduler: already started")
	}
	s.cfgMu.Lock()
	s.loadConfigLocked() // pick up hand edits made since the config was first read
	s.cfgMu.Unlock()
	s.cancel() // the pre-start context (manual fires before Start)
	s.ctx, s.cancel = context.WithCancel(ctx)
	l := cronLogger{s.Logger}
	s.cron = cron.New(cron.WithLocation(s.loc), cron.WithLogger(l),
		cron.WithChain(cron.Recover(l), cron.SkipIfStillRunning(l)))
	// The job does nothing: waking cron's loop is the point (see defaultWakeEvery).
	// It is not in s.armed, so Armed and Reload never see it.
	s.wakeID = s.cron.Schedule(cron.Every(s.wakeEvery), cron.FuncJob(func() { s.wakes.Add(1) }))
	s.cron.Start()
	s.mu.Unlock()
	return s.Reload(ctx)
}

// Running reports whether Start has run and Stop has not.
func (s *Scheduler) Running() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cron != nil && !s.stopped
}

// Stop stops cron, cancels running actions (an interrupted fire is not recorded,
// so it is caught up on the next start) and waits for them, at most StopTimeout.
// A stopped scheduler cannot be started again.
func (s *Scheduler) Stop() error {
	s.mu.Lock()
	c := s.cron
	s.stopped = true
	s.cancel()
	s.mu.Unlock()
	if c == nil {
		return nil
	}
	deadline := time.After(s.stopTimeout)
	select {
	case <-c.Stop().Done():
	case <-deadline:
		return fmt.Errorf("scheduler: actions still running after %s", s.stopTimeout)
	}
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-deadline:
		return fmt.Errorf("scheduler: manual fires still running after %s", s.stopTimeout)
	}
}

// Reload re-reads the archive and brings the armed set level with it: new
// schedules are armed, changed ones re-armed, and those deleted, completed, paused
// or dismissed disarmed. The app calls it after every import. It does nothing
// before Start.
func (s *Scheduler) Reload(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cron == nil || s.stopped {
		return nil
	}
	now := s.Now()
	items, err := s.store.Schedules(ctx, archive.ItemFilter{}, now)
	if err != nil {
		return fmt.Errorf("reload schedules: %w", err)
	}
	nexts := s.entryNexts()
	seen := make(map[schedKey]bool, len(items))
	for i := range items {
		k := schedKey{items[i].SessionID, items[i].ID}
		seen[k] = true
		s.syncLocked(ctx, k, &items[i], now, nexts)
	}
	for k := range s.armed {
		if !seen[k] {
			s.disarmLocked(k)
		}
	}
	return nil
}

// rearm brings one schedule's cron entry level with the archive.
func (s *Scheduler) rearm(ctx context.Context, k schedKey) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cron == nil || s.stopped {
		return
	}
	now := s.Now()
	it, err := s.store.Schedule(ctx, k.session, k.id, now)
	switch {
	case errors.Is(err, archive.ErrNotFound):
		s.disarmLocked(k)
	case err != nil:
		s.Logger.Warn("re-arm schedule", "schedule", k, "err", err)
	default:
		s.syncLocked(ctx, k, &it, now, s.entryNexts())
	}
}

// entryNexts maps each cron entry to its next run.
func (s *Scheduler) entryNexts() map[cron.EntryID]time.Time {
	m := map[cron.EntryID]time.Time{}
	for _, e := range s.cron.Entries() {
		m[e.ID] = e.Next
	}
	return m
}

// syncLocked arms, re-arms or disarms k for it. A schedule whose fire is running is
// left alone: its job re-arms it when done. A demo session's schedule is never
// armed.
func (s *Scheduler) syncLocked(ctx context.Context, k schedKey, it *archive.ScheduleItem, now time.Time, nexts map[cron.EntryID]time.Time) {
	if s.inflight[k] {
		return
	}
	p, ok := s.plan(it)
	if ok && s.Demo(ctx, k.session) {
		ok = false
	}
	cur, isArmed := s.armed[k]
	if !ok {
		s.disarmLocked(k)
		return
	}
	if isArmed && cur.plan.every == p.every && cur.plan.anchor.Equal(p.anchor) {
		n := nexts[cur.id]
		pending := !n.IsZero() && !n.After(now) // an overdue entry about to run
		if n.Equal(p.at) || (!p.at.After(now) && pending) {
			return
		}
	}
	since := now
	if isArmed {
		s.cron.Remove(cur.id)
		since = cur.since
	}
	var sched cron.Schedule = &onceSchedule{at: p.at}
	if p.every > 0 {
		sched = &everySchedule{first: p.at, anchor: p.anchor, every: p.every}
	}
	// A schedule first armed when already overdue was missed (Logbook was closed, or
	// it was paused): its first run is a catch-up. One re-armed while it was watched
	// is not: a Reload landing between cron starting a job and the job claiming the
	// schedule re-arms the same overdue target, and must not turn an on-time fire
	// into a catch-up (skipped or asked under those policies).
	missed := &atomic.Bool{}
	missed.Store(!p.at.After(since))
	id := s.cron.Schedule(sched, cron.FuncJob(func() { s.runDue(k, missed.Swap(false)) }))
	s.armed[k] = armedEntry{id: id, plan: p, since: since}
	s.Logger.Debug("armed", "schedule", k, "at", p.at, "every", p.every)
}

func (s *Scheduler) disarmLocked(k schedKey) {
	if cur, ok := s.armed[k]; ok {
		s.cron.Remove(cur.id)
		delete(s.armed, k)
		s.Logger.Debug("disarmed", "schedule", k)
	}
}

// plan says how it is armed, or false when it must not be: not due to fire on its
// own (paused, dismissed, done, ended in its session), waiting for the user's answer
// to a catch-up question, or an every below the minimum interval.
func (s *Scheduler) plan(it *archive.ScheduleItem) (armPlan, bool) {
	if it == nil || it.LogbookNextFire == nil {
		return armPlan{}, false
	}
	switch it.LogbookState {
	case archive.LogbookScheduled:
	case archive.LogbookOverdue:
		if asked(*it, *it.LogbookNextFire) {
			return armPlan{}, false
		}
	default:
		return armPlan{}, false
	}
	p := armPlan{at: *it.LogbookNextFire}
	if it.Kind == "every" {
		if it.EverySeconds == nil || time.Duration(*it.EverySeconds)*time.Second < s.minEvery {
			s.Logger.Warn("every schedule below the minimum interval not armed", "session", it.SessionID,
				"schedule", it.ID, "min", s.minEvery)
			return armPlan{}, false
		}
		p.every, p.anchor = time.Duration(*it.EverySeconds)*time.Second, it.ScheduledAt
	}
	return p, true
}

// asked reports whether the user was already asked about the fire at target.
func asked(it archive.ScheduleItem, target time.Time) bool {
	return it.LastFire != nil && it.LastFire.Outcome == archive.FireAsked && it.LastFire.TargetAt.Equal(target)
}

// claim marks k as firing; false when a fire of k is already running.
func (s *Scheduler) claim(k schedKey) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inflight[k] {
		return false
	}
	s.inflight[k] = true
	return true
}

// claimed runs fn for a schedule claimed with claim, and releases the claim even
// when fn panics (cron.Recover, or Trigger, survives the panic; a claim left
// behind would keep the schedule from ever firing again).
func (s *Scheduler) claimed(k schedKey, fn func() error) error {
	defer s.release(k)
	return fn()
}

func (s *Scheduler) release(k schedKey) {
	s.mu.Lock()
	delete(s.inflight, k)
	s.mu.Unlock()
}

func (s *Scheduler) runCtx() context.Context {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ctx
}

// runDue is the cron job of k: fire it if the archive still says it is due, then
// re-arm it from what the archive says now. missed is true for the first run of an
// entry armed when its instant had already passed.
func (s *Scheduler) runDue(k schedKey, missed bool) {
	ctx := s.runCtx()
	if !s.claim(k) {
		return
	}
	err := s.claimed(k, func() error { return s.fireIfDue(ctx, k, missed) })
	if ctx.Err() != nil {
		return
	}
	if err != nil {
		s.Logger.Error("schedule fire not recorded", "schedule", k, "err", err)
	}
	s.rearm(ctx, k)
}

// fireIfDue re-reads k and fires it when it is due: an armed entry may have gone
// stale (paused, fired by another path, moved by a newer import) since it was armed.
// The fire is a catch-up when missed, or when it starts more than catchUpGrace late
// (the machine slept through it).
func (s *Scheduler) fireIfDue(ctx context.Context, k schedKey, missed bool) error {
	now := s.Now()
	it, err := s.store.Schedule(ctx, k.session, k.id, now)
	if errors.Is(err, archive.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if it.LogbookNextFire == nil || it.LogbookNextFire.After(now.Add(dueSlack)) {
		return nil
	}
	target := *it.LogbookNextFire
	trigger := archive.TriggerScheduled
	if missed || now.Sub(target) > catchUpGrace {
		trigger = archive.TriggerCatchUp
	}
	_, err = s.fire(ctx, it, target, trigger)
	return err
}

// fire applies the catch-up policy (for a catch-up), runs the action, records the
// outcome and notifies. A fire cut short by ctx (the scheduler stopping) is not
// recorded, so it is caught up later: delivery is at least once, as in dsh.
func (s *Scheduler) fire(ctx context.Context, it archive.ScheduleItem, target time.Time, trigger string) (archive.ScheduleFire, error) {
	if s.Demo(ctx, it.SessionID) {
		return archive.ScheduleFire{}, fmt.Errorf("fire %s/%s: %w", it.SessionID, it.ID, ErrDemo)
	}
	c := s.Config()
	f := archive.ScheduleFire{SessionID: it.SessionID, ScheduleID: it.ID, TargetAt: target, Trigger: trigger,
		Action: c.Action, Attempts: 1, Settles: true}
	policy := c.CatchUp
	if trigger == archive.TriggerCatchUp && policy == CatchUpFire && c.MaxCatchUpHours > 0 &&
		s.Now().Sub(target) > seconds(c.MaxCatchUpHours*3600) {
		policy = CatchUpAsk // too stale to run unasked
	}
	if trigger != archive.TriggerManual && c.Action != ActionNotify && !s.local(ctx, it.SessionID) {
		// Someone else's session: its prompt and cwd never reach a command or a
		// webhook unless the person fires it.
		if asked(it, target) {
			return *it.LastFire, nil
		}
		f.Action, f.Outcome, f.Settles = "none", archive.FireAsked, false
		f.Error = "this session was not archived from this machine's own agent folders, so its scheduled prompt runs the " +
			c.Action + " action only when you fire it"
	} else if trigger == archive.TriggerCatchUp && policy != CatchUpFire {
		if policy == CatchUpAsk && asked(it, target) {
			return *it.LastFire, nil
		}
		f.Action, f.Outcome = "none", archive.FireSkipped
		if policy == CatchUpAsk {
			f.Outcome, f.Settles = archive.FireAsked, false
		}
	} else {
		n, err := s.runAction(ctx, c, firePayload{Event: "schedule.fired", SessionID: it.SessionID, ScheduleID: it.ID,
			Kind: it.Kind, Prompt: it.Prompt, Cwd: it.Cwd, TargetAt: target.UTC(), Trigger: trigger})
		if ctx.Err() != nil {
			return f, fmt.Errorf("fire of %s/%s interrupted (it will be caught up): %w", it.SessionID, it.ID, ctx.Err())
		}
		f.Attempts, f.Outcome = n, archive.FireOK
		if err != nil {
			f.Outcome, f.Error = archive.FireFailed, err.Error()
			s.Logger.Warn("schedule action failed", "session", it.SessionID, "schedule", it.ID, "action", c.Action,
				"attempts", n, "err", err)
		}
		if trigger == archive.TriggerManual {
			// A manual fire settles the target only when it worked and, for an
			// every, when the target was due: an early extra delivery leaves the
			// cadence alone.
			f.Settles = err == nil && (it.Kind != "every" || !target.After(s.Now()))
		}
	}
	f.FiredAt = s.Now()
	rec, err := s.store.RecordScheduleFire(ctx, f)
	if err != nil {
		return f, err
	}
	s.notify(Fire{ScheduleFire: rec, Kind: it.Kind, Prompt: it.Prompt, Cwd: it.Cwd})
	return rec, nil
}

// notify calls the Notify hook; a panicking hook is logged, not fatal.
func (s *Scheduler) notify(f Fire) {
	if s.Notify == nil {
		return
	}
	defer func() {
		if r := recover(); r != nil {
			s.Logger.Error("schedule notify hook panicked", "panic", r)
		}
	}()
	s.Notify(f)
}

// lookup finds a schedule (a session id prefix is enough) still active in its
// session.
func (s *Scheduler) lookup(ctx context.Context, sessionID, scheduleID string) (archive.ScheduleItem, error) {
	it, err := s.store.Schedule(ctx, sessionID, scheduleID, s.Now())
	if err != nil {
		return it, err
	}
	if it.Status != archive.ScheduleActive {
		return it, fmt.Errorf("schedule %s of session %s is %s: %w", it.ID, it.SessionID, it.Status, archive.ErrScheduleEnded)
	}
	return it, nil
}

// FireNow fires a schedule at once (trigger manual) and waits for the action. It
// settles the current target when the action works: a one-shot is then done, an
// overdue every resumes its cadence (an every fired early keeps it).
func (s *Scheduler) FireNow(ctx context.Context, sessionID, scheduleID string) (archive.ScheduleFire, error) {
	it, err := s.lookup(ctx, sessionID, scheduleID)
	if err != nil {
		return archive.ScheduleFire{}, err
	}
	k := schedKey{it.SessionID, it.ID}
	if !s.claim(k) {
		return archive.ScheduleFire{}, fmt.Errorf("schedule %s is firing already", k)
	}
	target := it.ScheduledAt
	if it.LogbookNextFire != nil {
		target = *it.LogbookNextFire
	}
	var f archive.ScheduleFire
	err = s.claimed(k, func() (err error) {
		f, err = s.fire(ctx, it, target, archive.TriggerManual)
		return err
	})
	s.rearm(ctx, k)
	return f, err
}

// Trigger starts FireNow in the background (the UI's "fire now"): it returns once
// the schedule is found; the outcome arrives through Notify.
func (s *Scheduler) Trigger(ctx context.Context, sessionID, scheduleID string) error {
	it, err := s.lookup(ctx, sessionID, scheduleID)
	if err != nil {
		return err
	}
	if s.Demo(ctx, it.SessionID) {
		return fmt.Errorf("fire %s/%s: %w", it.SessionID, it.ID, ErrDemo)
	}
	s.mu.Lock()
	if s.stopped {
		s.mu.Unlock()
		return errors.New("scheduler: stopped")
	}
	run := s.ctx
	s.wg.Add(1)
	s.mu.Unlock()
	go func() {
		defer s.wg.Done()
		// As cron.Recover does for scheduled fires: a bug in a fire must not end
		// the process (the window, or serve with every browser on it).
		defer func() {
			if p := recover(); p != nil {
				s.Logger.Error("fire now panicked", "session", sessionID, "schedule", scheduleID,
					"panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			}
		}()
		if _, err := s.FireNow(run, sessionID, scheduleID); err != nil && run.Err() == nil {
			s.Logger.Warn("fire now", "session", sessionID, "schedule", scheduleID, "err", err)
		}
	}()
	return nil
}

// Skip records the current target as skipped (no action runs): a one-shot is then
// done and an every moves to its next target. It answers a catch-up question "no".
func (s *Scheduler) Skip(ctx context.Context, sessionID, scheduleID string) (archive.ScheduleFire, error) {
	it, err := s.lookup(ctx, sessionID, scheduleID)
	if err != nil {
		return archive.ScheduleFire{}, err
	}
	if it.LogbookNextFire == nil {
		return archive.ScheduleFire{}, fmt.Errorf("schedule %s/%s is %s: nothing to skip", it.SessionID, it.ID, it.LogbookState)
	}
	f, err := s.store.RecordScheduleFire(ctx, archive.ScheduleFire{SessionID: it.SessionID, ScheduleID: it.ID,
		FiredAt: s.Now(), TargetAt: *it.LogbookNextFire, Trigger: archive.TriggerManual, Action: "none",
		Outcome: archive.FireSkipped, Attempts: 1, Settles: true})
	if err != nil {
		return f, err
	}
	s.rearm(ctx, schedKey{it.SessionID, it.ID})
	return f, nil
}

// Pause stops a schedule from firing until Resume.
func (s *Scheduler) Pause(ctx context.Context, sessionID, scheduleID string) error {
	return s.override(ctx, sessionID, scheduleID, func(it archive.ScheduleItem) error {
		return s.store.SetScheduleOverride(ctx, it.SessionID, it.ID, archive.OverridePaused)
	})
}

// Dismiss stops a schedule from ever firing again (until Resume).
func (s *Scheduler) Dismiss(ctx context.Context, sessionID, scheduleID string) error {
	return s.override(ctx, sessionID, scheduleID, func(it archive.ScheduleItem) error {
		return s.store.SetScheduleOverride(ctx, it.SessionID, it.ID, archive.OverrideDismissed)
	})
}

// Resume clears a pause, a dismissal and a snooze. A schedule whose target passed
// meanwhile is then overdue and caught up per the catch-up policy.
func (s *Scheduler) Resume(ctx context.Context, sessionID, scheduleID string) error {
	return s.override(ctx, sessionID, scheduleID, func(it archive.ScheduleItem) error {
		return s.store.SetScheduleOverride(ctx, it.SessionID, it.ID, "")
	})
}

// Snooze holds a schedule back for d from now.
func (s *Scheduler) Snooze(ctx context.Context, sessionID, scheduleID string, d time.Duration) error {
	if d <= 0 {
		return errors.New("snooze needs a positive duration")
	}
	return s.override(ctx, sessionID, scheduleID, func(it archive.ScheduleItem) error {
		return s.store.SnoozeSchedule(ctx, it.SessionID, it.ID, s.Now().Add(d))
	})
}

// override applies an override to an active schedule and re-arms it.
func (s *Scheduler) override(ctx context.Context, sessionID, scheduleID string, set func(archive.ScheduleItem) error) error {
	it, err := s.lookup(ctx, sessionID, scheduleID)
	if err != nil {
		return err
	}
	if err := set(it); err != nil {
		return err
	}
	s.rearm(ctx, schedKey{it.SessionID, it.ID})
	return nil
}

// ArmedSchedule is one schedule armed on cron.
type ArmedSchedule struct {
	SessionID  string    `json:"session_id"`
	ScheduleID string    `json:"schedule_id"`
	Next       time.Time `json:"next"` // zero once a one-shot has run
}

// Armed lists the armed schedules, soonest first.
func (s *Scheduler) Armed() []ArmedSchedule {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cron == nil {
		return nil
	}
	nexts := s.entryNexts()
	out := make([]ArmedSchedule, 0, len(s.armed))
	for k, a := range s.armed {
		out = append(out, ArmedSchedule{SessionID: k.session, ScheduleID: k.id, Next: nexts[a.id]})
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Next.Equal(out[j].Next) {
			return out[j].Next.IsZero() || (!out[i].Next.IsZero() && out[i].Next.Before(out[j].Next))
		}
		return out[i].SessionID+"/"+out[i].ScheduleID < out[j].SessionID+"/"+out[j].ScheduleID
	})
	return out
}

// onceSchedule is a one-shot's cron schedule: its instant once (at once if it has
// passed), then never again.
type onceSchedule struct {
	at   time.Time
	used atomic.Bool
}

// Next implements cron.Schedule.
func (o *onceSchedule) Next(t time.Time) time.Time {
	if o.used.Swap(true) {
		return time.Time{}
	}
	if o.at.Before(t) {
		return t
	}
	return o.at
}

// everySchedule is an every's cron schedule: first (at once if it has passed),
// then each later target on the grid anchor + k*every, computed as dsh does
// (dsh.NextEveryAfter), so missed intervals are never replayed and the cadence
// keeps the session's phase. The zero time past year 9999 ends it, as in dsh.
type everySchedule struct {
	first, anchor time.Time
	every         time.Duration
	started       atomic.Bool
}

// Next implements cron.Schedule.
func (e *everySchedule) Next(t time.Time) time.Time {
	if !e.started.Swap(true) {
		if e.first.Before(t) {
			return t
		}
		return e.first
	}
	return dsh.NextEveryAfter(e.anchor, e.every, t)
}

// cronLogger adapts slog to cron's logger: its routine chatter at debug level.
type cronLogger struct{ l *slog.Logger }

func (c cronLogger) Info(msg string, kv ...any) { c.l.Debug("cron: "+msg, kv...) }

func (c cronLogger) Error(err error, msg string, kv ...any) {
	c.l.Error("cron: "+msg, append([]any{"err", err}, kv...)...)
}
