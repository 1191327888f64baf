package main

// The scheduled prompts from the command line: `logbook schedules` lists them, and
// `logbook schedules VERB SESSION SCHEDULE` applies the overrides the UI offers,
// on the archive and scheduler.json of the data directory (cmd_scheduler.go runs
// the scheduler itself).

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/logbook/logbook/archive"
)

// cmdSchedules runs `logbook schedules`: the scheduled prompts and their state, or
// with a VERB first, one of the overrides the UI offers (cmdScheduleAction).
func cmdSchedules(ctx context.Context, e *env, args []string) error {
	if len(args) > 0 && scheduleVerbs[args[0]] != "" {
		return cmdScheduleAction(ctx, e, args)
	}
	now := time.Now()
	return listCmd[archive.ScheduleItem]{
		name: "schedules",
		flags: func(fs *flag.FlagSet) func() error {
			nowFlag := fs.String("now", "", "evaluate states at this RFC 3339 instant (default: now)")
			return func() error {
				if *nowFlag == "" {
					return nil
				}
				t, err := time.Parse(time.RFC3339Nano, *nowFlag)
				if err != nil {
					return usageError{fmt.Errorf("--now must be an RFC 3339 instant such as 2026-11-29T09:00:00Z: %v", err)}
				}
				now = t
				return nil
			}
		},
		query: func(s *archive.Store, ctx context.Context, f archive.ItemFilter) ([]archive.ScheduleItem, error) {
			return s.Schedules(ctx, f, now)
		},
		header: "STATE\tKIND\tNEXT FIRE (local)\tLOGBOOK\tLAST FIRE\tID\tSESSION\tPROMPT",
		row: func(it archive.ScheduleItem) string {
			next := "-"
			if it.NextFire != nil {
				next = it.NextFire.Local().Format("2006-01-02 15:04:05")
			}
			// LOGBOOK: what Logbook does (its overrides and fires), beside the fold's STATE.
			lb := it.LogbookState
			if it.LogbookNextFire != nil && (it.NextFire == nil || !it.LogbookNextFire.Equal(*it.NextFire)) {
				lb += " " + it.LogbookNextFire.Local().Format("2006-01-02 15:04:05")
			}
			last := "-"
			if f := it.LastFire; f != nil {
				last = f.Outcome + " " + f.FiredAt.Local().Format("2006-01-02 15:04:05")
			}
			return strings.Join([]string{it.State, it.Kind, next, lb, last, it.ID, it.SessionID, clip(oneLine(it.Prompt), 60)}, "\t")
		},
	}.run(ctx, e, args)
}

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
