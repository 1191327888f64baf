package app

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
)

// Event names the app publishes (frontend/src/api/types.ts EventMap mirrors them).
const (
	EventImportProgress = "import:progress" // ImportProgress, at most 10 a second
	EventImportDone     = "import:done"     // ImportRun
	EventArchiveChanged = "archive:changed" // ArchiveChanged
)

// maxQueued bounds the events waiting for one slow browser. Past it, the oldest
// queued event of the same name is dropped (its newer copy supersedes it: progress
// is a state, not a log), or the oldest event of all when none shares the name.
const maxQueued = 64

// Hub connects the app to its user interfaces: it fans named events out to the
// desktop window (through the Wails runtime, once attached) and to every browser
// listening on the server's event stream, and it controls the window when there
// is one. Publishing never blocks on a slow browser.
type Hub struct {
	Logger *slog.Logger

	mu    sync.Mutex
	shell shell // nil outside the desktop window
	subs  map[*subscription]struct{}
}

// NewHub returns a hub with no window and no listeners.
func NewHub() *Hub {
	return &Hub{Logger: slog.Default(), subs: map[*subscription]struct{}{}}
}

// Event is one published event with its payload encoded for the event stream.
type Event struct {
	Name string
	Data json.RawMessage
}

// Publish sends an event to the window and to every browser.
func (h *Hub) Publish(name string, data any) {
	raw, err := json.Marshal(data)
	if err != nil {
		h.Logger.Error("event payload does not encode", "event", name, "err", err)
		return
	}
	h.mu.Lock()
	sh := h.shell
	subs := make([]*subscription, 0, len(h.subs))
	for s := range h.subs {
		subs = append(subs, s)
	}
	h.mu.Unlock()
	if sh != nil {
		sh.Emit(name, data)
	}
	for _, s := range subs {
		s.push(Event{Name: name, Data: raw})
	}
}

// Raise brings the desktop window to the front; without a window it does nothing.
func (h *Hub) Raise() {
	if sh := h.window(); sh != nil {
		sh.Raise()
	}
}

// Quit closes the desktop window, which ends wails.Run; without a window it does
// nothing.
func (h *Hub) Quit() {
	if sh := h.window(); sh != nil {
		sh.Quit()
	}
}

// attachRuntime connects the hub to the Wails window behind ctx, the context Wails
// passed to OnStartup.
func (h *Hub) attachRuntime(ctx context.Context) { h.attach(newWailsShell(ctx)) }

// attach connects the hub to a window (tests pass a fake).
func (h *Hub) attach(s shell) {
	h.mu.Lock()
	h.shell = s
	h.mu.Unlock()
}

// desktop reports whether the hub talks to a desktop window.
func (h *Hub) desktop() bool { return h.window() != nil }

func (h *Hub) window() shell {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.shell
}

// subscribe registers a browser; call unsubscribe when it leaves.
func (h *Hub) subscribe() *subscription {
	s := &subscription{wake: make(chan struct{}, 1)}
	h.mu.Lock()
	h.subs[s] = struct{}{}
	h.mu.Unlock()
	return s
}

// Streams returns how many browser event streams the hub feeds.
func (h *Hub) Streams() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs)
}

func (h *Hub) unsubscribe(s *subscription) {
	h.mu.Lock()
	delete(h.subs, s)
	h.mu.Unlock()
}

// subscription is one browser's queue of events not yet written to it. wake has
// room for one signal, so a publisher never waits for the reader.
type subscription struct {
	mu    sync.Mutex
	queue []Event
	wake  chan struct{}
}

func (s *subscription) push(e Event) {
	s.mu.Lock()
	if len(s.queue) >= maxQueued {
		drop := 0
		for i, q := range s.queue {
			if q.Name == e.Name {
				drop = i
				break
			}
		}
		s.queue = append(s.queue[:drop], s.queue[drop+1:]...)
	}
	s.queue = append(s.queue, e)
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// take returns the queued events, oldest first, and empties the queue.
func (s *subscription) take() []Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.queue
	s.queue = nil
	return q
}
