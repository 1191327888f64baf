package archive

// This file holds Logbook's side of scheduled prompts: the overrides a user sets
// (pause, dismiss, snooze), the history of fires, and the state that follows from
// them and the session's own fold. dsh delivers a reminder only while its session is
// live; Logbook re-arms the archived ones, and what it decides and does is stored in
// schedule_overrides and schedule_fires (migration 0002). The session logs and the
// schedules table, which every import rebuilds, are never modified.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/logbook/logbook/archive/dsh"
)

// ErrScheduleEnded is returned when an override is set on a schedule that its
// session already deleted or completed: there is nothing left to pause or snooze.
var ErrScheduleEnded = errors.New("archive: schedule has ended in its session")

// Schedule overrides, as stored in ScheduleItem.Override.
const (
	OverridePaused    = "paused"    // not fired until resumed
	OverrideDismissed = "dismissed" // never fired again by Logbook
)

// Logbook states of a schedule (ScheduleItem.LogbookState): what Logbook does with it.
const (
	LogbookScheduled = "scheduled" // armed; LogbookNextFire is in the future
	LogbookOverdue   = "overdue"   // its target passed without a fire: caught up per policy
	LogbookPaused    = "paused"    // paused by the user
	LogbookDismissed = "dismissed" // dismissed by the user
	LogbookFired     = "fired"     // a one-shot Logbook has fired (or skipped): done
	LogbookCompleted = "completed" // completed in its session, or an every past year 9999
	LogbookDeleted   = "deleted"   // deleted in its session
)

// Fire triggers (ScheduleFire.Trigger).
const (
	TriggerScheduled = "scheduled" // the armed instant came while Logbook ran
	TriggerCatchUp   = "catch-up"  // the instant had passed (Logbook was closed, or the machine slept)
	TriggerManual    = "manual"    // the user asked for it (fire now, skip)
)

// Fire outcomes (ScheduleFire.Outcome).
const (
	FireOK      = "ok"      // the action succeeded
	FireFailed  = "failed"  // the action failed on every attempt
	FireSkipped = "skipped" // not run: the catch-up policy or the user skipped it
	FireAsked   = "asked"   // not run: the user was asked whether to fire it
)

// ScheduleFire is one entry of a schedule's fire history.
type ScheduleFire struct {
	ID         int64     `json:"id"`
	SessionID  string    `json:"session_id"`
	ScheduleID string    `json:"schedule_id"`
	FiredAt    time.Time `json:"fired_at"`
	TargetAt   time.Time `json:"target_at"` // the instant the fire was for
	Trigger    string    `json:"trigger"`   // scheduled | catch-up | manual
	Action     string    `json:"action"`    // notify | command | webhook | none
	Outcome    string    `json:"outcome"`   // ok | failed | skipped | asked
	Error      string    `json:"error,omitempty"`
	Attempts   int       `json:"attempts"`
	// Settles is true when this fire disposes of TargetAt: a one-shot is then done
	// and an every moves to its first anchor-aligned target after the fire.
	Settles bool `json:"settles"`
}

// SetScheduleOverride pauses (OverridePaused) or dismisses (OverrideDismissed) a
// schedule, or with state "" resumes it, clearing any pause, dismissal and snooze.
func (s *Store) SetScheduleOverride(ctx context.Context, sessionID, scheduleID, state string) error {
	switch state {
	case "", OverridePaused, OverrideDismissed:
	default:
		return fmt.Errorf("schedule override %q: want paused, dismissed or empty", state)
	}
	q := `INSERT INTO schedule_overrides (session_pk, schedule_id, state, snoozed_until, updated_at)
		VALUES (?, ?, ?, NULL, ?)
		ON CONFLICT (session_pk, schedule_id) DO UPDATE SET
			state = excluded.state,
			updated_at = excluded.updated_at`
	if state == "" {
		q = `UPDATE schedule_overrides SET state = NULL, snoozed_until = NULL, updated_at = ?4
			WHERE session_pk = ?1 AND schedule_id = ?2`
	}
	return s.overrideTx(ctx, sessionID, scheduleID, state != "", func(tx *sql.Tx, pk int64) error {
		_, err := tx.ExecContext(ctx, q, pk, scheduleID, state, s.Now().UnixMilli())
		return err
	})
}

// SnoozeSchedule holds a schedule back until until: its next fire is then no
// earlier than that instant. A later resume clears the snooze.
func (s *Store) SnoozeSchedule(ctx context.Context, sessionID, scheduleID string, until time.Time) error {
	return s.overrideTx(ctx, sessionID, scheduleID, true, func(tx *sql.Tx, pk int64) error {
		_, err := tx.ExecContext(ctx, `
			INSERT INTO schedule_overrides (session_pk, schedule_id, state, snoozed_until, updated_at)
			VALUES (?, ?, NULL, ?, ?)
			ON CONFLICT (session_pk, schedule_id) DO UPDATE SET
				snoozed_until = excluded.snoozed_until,
				updated_at = excluded.updated_at`,
			pk, scheduleID, until.UnixMilli(), s.Now().UnixMilli())
		return err
	})
}

// overrideTx runs fn in a write transaction once the schedule is found. With
// mustBeActive, a schedule its session deleted or completed is refused.
func (s *Store) overrideTx(ctx context.Context, sessionID, scheduleID string, mustBeActive bool, fn func(*sql.Tx, int64) error) error {
	pk, err := s.sessionPK(ctx, sessionID)
	if err != nil {
		return err
	}
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	status, err := scheduleStatus(ctx, tx, pk, sessionID, scheduleID)
	if err != nil {
		return err
	}
	if mustBeActive && status != ScheduleActive {
		return fmt.Errorf("schedule %s of session %s is %s: %w", scheduleID, sessionID, status, ErrScheduleEnded)
	}
	if err := fn(tx, pk); err != nil {
		return fmt.Errorf("save override of schedule %s: %w", scheduleID, err)
	}
	return tx.Commit()
}

// sessionRef resolves a session id (or unique prefix) to its pk and full id.
func (s *Store) sessionRef(ctx context.Context, id string) (int64, string, error) {
	sess, err := s.Session(ctx, id)
	if err != nil {
		return 0, "", err
	}
	var pk int64
	err = s.read.QueryRowContext(ctx, `SELECT pk FROM sessions WHERE id = ?`, sess.ID).Scan(&pk)
	return pk, sess.ID, err
}

// scheduleStatus returns the folded status of a schedule, or ErrNotFound.
func scheduleStatus(ctx context.Context, tx *sql.Tx, pk int64, sessionID, scheduleID string) (string, error) {
	var status string
	err := tx.QueryRowContext(ctx, `SELECT status FROM schedules WHERE session_pk = ? AND schedule_id = ?`,
		pk, scheduleID).Scan(&status)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("schedule %s of session %s: %w", scheduleID, sessionID, ErrNotFound)
	}
	return status, err
}

// RecordScheduleFire appends f to its schedule's fire history and returns it with
// its ID and session id filled in.
func (s *Store) RecordScheduleFire(ctx context.Context, f ScheduleFire) (ScheduleFire, error) {
	pk, sessionID, err := s.sessionRef(ctx, f.SessionID)
	if err != nil {
		return f, err
	}
	f.SessionID = sessionID
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return f, err
	}
	defer tx.Rollback()
	if _, err := scheduleStatus(ctx, tx, pk, f.SessionID, f.ScheduleID); err != nil {
		return f, err
	}
	if f.Attempts < 1 {
		f.Attempts = 1
	}
	var errText any
	if f.Error != "" {
		errText = f.Error
	}
	err = tx.QueryRowContext(ctx, `
		INSERT INTO schedule_fires (session_pk, schedule_id, fired_at, target_at, trigger_kind, action, outcome,
			error, attempt, settles)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		RETURNING id`,
		pk, f.ScheduleID, f.FiredAt.UnixMilli(), f.TargetAt.UnixMilli(), f.Trigger, f.Action, f.Outcome,
		errText, f.Attempts, f.Settles).Scan(&f.ID)
	if err != nil {
		return f, fmt.Errorf("record fire of schedule %s: %w", f.ScheduleID, err)
	}
	f.FiredAt, f.TargetAt = msTime(f.FiredAt.UnixMilli()), msTime(f.TargetAt.UnixMilli())
	return f, tx.Commit()
}

// fireColumns are the columns scanFire reads, from schedule_fires aliased f.
const fireColumns = `f.id, f.schedule_id, f.fired_at, f.target_at, f.trigger_kind, f.action, f.outcome,
	COALESCE(f.error, ''), f.attempt, f.settles`

func scanFire(row interface{ Scan(...any) error }, sessionID string) (ScheduleFire, error) {
	f := ScheduleFire{SessionID: sessionID}
	var fired, target int64
	err := row.Scan(&f.ID, &f.ScheduleID, &fired, &target, &f.Trigger, &f.Action, &f.Outcome, &f.Error,
		&f.Attempts, &f.Settles)
	f.FiredAt, f.TargetAt = msTime(fired), msTime(target)
	return f, err
}

// ScheduleFires returns a session's fire history, newest first: one schedule's, or
// with scheduleID "" every schedule's. limit <= 0 means all.
func (s *Store) ScheduleFires(ctx context.Context, sessionID, scheduleID string, limit int) ([]ScheduleFire, error) {
	pk, fullID, err := s.sessionRef(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	if limit <= 0 {
		limit = -1
	}
	rows, err := s.read.QueryContext(ctx, `
		SELECT `+fireColumns+`
		FROM schedule_fires f
		WHERE f.session_pk = ? AND (? = '' OR f.schedule_id = ?)
		ORDER BY f.id DESC
		LIMIT ?`, pk, scheduleID, scheduleID, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []ScheduleFire{}
	for rows.Next() {
		f, err := scanFire(rows, fullID)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

// Schedule returns one schedule with its state at now (see Schedules), or
// ErrNotFound.
func (s *Store) Schedule(ctx context.Context, sessionID, scheduleID string, now time.Time) (ScheduleItem, error) {
	items, err := s.Schedules(ctx, ItemFilter{SessionID: sessionID}, now)
	if err != nil {
		return ScheduleItem{}, err
	}
	for _, it := range items {
		if it.ID == scheduleID {
			return it, nil
		}
	}
	return ScheduleItem{}, fmt.Errorf("schedule %s of session %s: %w", scheduleID, sessionID, ErrNotFound)
}

// logbookSide is what addLogbookState reads for one schedule.
type logbookSide struct {
	cwd      string
	override sql.NullString
	snoozed  sql.NullInt64
	fires    int64
	cursor   sql.NullInt64 // latest instant a settling fire disposed of: max(target, fired)
	last     *ScheduleFire
}

// addLogbookState fills the Logbook fields of items (all schedules, or those of the
// session pk) from the overrides and the fire history.
func (s *Store) addLogbookState(ctx context.Context, pk int64, items []ScheduleItem, now time.Time) error {
	rows, err := s.read.QueryContext(ctx, `
		SELECT s.id, c.schedule_id, COALESCE(s.cwd, ''), o.state, o.snoozed_until,
			(SELECT COUNT(*) FROM schedule_fires x
			 WHERE x.session_pk = c.session_pk AND x.schedule_id = c.schedule_id),
			(SELECT MAX(MAX(x.target_at, x.fired_at)) FROM schedule_fires x
			 WHERE x.session_pk = c.session_pk AND x.schedule_id = c.schedule_id AND x.settles = 1),
			f.id, f.schedule_id, f.fired_at, f.target_at, f.trigger_kind, f.action, f.outcome,
			COALESCE(f.error, ''), f.attempt, f.settles
		FROM schedules c
		JOIN sessions s ON s.pk = c.session_pk
		LEFT JOIN schedule_overrides o ON o.session_pk = c.session_pk AND o.schedule_id = c.schedule_id
		LEFT JOIN schedule_fires f ON f.id = (
			SELECT MAX(x.id) FROM schedule_fires x
			WHERE x.session_pk = c.session_pk AND x.schedule_id = c.schedule_id)
		WHERE (? = 0 OR c.session_pk = ?)`, pk, pk)
	if err != nil {
		return err
	}
	defer rows.Close()
	type key struct{ session, schedule string }
	sides := map[key]logbookSide{}
	for rows.Next() {
		var k key
		var side logbookSide
		var fid, fired, target, attempt, settles sql.NullInt64
		var fsched, trigger, action, outcome, ferr sql.NullString
		if err := rows.Scan(&k.session, &k.schedule, &side.cwd, &side.override, &side.snoozed, &side.fires, &side.cursor,
			&fid, &fsched, &fired, &target, &trigger, &action, &outcome, &ferr, &attempt, &settles); err != nil {
			return err
		}
		if fid.Valid {
			side.last = &ScheduleFire{ID: fid.Int64, SessionID: k.session, ScheduleID: fsched.String,
				FiredAt: msTime(fired.Int64), TargetAt: msTime(target.Int64), Trigger: trigger.String,
				Action: action.String, Outcome: outcome.String, Error: ferr.String, Attempts: int(attempt.Int64),
				Settles: settles.Int64 == 1}
		}
		sides[k] = side
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for i := range items {
		it := &items[i]
		side := sides[key{it.SessionID, it.ID}]
		it.Cwd, it.Override, it.FireCount, it.LastFire = side.cwd, side.override.String, side.fires, side.last
		it.SnoozedUntil = msPtr(side.snoozed)
		logbookView(it, msPtr(side.cursor), now)
	}
	return nil
}

// logbookView sets LogbookState and LogbookNextFire from the fold, the overrides and
// cursor, the latest instant a settling fire disposed of (nil when none has).
//
// A one-shot is done once a settling fire covers its target. An every resumes its
// cadence after a fire: its next target is the first anchor-aligned one strictly
// after the fire (dsh.NextEveryAfter), so intervals missed while Logbook was closed
// are never replayed. When the session itself dispatched past Logbook's fires (it was
// live again), its own target is newer and wins. A snooze only ever delays.
func logbookView(it *ScheduleItem, cursor *time.Time, now time.Time) {
	it.LogbookState, it.LogbookNextFire = "", nil
	switch {
	case it.Status == ScheduleDeleted:
		it.LogbookState = LogbookDeleted
		return
	case it.Status != ScheduleActive:
		it.LogbookState = LogbookCompleted
		return
	case it.Override == OverrideDismissed:
		it.LogbookState = LogbookDismissed
		return
	}
	next := it.ScheduledAt
	if cursor != nil && !cursor.Before(next) {
		if it.Kind != "every" || it.EverySeconds == nil {
			it.LogbookState = LogbookFired
			return
		}
		next = dsh.NextEveryAfter(it.ScheduledAt, time.Duration(*it.EverySeconds)*time.Second, *cursor)
		if next.IsZero() { // the next target would be past year 9999, where dsh ends the record
			it.LogbookState = LogbookCompleted
			return
		}
	}
	if it.Override == OverridePaused {
		it.LogbookState = LogbookPaused
		return
	}
	if it.SnoozedUntil != nil && it.SnoozedUntil.After(next) {
		next = *it.SnoozedUntil
	}
	next = next.UTC()
	it.LogbookNextFire = &next
	it.LogbookState = LogbookScheduled
	if !next.After(now) {
		it.LogbookState = LogbookOverdue
	}
}
