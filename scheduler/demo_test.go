package scheduler

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/app/demodata"
	"github.com/logbook/logbook/archive"
)

// demoArchive imports the demo archive (as app.CreateDemo writes it) into a fresh
// archive and returns it with the demo's root; every schedule in it is active and
// due (its next fire moved into the past).
func demoArchive(t *testing.T) (*schedEnv, string, []archive.ScheduleItem) {
	t.Helper()
	e := newSchedEnv(t)
	root := e.Root + "/demo-sessions"
	require.NoError(t, demodata.Write(root, time.Now()))
	_, err := e.Store.Import(context.Background(), []string{root}, archive.ImportOptions{})
	require.NoError(t, err)
	// A week on, every demo schedule that has not ended is overdue.
	items, err := e.Store.Schedules(context.Background(), archive.ItemFilter{}, time.Now().Add(7*24*time.Hour))
	require.NoError(t, err)
	var due []archive.ScheduleItem
	for _, it := range items {
		if it.LogbookNextFire != nil {
			due = append(due, it)
		}
	}
	require.NotEmpty(t, due, "the demo archive holds no schedule that would fire")
	return e, root, due
}

func TestSchedulerDemoNeverFires(t *testing.T) {
	notifyOnly := fastRetries(Config{Action: ActionNotify, CatchUp: CatchUpFire})
	later := func(o *Options) { o.Now = func() time.Time { return time.Now().Add(7 * 24 * time.Hour) } }

	t.Run("OK", func(t *testing.T) {
		// The control: the same archive without DemoRoots fires its due schedules.
		e, _, _ := demoArchive(t)
		_, log := startScheduler(t, e, notifyOnly, later)
		log.waitN(t, 1, 10*time.Second)
	})

	t.Run("DemoNotArmed", func(t *testing.T) {
		e, root, due := demoArchive(t)
		s, log := startScheduler(t, e, notifyOnly, later, func(o *Options) { o.DemoRoots = []string{root} })
		assert.Empty(t, s.Armed())
		assert.True(t, s.Demo(context.Background(), due[0].SessionID))
		time.Sleep(500 * time.Millisecond)
		assert.Empty(t, log.all(), "a demo schedule fired")
		require.NoError(t, s.Reload(context.Background()))
		assert.Empty(t, s.Armed())
	})

	t.Run("ErrDemo", func(t *testing.T) {
		e, root, due := demoArchive(t)
		s, log := startScheduler(t, e, notifyOnly, later, func(o *Options) { o.DemoRoots = []string{root} })
		_, err := s.FireNow(context.Background(), due[0].SessionID, due[0].ID)
		require.ErrorIs(t, err, ErrDemo)
		require.ErrorIs(t, s.Trigger(context.Background(), due[0].SessionID, due[0].ID), ErrDemo)
		fires, err := e.Store.ScheduleFires(context.Background(), due[0].SessionID, due[0].ID, 10)
		require.NoError(t, err)
		assert.Empty(t, fires)
		assert.Empty(t, log.all())
	})
}
