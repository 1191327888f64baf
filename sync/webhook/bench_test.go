package webhook_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/logbook/logbook/sync/webhook"
)

// BenchmarkIngest posts conversations of realistic events to a receiver on a
// real archive over real HTTP, in batches of 5 and of 100 (the sender's default
// buffer, and a large one), and reports events/s: each batch answered only once
// it is written, synced and imported.
func BenchmarkIngest(b *testing.B) {
	for _, size := range []int{5, 100} {
		b.Run(fmt.Sprintf("batch-%d", size), func(b *testing.B) {
			conv := genConversation(b, 42, 100)
			rc := newReceiver(b, b.TempDir(), webhook.Options{}, nil)
			b.ResetTimer()
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
			b.ReportMetric(float64(len(conv.events)), "events/conversation")
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
