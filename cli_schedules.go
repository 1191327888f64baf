package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/logbook/logbook/app"
	"github.com/logbook/logbook/archive"
)

// The scheduler from the command line: `logbook scheduler` runs it in the
// foreground, and `logbook schedules VERB SESSION SCHEDULE` applies the overrides
// the UI offers. Both use the archive and scheduler.json of the data directory.

// scheduleVerbs are the actions of `logbook schedules VERB SESSION SCHEDULE`.
var scheduleVerbs = map[string]string{
	"pause":   "stop firing it until resumed",
	"resume":  "clear a pause, dismissal or snooze",
	"dismiss": "never fire it again (until resumed)",
	"snooze":  "hold it back for DURATION (e.g. 30m, 2h)",
	"fire":    "run the configured action now and wait for it",
	"skip":    "pass over its current time without running anything",
}

// cmdScheduleAction runs `logbook schedules VERB SESSION SCHEDULE [DURATION]`.
func cmdScheduleAction(ctx context.Context, e *env, args []string) error {
	verb := args[0]
	fs := flag.NewFlagSet("schedules "+verb, flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print the schedule (or, for fire and skip, the fire) as JSON")
	pos, err := parseFlags(fs, args[1:])
	if err != nil {
		return err
	}
	want, usage := 2, "SESSION SCHEDULE"
	if verb == "snooze" {
		want, usage = 3, "SESSION SCHEDULE DURATION"
	}
	if len(pos) != want {
		return usageError{fmt.Errorf("schedules %s takes %s", verb, usage)}
	}
	var snooze time.Duration
	if verb == "snooze" {
		if snooze, err = time.ParseDuration(pos[2]); err != nil || snooze <= 0 {
			return usageError{fmt.Errorf("snooze DURATION must be positive, like 30m or 2h, got %q", pos[2])}
		}
	}
	s, err := e.openArchive(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	sch := e.newScheduler(s, nil, nil)
	sessionID, scheduleID := pos[0], pos[1]
	var fire *archive.ScheduleFire
	switch verb {
	case "pause":
		err = sch.Pause(ctx, sessionID, scheduleID)
	case "resume":
		err = sch.Resume(ctx, sessionID, scheduleID)
	case "dismiss":
		err = sch.Dismiss(ctx, sessionID, scheduleID)
	case "snooze":
		err = sch.Snooze(ctx, sessionID, scheduleID, snooze)
	case "fire", "skip":
		var f archive.ScheduleFire
		if verb == "fire" {
			f, err = sch.FireNow(ctx, sessionID, scheduleID)
		} else {
			f, err = sch.Skip(ctx, sessionID, scheduleID)
		}
		fire = &f
	}
	if err != nil {
		return err
	}
	if fire != nil {
		if *asJSON {
			err = writeJSON(e.stdout, fire)
		} else {
			printFire(e.human(), *fire, "")
		}
		if err == nil && fire.Outcome == archive.FireFailed {
			return exitError(1)
		}
		return err
	}
	it, err := s.Schedule(ctx, sessionID, scheduleID, time.Now())
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(e.stdout, it)
	}
	fmt.Fprintf(e.human(), "%s of %s: %s%s\n", it.ID, it.SessionID, it.LogbookState, nextFireNote(it))
	return nil
}

// nextFireNote is " (next fire …)" for a schedule Logbook will fire, else "".
func nextFireNote(it archive.ScheduleItem) string {
	if it.LogbookNextFire == nil {
		return ""
	}
	return " (next fire " + it.LogbookNextFire.Local().Format("2006-01-02 15:04:05 MST") + ")"
}

// printFire prints one fire as a line: when, what happened, which schedule.
func printFire(w io.Writer, f archive.ScheduleFire, prompt string) {
	line := fmt.Sprintf("%s  %-7s %-9s %-8s %s/%s", f.FiredAt.Local().Format("2006-01-02 15:04:05"), f.Outcome,
		f.Trigger, f.Action, f.SessionID, f.ScheduleID)
	if f.Attempts > 1 {
		line += fmt.Sprintf("  (%d attempts)", f.Attempts)
	}
	if prompt != "" {
		line += "  " + clip(oneLine(prompt), 60)
	}
	if f.Error != "" {
		line += "\n    " + f.Error
	}
	fmt.Fprintln(w, line)
}

// lockedWriter serialises writes from the scheduler's goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// cmdScheduler runs the scheduler in the foreground until interrupted, printing
// every fire. Flags override scheduler.json for this run (--save keeps them); the
// words after "--" are the command action's argv template.
func cmdScheduler(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("scheduler", flag.ContinueOnError)
	policy := fs.String("policy", "", "what to do with fires missed while closed: fire, ask or skip (default: scheduler.json's, else fire)")
	webhook := fs.String("webhook", "", "POST each fire as JSON to this http(s) URL")
	notify := fs.Bool("notify", false, "only print fires (the notify action), whatever scheduler.json says")
	timeout := fs.Duration("timeout", 0, "time limit of one attempt of the action (e.g. 30s)")
	retries := -1
	fs.Func("retries", "attempts after a failed one (default: scheduler.json's, else 2)", func(v string) error {
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("want a whole number, got %q", v)
		}
		retries = n
		return nil
	})
	save := fs.Bool("save", false, "save the resulting configuration to scheduler.json")
	asJSON := fs.Bool("json", false, "print each fire as a JSON line")
	argv, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	cfg, err := app.LoadSchedulerConfig(e.schedulerConfigPath())
	if err != nil {
		return err
	}
	switch {
	case len(argv) > 0 && (*webhook != "" || *notify):
		return usageError{errors.New("choose one action: a command (after --), --webhook or --notify")}
	case len(argv) > 0:
		cfg.Action, cfg.Command = app.ActionCommand, argv
	case *webhook != "":
		cfg.Action, cfg.WebhookURL = app.ActionWebhook, *webhook
	case *notify:
		cfg.Action = app.ActionNotify
	}
	if *policy != "" {
		cfg.CatchUp = *policy
	}
	if *timeout != 0 {
		cfg.TimeoutSeconds = timeout.Seconds()
	}
	if retries != -1 {
		cfg.Retries = retries
	}
	if err := cfg.Validate(); err != nil {
		return usageError{err}
	}
	if *save {
		if err := app.SaveSchedulerConfig(e.schedulerConfigPath(), cfg); err != nil {
			return err
		}
	}

	release, err := lockDataDir(e.dataDir, "scheduler")
	if err != nil {
		if *save {
			// The UI points here to change the command while serve or the window
			// runs: say that the save worked, and that the running one takes it up.
			return fmt.Errorf("saved %s (the running Logbook uses it from its next fire); not starting a second scheduler: %w",
				e.schedulerConfigPath(), err)
		}
		return err
	}
	defer release()
	s, err := e.openArchive(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	out := &lockedWriter{w: e.human()}
	sch := e.newScheduler(s, &cfg, func(f app.Fire) {
		if *asJSON {
			_ = writeJSON(out, f)
			return
		}
		printFire(out, f.ScheduleFire, f.Prompt)
	})
	if err := sch.Start(ctx); err != nil {
		return err
	}
	armed := sch.Armed()
	if !*asJSON {
		fmt.Fprintf(e.stderr, "Scheduler running (action %s, catch-up %s): %d schedule(s) armed", cfg.Action, cfg.CatchUp, len(armed))
		if len(armed) > 0 && !armed[0].Next.IsZero() {
			fmt.Fprintf(e.stderr, ", next at %s", armed[0].Next.Local().Format("2006-01-02 15:04:05 MST"))
		}
		fmt.Fprintln(e.stderr, ". Interrupt to stop.")
	}
	// The scheduler has no import of its own: another process (`logbook import`, a
	// cron job) imports. A one-row query every few seconds notices such an import
	// and re-reads the archive; SIGHUP forces a reload at once.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	tick := time.NewTicker(schedulerWatchEvery)
	defer tick.Stop()
	stamp, _ := s.ChangeStamp(ctx)
	reload := func() {
		if err := sch.Reload(ctx); err != nil && ctx.Err() == nil {
			fmt.Fprintf(e.stderr, "logbook scheduler: reload: %v\n", err)
		}
	}
	for {
		select {
		case <-ctx.Done():
			return sch.Stop()
		case <-hup:
			stamp, _ = s.ChangeStamp(ctx)
			reload()
		case <-tick.C:
			if now, err := s.ChangeStamp(ctx); err == nil && now != stamp {
				stamp = now
				reload()
			}
		}
	}
}

// schedulerWatchEvery is how often the standalone scheduler looks for imports made
// by other processes (a variable so tests can shorten it).
var schedulerWatchEvery = 5 * time.Second
