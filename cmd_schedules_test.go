package main

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive/dshgen"
)

// importSchedules imports one session (session-cli) whose schedules have the given
// targets (one-shots "at"), and returns the data directory.
func importSchedules(t *testing.T, targets ...time.Time) string {
	t.Helper()
	s := dshgen.New(dshgen.Options{Seed: 3, ID: "session-cli", Cwd: "/home/u/cli", Families: dshgen.FamilyTools})
	s.Turn(func(tb *dshgen.Turn) {
		tb.User("remind me")
		tb.Step(func(st *dshgen.Step) { st.Reply(dshgen.Text("ok")) })
	})
	for i, at := range targets {
		s.ScheduleCreateAt("at", "reminder "+string(rune('A'+i)), at.UnixMilli(), 0)
	}
	// The session sits in this machine's own agent folder ($DSH_HOME/sessions): only
	// such a session's prompts run a command by themselves.
	home, data := t.TempDir(), t.TempDir()
	t.Setenv("DSH_HOME", home)
	root := filepath.Join(home, "sessions")
	_, err := s.Log().WriteFile(root, false)
	require.NoError(t, err)
	rep := mustJSON[map[string]any](t, data, "import", "--json", root)
	require.Equal(t, "ok", objs(t, rep["files"])[0]["verdict"])
	return data
}

func scheduleByID(t *testing.T, data, id string) map[string]any {
	t.Helper()
	for _, it := range objs(t, mustJSON[any](t, data, "schedules", "--json")) {
		if it["id"] == id {
			return it
		}
	}
	t.Fatalf("schedule %s not listed", id)
	return nil
}

func TestCLIScheduleActions(t *testing.T) {
	hour := time.Now().Add(time.Hour).Truncate(time.Second).UTC()
	data := importSchedules(t, hour, hour.Add(time.Hour))

	it := scheduleByID(t, data, "schedule-1")
	assert.Equal(t, "scheduled", it["logbook_state"])
	assert.Equal(t, it["next_fire"], it["logbook_next_fire"])
	assert.NotContains(t, it, "override")

	r := cliData(t, data, "schedules", "pause", "session-cli", "schedule-1")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "schedule-1 of session-cli: paused\n", r.stdout)
	it = scheduleByID(t, data, "schedule-1")
	assert.Equal(t, "paused", it["override"])
	assert.Equal(t, "paused", it["logbook_state"])
	assert.Equal(t, "scheduled", it["state"], "the fold's view is unchanged")

	r = cliData(t, data, "schedules", "snooze", "session-cli", "schedule-2", "3h")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "scheduled (next fire")
	it = scheduleByID(t, data, "schedule-2")
	assert.NotNil(t, it["snoozed_until"])
	assert.NotEqual(t, it["next_fire"], it["logbook_next_fire"])

	r = cliData(t, data, "schedules", "resume", "session-cli", "schedule-1")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "scheduled", scheduleByID(t, data, "schedule-1")["logbook_state"])

	// fire runs the configured action (notify by default) and records it.
	fire := mustJSON[map[string]any](t, data, "schedules", "fire", "--json", "session-cli", "schedule-1")
	assert.Equal(t, "ok", fire["outcome"])
	assert.Equal(t, "manual", fire["trigger"])
	assert.Positive(t, assertInstantsUTC(t, fire))
	it = scheduleByID(t, data, "schedule-1")
	assert.Equal(t, "fired", it["logbook_state"])
	for _, it := range objs(t, mustJSON[any](t, data, "schedules", "--json", "--now", "2200-01-01T00:00:00Z")) {
		if it["id"] == "schedule-1" {
			assert.Equal(t, "overdue", it["state"], "dsh would still deliver it on resume")
			assert.Equal(t, "fired", it["logbook_state"], "Logbook already did")
		}
	}
}

func TestCLISchedulesTable(t *testing.T) {
	data := importSchedules(t, time.Now().Add(time.Hour))
	require.Equal(t, 0, cliData(t, data, "schedules", "dismiss", "session-cli", "schedule-1").code)
	r := cliData(t, data, "schedules")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "LOGBOOK")
	assert.Contains(t, r.stdout, "dismissed")
	r = cliData(t, data, "schedules", "skip", "session-cli", "schedule-1")
	assert.Equal(t, 1, r.code, "a dismissed schedule has nothing to skip")
	assert.Contains(t, r.stderr, "nothing to skip")
}

func TestCLIScheduleErrors(t *testing.T) {
	data := importSchedules(t, time.Now().Add(time.Hour))
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"missing schedule", []string{"schedules", "pause", "session-cli"}, 2, "takes SESSION SCHEDULE"},
		{"snooze without duration", []string{"schedules", "snooze", "session-cli", "schedule-1"}, 2, "DURATION"},
		{"bad duration", []string{"schedules", "snooze", "session-cli", "schedule-1", "soon"}, 2, "like 30m"},
		{"zero duration", []string{"schedules", "snooze", "session-cli", "schedule-1", "0s"}, 2, "positive"},
		{"unknown schedule", []string{"schedules", "pause", "session-cli", "schedule-9"}, 1, "schedule-9"},
		{"unknown session", []string{"schedules", "fire", "session-nosuch", "schedule-1"}, 1, "session-nosuch"},
		{"scheduler bad policy", []string{"scheduler", "--policy", "replay"}, 2, "fire, ask or skip"},
		{"scheduler two actions", []string{"scheduler", "--webhook", "http://127.0.0.1:1/", "--", "echo"}, 2, "choose one action"},
		{"scheduler bad webhook", []string{"scheduler", "--webhook", "ftp://x"}, 2, "http"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := cliData(t, data, tt.args...)
			assert.Equal(t, tt.code, r.code, "stderr: %s", r.stderr)
			assert.Contains(t, r.stderr, tt.msg)
			assert.Empty(t, r.stdout)
		})
	}
}

func TestSchedules(t *testing.T) {
	data, a, b := importGenerated(t)

	all := objs(t, mustJSON[any](t, data, "schedules", "--json"))
	assert.Equal(t, map[string]int{a.ID(): len(a.Facts().Schedules), b.ID(): len(b.Facts().Schedules)}, sessionIDs(all))

	const early, late = "2000-01-01T00:00:00Z", "2200-01-01T00:00:00Z"
	tests := []struct {
		name       string
		now        string
		wantActive string
	}{
		{"early", early, "scheduled"},
		{"late", late, "overdue"},
		{"late with offset", "2200-01-01T09:00:00+09:00", "overdue"},
	}
	for _, l := range []*dshgen.Log{a, b} {
		facts := l.Facts().Schedules
		kinds := map[string]bool{}
		for _, f := range facts {
			kinds[f.Kind] = true
		}
		require.Len(t, kinds, 3, "the generator covers at, after and every")
		for _, tt := range tests {
			t.Run(l.ID()+"/"+tt.name, func(t *testing.T) {
				items := objs(t, mustJSON[any](t, data, "schedules", "--json", "--session", l.ID(), "--now", tt.now))
				require.Len(t, items, len(facts))
				assert.Positive(t, assertInstantsUTC(t, items))
				byID := map[string]map[string]any{}
				for _, it := range items {
					assert.Equal(t, l.ID(), it["session_id"])
					byID[it["id"].(string)] = it
				}
				active := 0
				for _, f := range facts {
					it, ok := byID[f.ID]
					require.True(t, ok, "schedule %s missing", f.ID)
					assert.Equal(t, f.Kind, it["kind"])
					assert.Equal(t, f.Prompt, it["prompt"])
					if f.Active {
						active++
						assert.Equal(t, tt.wantActive, it["state"], "schedule %s", f.ID)
						assertSameInstant(t, f.NextAt, it["next_fire"], "next_fire of %s", f.ID)
					} else {
						assert.Contains(t, []any{"deleted", "completed"}, it["state"], "schedule %s", f.ID)
						assert.Nil(t, it["next_fire"])
					}
				}
				assert.Positive(t, active, "at least one active schedule")
			})
		}
	}

	r := cliData(t, data, "schedules", "--now", early)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "scheduled")
}
