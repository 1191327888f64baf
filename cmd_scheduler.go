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

	"github.com/logbook/logbook/scheduler"
)

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
	cfg, err := scheduler.LoadConfig(e.schedulerConfigPath())
	if err != nil {
		return err
	}
	switch {
	case len(argv) > 0 && (*webhook != "" || *notify):
		return usageError{errors.New("choose one action: a command (after --), --webhook or --notify")}
	case len(argv) > 0:
		cfg.Action, cfg.Command = scheduler.ActionCommand, argv
	case *webhook != "":
		cfg.Action, cfg.WebhookURL = scheduler.ActionWebhook, *webhook
	case *notify:
		cfg.Action = scheduler.ActionNotify
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
		if err := scheduler.SaveConfig(e.schedulerConfigPath(), cfg); err != nil {
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
	sch := e.newScheduler(s, &cfg, func(f scheduler.Fire) {
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

// schedulerWatchEvery is how often the standalone scheduler looks for imports made
// by other processes (a variable so tests can shorten it).
var schedulerWatchEvery = 5 * time.Second
