package webhook_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"
)

// sender is an agent server's WebhookSubscriber as shared/docs/openhands-events.md
// §3.3 describes it: events are buffered and flushed when the buffer is full or
// the batch reaches its byte cap; posts are serial per conversation; a failed
// batch is retried num_retries times and then put back at the head of the queue,
// so duplicates and redelivery are normal. On top of that it can misbehave as a
// real network lets it: post an acknowledged batch again, and post batches out of
// order.
type sender struct {
	baseURL, key  string
	client        *http.Client
	bufferSize    int           // event_buffer_size
	maxBatchBytes int           // max_batch_bytes
	numRetries    int           // num_retries
	retryDelay    time.Duration // retry_delay

	mu        sync.Mutex
	rng       *rand.Rand
	redeliver float64 // chance an acknowledged batch is posted once more, later
	reorder   float64 // chance the next two batches go in the other order

	posts, failed int
	// acked, when set, is told each batch the receiver acknowledged.
	acked func([]json.RawMessage)
}

func newSender(baseURL, key string, bufferSize int, seed uint64) *sender {
	return &sender{baseURL: baseURL, key: key, client: &http.Client{Timeout: 30 * time.Second},
		bufferSize: bufferSize, maxBatchBytes: 5 << 20, numRetries: 3, retryDelay: 5 * time.Millisecond,
		rng: rand.New(rand.NewPCG(seed, seed+1))}
}

func (s *sender) chance(p float64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return p > 0 && s.rng.Float64() < p
}

// batch takes the next batch off the head of queue.
func (s *sender) batch(queue []json.RawMessage) int {
	n, size := 0, 0
	for n < len(queue) && n < s.bufferSize {
		if n > 0 && size+len(queue[n]) > s.maxBatchBytes {
			break
		}
		size += len(queue[n])
		n++
	}
	return n
}

// send delivers a conversation's events; it returns once every event has been
// acknowledged, or ctx ends.
func (s *sender) send(ctx context.Context, conv string, events []json.RawMessage) error {
	queue := append([]json.RawMessage(nil), events...)
	var acked [][]json.RawMessage
	for len(queue) > 0 {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("%d events never acknowledged: %w", len(queue), err)
		}
		n := s.batch(queue)
		batch := queue[:n:n]
		queue = queue[n:]
		if len(queue) > 0 && s.chance(s.reorder) {
			// The next batch overtakes this one.
			m := s.batch(queue)
			next := queue[:m:m]
			queue = append(append([]json.RawMessage(nil), batch...), queue[m:]...)
			batch = next
		}
		if !s.deliver(ctx, conv, batch) {
			queue = append(append([]json.RawMessage(nil), batch...), queue...) // back at the head
			continue
		}
		acked = append(acked, batch)
		if s.acked != nil {
			s.acked(batch)
		}
		if s.chance(s.redeliver) {
			s.mu.Lock()
			again := acked[s.rng.IntN(len(acked))]
			s.mu.Unlock()
			_ = s.post(ctx, conv, again)
		}
	}
	return nil
}

// deliver posts a batch with its retries.
func (s *sender) deliver(ctx context.Context, conv string, batch []json.RawMessage) bool {
	for attempt := 0; attempt <= s.numRetries; attempt++ {
		if s.post(ctx, conv, batch) == nil {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(s.retryDelay):
		}
	}
	return false
}

// post is one delivery: any non-2xx or error is a failure.
func (s *sender) post(ctx context.Context, conv string, batch []json.RawMessage) error {
	s.mu.Lock()
	s.posts++
	s.mu.Unlock()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.baseURL+"/events/"+conv, bytes.NewReader(array(batch)))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Session-API-Key", s.key)
	resp, err := s.client.Do(req)
	if err == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode/100 != 2 {
			err = fmt.Errorf("status %d", resp.StatusCode)
		}
	}
	if err != nil {
		s.mu.Lock()
		s.failed++
		s.mu.Unlock()
	}
	return err
}

// flaky is a network in front of the receiver that loses requests (the receiver
// never sees them) and answers (the receiver stored the batch, the sender hears
// a failure and sends it again).
func flaky(seed uint64, lose, loseAnswer float64) func(http.Handler) http.Handler {
	var mu sync.Mutex
	rng := rand.New(rand.NewPCG(seed, seed^7))
	roll := func() float64 { mu.Lock(); defer mu.Unlock(); return rng.Float64() }
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if roll() < lose {
				_, _ = io.Copy(io.Discard, r.Body)
				http.Error(w, "lost on the way", http.StatusBadGateway)
				return
			}
			if roll() < loseAnswer {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, r)
				http.Error(w, "answer lost on the way", http.StatusGatewayTimeout)
				return
			}
			h.ServeHTTP(w, r)
		})
	}
}
