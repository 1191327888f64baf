package webhook_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/logbook/logbook/internal/cputime"
	"github.com/logbook/logbook/sync/webhook"
)

// BenchmarkIngest posts realistic events to a receiver on a real archive over
// real HTTP, in batches of 5 and of 100 (the sender's default buffer, and a large
// one), and reports events/s: each batch answered only once it is written, synced
// and imported. "new" pushes whole new conversations; "existing" pushes to a
// conversation that already holds 10,000 events, where a push must cost what
// its batch holds, not what the conversation does. cpu-µs/event is the
// process's user+system CPU per event (sender included).
func BenchmarkIngest(b *testing.B) {
	for _, size := range []int{5, 100} {
		b.Run(fmt.Sprintf("new/batch-%d", size), func(b *testing.B) {
			conv := genConversation(b, 42, 100)
			rc := newReceiver(b, b.TempDir(), webhook.Options{}, nil)
			b.ResetTimer()
			cpu := cputime.Process()
			events := 0
			for i := range b.N {
				// A new conversation each round: the same events under new ids.
				id := fmt.Sprintf("%032x", i+1)
				s := newSender(rc.url, "k", size, uint64(i))
				evs := renumber(conv.events, i)
				if err := s.send(context.Background(), id, evs); err != nil {
					b.Fatal(err)
				}
				events += len(evs)
			}
			b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
			// CPU (sender, receiver and archive: one process) is what a busy
			// machine does not blur.
			b.ReportMetric(float64(cputime.Process()-cpu)/1e3/float64(events), "cpu-µs/event")
			b.ReportMetric(float64(len(conv.events)), "events/conversation")
		})
	}
	for _, size := range []int{5, 100} {
		b.Run(fmt.Sprintf("existing-10000/batch-%d", size), func(b *testing.B) {
			conv := genConversation(b, 42, 100)
			rc := newReceiver(b, b.TempDir(), webhook.Options{}, nil)
			id := fmt.Sprintf("%032x", 7)
			// The conversation's first 10,000 events, in batches of 1,000.
			round := 0
			fill := newSender(rc.url, "k", 1000, 1)
			for n := 0; n < 10_000; n += len(conv.events) {
				evs := renumber(conv.events, round)
				round++
				if err := fill.send(context.Background(), id, evs[:min(len(evs), 10_000-n)]); err != nil {
					b.Fatal(err)
				}
			}
			const perRound = 200
			b.ResetTimer()
			cpu := cputime.Process()
			events := 0
			for i := range b.N {
				s := newSender(rc.url, "k", size, uint64(i))
				evs := renumber(conv.events, round)[:perRound]
				round++
				if err := s.send(context.Background(), id, evs); err != nil {
					b.Fatal(err)
				}
				events += len(evs)
			}
			b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
			// CPU (sender, receiver and archive: one process) is what a busy
			// machine does not blur.
			b.ReportMetric(float64(cputime.Process()-cpu)/1e3/float64(events), "cpu-µs/event")
		})
	}
}

// renumber gives events fresh ids, so each round is a new conversation.
func renumber(events []json.RawMessage, round int) []json.RawMessage {
	out := make([]json.RawMessage, len(events))
	for i, e := range events {
		var m map[string]json.RawMessage
		_ = json.Unmarshal(e, &m)
		m["id"], _ = json.Marshal(fmt.Sprintf("%08x-0000-4000-8000-%012x", round, i))
		out[i], _ = json.Marshal(m)
	}
	return out
}
