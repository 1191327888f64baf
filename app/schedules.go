package app

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/scheduler"
)

// SchedulerConfig is scheduler.Config as the UI sends and receives it. It is the
// app's own type, not an alias, because Wails names binding types by their Go
// package: app.SchedulerConfig in frontend/wailsjs stays as it was when the
// scheduler moved out of app.
type SchedulerConfig scheduler.Config

// EventScheduleFired is published after every fire (and catch-up question) with the
// Fire as payload.
const EventScheduleFired = "schedule:fired"

// maxSnoozeMinutes bounds a snooze from the UI: one week.
const maxSnoozeMinutes = 7 * 24 * 60

// ScheduleRow is a schedule as the Schedules view lists it.
type ScheduleRow struct {
	archive.ScheduleItem
	// Demo marks a schedule of the demo archive: shown, never fired.
	Demo bool `json:"demo,omitempty"`
}

// Schedules lists every schedule in the archive with its state now, Logbook's
// overrides and its last fire.
func (a *App) Schedules() ([]ScheduleRow, error) {
	now := time.Now()
	s := a.deps.Scheduler
	if s != nil {
		now = s.Now()
	}
	items, err := a.deps.Archive.Schedules(a.ctx, archive.ItemFilter{}, now)
	if err != nil {
		return nil, err
	}
	rows := make([]ScheduleRow, len(items))
	demo := map[string]bool{}
	for i, it := range items {
		d, ok := demo[it.SessionID]
		if !ok && s != nil {
			d = s.Demo(a.ctx, it.SessionID)
			demo[it.SessionID] = d
		}
		rows[i] = ScheduleRow{ScheduleItem: it, Demo: d}
	}
	return rows, nil
}

// ScheduleAction applies a user action to one schedule: pause, resume, snooze (for
// snoozeMinutes), fire (now, in the background; the outcome arrives as
// schedule:fired), skip (the current target, without running anything) or dismiss.
// The session's log is never touched.
func (a *App) ScheduleAction(sessionID, scheduleID, action string, snoozeMinutes int) error {
	s, err := a.scheduler()
	if err != nil {
		return err
	}
	sessionID, scheduleID = strings.TrimSpace(sessionID), strings.TrimSpace(scheduleID)
	if sessionID == "" || scheduleID == "" {
		return invalid("a session id and a schedule id are required")
	}
	switch action {
	case "pause":
		err = s.Pause(a.ctx, sessionID, scheduleID)
	case "resume":
		err = s.Resume(a.ctx, sessionID, scheduleID)
	case "dismiss":
		err = s.Dismiss(a.ctx, sessionID, scheduleID)
	case "skip":
		_, err = s.Skip(a.ctx, sessionID, scheduleID)
	case "fire":
		err = s.Trigger(a.ctx, sessionID, scheduleID)
	case "snooze":
		if snoozeMinutes < 1 || snoozeMinutes > maxSnoozeMinutes {
			return invalid(fmt.Sprintf("snooze for 1 to %d minutes", maxSnoozeMinutes))
		}
		err = s.Snooze(a.ctx, sessionID, scheduleID, time.Duration(snoozeMinutes)*time.Minute)
	default:
		return invalid(fmt.Sprintf("unknown schedule action %q (pause, resume, snooze, fire, skip or dismiss)", action))
	}
	if errors.Is(err, archive.ErrScheduleEnded) {
		return invalid("This schedule has ended in its session; Logbook no longer fires it.")
	}
	if errors.Is(err, scheduler.ErrDemo) {
		return invalid("This is a demo session: its scheduled prompts are shown, never fired.")
	}
	return err
}

// ScheduleFires returns one schedule's fire history, newest first.
func (a *App) ScheduleFires(sessionID, scheduleID string) ([]archive.ScheduleFire, error) {
	if strings.TrimSpace(sessionID) == "" || strings.TrimSpace(scheduleID) == "" {
		return nil, invalid("a session id and a schedule id are required")
	}
	return a.deps.Archive.ScheduleFires(a.ctx, sessionID, scheduleID, 100)
}

// SchedulerConfig returns what the scheduler does when a schedule fires.
func (a *App) SchedulerConfig() (SchedulerConfig, error) {
	s, err := a.scheduler()
	if err != nil {
		return SchedulerConfig{}, err
	}
	return SchedulerConfig(s.Config()), nil
}

// SetSchedulerConfig validates and saves the scheduler's configuration; it applies
// from the next fire on. Only the desktop window may change the command: a browser
// session holds no more than a token, which must not be enough to choose programs
// this machine runs.
func (a *App) SetSchedulerConfig(c SchedulerConfig) error {
	s, err := a.scheduler()
	if err != nil {
		return err
	}
	if c.Command == nil {
		c.Command = []string{}
	}
	cfg := scheduler.Config(c)
	if err := cfg.Validate(); err != nil {
		return invalid(err.Error())
	}
	// A browser holds no more than the per-run token: not enough to choose a
	// program this machine runs, nor where prompts are sent.
	if cur := s.Config(); !a.events.desktop() {
		if !slices.Equal(c.Command, cur.Command) {
			return invalid("The command can only be changed in the desktop app, in scheduler.json in the data folder, " +
				"or with `logbook scheduler --save -- COMMAND ARG...`.")
		}
		if c.WebhookURL != cur.WebhookURL {
			return invalid("The webhook URL can only be changed in the desktop app, in scheduler.json in the data folder, " +
				"or with `logbook scheduler --save --webhook URL`.")
		}
	}
	return s.SetConfig(cfg)
}

func (a *App) scheduler() (*scheduler.Scheduler, error) {
	if a.deps.Scheduler == nil {
		return nil, invalid("The scheduler is not running in this Logbook.")
	}
	return a.deps.Scheduler, nil
}

// startScheduler starts the scheduler under the app's root context, publishing each
// fire to the UI, and stops it when Shutdown cancels that context. Startup calls it.
func (a *App) startScheduler() {
	s := a.deps.Scheduler
	if s == nil || s.Running() {
		return
	}
	s.Notify = func(f scheduler.Fire) { a.events.Publish(EventScheduleFired, f) }
	if err := s.Start(a.ctx); err != nil {
		// A failed first load still leaves cron running; the next import's
		// Reload arms what it can.
		a.log.Warn("scheduler start", "err", err)
	}
	if !s.Running() {
		return
	}
	if !a.track() { // Shutdown began meanwhile: it will not wait for the stopper below
		if err := s.Stop(); err != nil {
			a.log.Warn("scheduler stop", "err", err)
		}
		return
	}
	go func() {
		defer a.wg.Done()
		<-a.ctx.Done()
		if err := s.Stop(); err != nil {
			a.log.Warn("scheduler stop", "err", err)
		}
	}()
}
