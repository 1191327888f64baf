package dshgen

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive/dsh"
)

func TestScheduleCreateAtChosenInstants(t *testing.T) {
	ms := func(s string) int64 {
		v, err := time.Parse(time.RFC3339, s)
		require.NoError(t, err)
		return v.UnixMilli()
	}
	s := New(Options{Seed: 7, Families: FamilyTools})
	s.Turn(func(tb *Turn) {
		tb.User("remind me")
		tb.Step(func(st *Step) { st.Reply(Text("ok")) })
	})
	at := s.ScheduleCreateAt("at", "call mum", ms("2030-01-01T00:00:00Z"), 0)
	after := s.ScheduleCreateAt("after", "stretch", ms("2030-01-01T00:05:00Z"), 300)
	every := s.ScheduleCreateAt("every", "check CI", ms("2030-01-01T00:00:00Z"), 3600)
	gone := s.ScheduleCreateAt("at", "never", ms("2030-02-01T00:00:00Z"), 0)
	require.True(t, s.ScheduleDelete(gone))
	require.True(t, s.ScheduleDispatchAt(after, ms("2030-01-01T00:05:01Z")))
	require.True(t, s.ScheduleDispatchAt(every, ms("2030-01-01T02:30:00Z")))
	assert.False(t, s.ScheduleDispatchAt(gone, ms("2030-02-01T00:00:00Z")))
	l := s.Log()
	assertValid(t, l)

	// The decoder's fold reaches the facts the generator recorded.
	fold := dsh.NewScheduleFold()
	for _, line := range bytes.Split(bytes.TrimSpace(l.JSONL()), []byte("\n"))[1:] {
		var rec struct {
			Type      string
			Seq, Time int64
			Data      json.RawMessage
		}
		require.NoError(t, json.Unmarshal(line, &rec))
		if rec.Type == "schedule/change" {
			require.Nil(t, fold.Apply(&dsh.Event{Type: rec.Type, Seq: rec.Seq, Time: rec.Time, Data: rec.Data}))
		}
	}
	got := map[string]dsh.Schedule{}
	for _, sc := range fold.Schedules() {
		got[sc.ID] = sc
	}
	facts := l.Facts().Schedules
	require.Len(t, facts, 4)
	for _, f := range facts {
		sc := got[f.ID]
		assert.Equal(t, f.Kind, sc.Kind)
		assert.Equal(t, f.Active, sc.Status == dsh.ScheduleActive, f.ID)
		if f.Active {
			assert.Equal(t, f.NextAt, dsh.FormatInstant(sc.ScheduledAt), f.ID)
		}
	}
	assert.Equal(t, "2030-01-01T00:00:00.000Z", dsh.FormatInstant(got[at].ScheduledAt))
	assert.Equal(t, "2030-01-01T03:00:00.000Z", dsh.FormatInstant(got[every].ScheduledAt))
	assert.Equal(t, dsh.ScheduleCompleted, got[after].Status)
	assert.Equal(t, dsh.ScheduleDeleted, got[gone].Status)
}
