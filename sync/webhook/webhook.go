// Package webhook receives the events an OpenHands agent server pushes
// (its WebhookSubscriber, shared/docs/openhands-events.md §3.3), so a
// conversation running on another machine, or in a sandbox, lands in the archive
// as it happens. It answers as the OpenHands app server's receiver does, with the
// differences its checklist (§5) asks for:
//
//   - POST {prefix}/events/{conversation_id}: a JSON array of events; the id hex or
//     dashed. The older {prefix}/{sandbox_id}/events/{conversation_id} is the same.
//   - POST {prefix}/conversations: a ConversationInfo (title, status, stats…).
//   - 200 {"success":true} only once the events are durable in the archive; a
//     fault of this machine (a full disk, an archive that cannot be written) is a
//     5xx, so the sender keeps the batch and retries it, instead of the app
//     server's swallow-and-200.
//   - 422 for a body that is not JSON, not an array (an object for
//     /conversations), or holds an element that is not an object, and for an id
//     that is not a UUID; an event of a kind nobody knows is kept as is, never a
//     reason to refuse the batch (the sender's queue would stick on it).
//   - Redelivery, duplicates, gaps and reordering are normal: an event is kept
//     once per (conversation, id), and an unknown conversation is made on first
//     sight.
//   - 413 for a body above MaxBody (64 MiB by default: the sender's batches are at
//     most 5 MiB, and a larger single event is sent alone). A body is never read
//     past the limit, and bodies being handled at once are bounded in bytes.
//
// The API key (X-Session-API-Key, 401 without a valid one) is checked before this
// handler runs (app.Server's machine wrapper), so an unauthenticated body is never
// read: unlike FastAPI, malformed JSON without a key gets 401, not 422. A
// conversation is bound to the key of its first push (Options.KeyOf): a push or
// ConversationInfo for it with another valid key is 401 too, and nothing of it is
// kept (checklist: "bound to another key → 401").
package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/logbook/logbook/archive"
)

// Store is where the pushed data goes: archive.Pushed, as the app wires it. Each
// method returns once what it was given is durable; an error wrapping ErrInvalid
// is the sender's fault (422), any other a fault of this machine (5xx).
// key is the API key the request was authenticated with (Options.KeyOf).
type Store interface {
	Events(ctx context.Context, key archive.PushKey, conversationID string, events []json.RawMessage) error
	Conversation(ctx context.Context, key archive.PushKey, info json.RawMessage) error
}

// ErrInvalid marks a Store error that is the content's fault, not the machine's.
var ErrInvalid = errors.New("invalid content")

// ErrUnauthorized marks a Store error that refuses the request's API key: the
// conversation is bound to another key (401).
var ErrUnauthorized = errors.New("unauthorized")

// DefaultMaxBody is the default limit of one request's body.
const DefaultMaxBody = 64 << 20

// Prefix is where the OpenHands app server mounts its receiver, and where an
// agent server's webhook base_url points.
const Prefix = "/api/v1/webhooks"

// Options configure a Handler.
type Options struct {
	// Prefix is the path the handler is mounted at; Prefix when empty.
	Prefix string
	// MaxBody bounds one request's body; DefaultMaxBody when 0. A larger one gets 413.
	MaxBody int64
	// MaxInFlight bounds the body bytes of the requests being handled at once;
	// MaxBody when less. A request waits for room, so memory stays bounded.
	MaxInFlight int64
	// BodyTimeout bounds reading one body; 2 minutes when 0 (a 64 MiB body over a
	// slow link takes a while).
	BodyTimeout time.Duration
	// KeyOf names the API key a request was authenticated with, which a
	// conversation is bound to (archive.PushKey); nil, or a zero key, binds
	// nothing.
	KeyOf  func(*http.Request) archive.PushKey
	Logger *slog.Logger
}

// Handler is the webhook receiver, an http.Handler.
type Handler struct {
	store  Store
	o      Options
	log    *slog.Logger
	mux    *http.ServeMux
	budget *budget
}

// New returns the receiver for store.
func New(store Store, o Options) *Handler {
	if o.Prefix == "" {
		o.Prefix = Prefix
	}
	o.Prefix = strings.TrimRight(o.Prefix, "/")
	if o.MaxBody <= 0 {
		o.MaxBody = DefaultMaxBody
	}
	if o.MaxInFlight < o.MaxBody {
		o.MaxInFlight = o.MaxBody
	}
	if o.BodyTimeout <= 0 {
		o.BodyTimeout = 2 * time.Minute
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	h := &Handler{store: store, o: o, log: o.Logger.With("component", "webhook"), mux: http.NewServeMux(),
		budget: newBudget(o.MaxInFlight)}
	h.mux.HandleFunc("POST "+o.Prefix+"/events/{conversation}", h.serveEvents)
	h.mux.HandleFunc("POST "+o.Prefix+"/{sandbox}/events/{conversation}", h.serveEvents)
	h.mux.HandleFunc("POST "+o.Prefix+"/conversations", h.serveConversation)
	h.mux.HandleFunc(o.Prefix+"/", func(w http.ResponseWriter, r *http.Request) {
		detail(w, http.StatusNotFound, "Not Found")
	})
	return h
}

// ServeHTTP routes a webhook request.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// A known path with another method: FastAPI's 405.
	if r.Method != http.MethodPost {
		if _, pattern := h.mux.Handler(withMethod(r, http.MethodPost)); pattern != "" && pattern != h.o.Prefix+"/" {
			w.Header().Set("Allow", http.MethodPost)
			detail(w, http.StatusMethodNotAllowed, "Method Not Allowed")
			return
		}
	}
	h.mux.ServeHTTP(w, r)
}

func withMethod(r *http.Request, m string) *http.Request {
	c := *r
	c.Method = m
	return &c
}

// serveEvents is POST {prefix}/events/{conversation}: a JSON array of events.
func (h *Handler) serveEvents(w http.ResponseWriter, r *http.Request) {
	conv := r.PathValue("conversation")
	if !isUUID(conv) {
		h.refuse(w, r, http.StatusUnprocessableEntity, fmt.Sprintf("conversation_id %q is not a UUID", conv))
		return
	}
	body, release, ok := h.body(w, r)
	if !ok {
		return
	}
	defer release()
	events, err := splitArray(body)
	if err != nil {
		detail(w, http.StatusUnprocessableEntity, err.Error())
		return
	}
	start := time.Now()
	if err := h.store.Events(r.Context(), h.keyOf(r), conv, events); err != nil {
		h.fail(w, r, err, "events", conv, len(events))
		return
	}
	h.log.Debug("events received", "conversation", conv, "events", len(events), "bytes", len(body), "took", time.Since(start))
	success(w)
}

// serveConversation is POST {prefix}/conversations: a ConversationInfo.
func (h *Handler) serveConversation(w http.ResponseWriter, r *http.Request) {
	body, release, ok := h.body(w, r)
	if !ok {
		return
	}
	defer release()
	if t := bytes.TrimLeft(body, " \t\r\n"); len(t) == 0 || t[0] != '{' || !json.Valid(body) {
		detail(w, http.StatusUnprocessableEntity, "the body must be a JSON object (a ConversationInfo)")
		return
	}
	if err := h.store.Conversation(r.Context(), h.keyOf(r), body); err != nil {
		h.fail(w, r, err, "conversation info", "", 1)
		return
	}
	success(w)
}

func (h *Handler) keyOf(r *http.Request) archive.PushKey {
	if h.o.KeyOf == nil {
		return archive.PushKey{}
	}
	return h.o.KeyOf(r)
}

// body reads a request's body within MaxBody and the in-flight budget; on false
// the answer is written. release gives the budget back.
func (h *Handler) body(w http.ResponseWriter, r *http.Request) ([]byte, func(), bool) {
	rc := http.NewResponseController(w)
	if r.ContentLength > h.o.MaxBody {
		h.refuse(w, r, http.StatusRequestEntityTooLarge, h.tooLarge())
		return nil, nil, false
	}
	need := r.ContentLength
	if need < 0 {
		need = h.o.MaxBody // chunked: as much as it may grow to
	}
	if err := h.budget.acquire(r.Context(), need); err != nil {
		h.refuse(w, r, http.StatusServiceUnavailable, "the server is shutting down or the client went away")
		return nil, nil, false
	}
	release := func() { h.budget.release(need) }
	_ = rc.SetReadDeadline(time.Now().Add(h.o.BodyTimeout))
	buf := bytes.NewBuffer(make([]byte, 0, max(r.ContentLength, 0)+1))
	_, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, h.o.MaxBody))
	if err != nil {
		release()
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			h.refuse(w, r, http.StatusRequestEntityTooLarge, h.tooLarge())
		} else if errors.Is(err, os.ErrDeadlineExceeded) {
			h.refuse(w, r, http.StatusRequestTimeout, "the request body did not arrive in time: "+err.Error())
		} else {
			// The client went away or the connection broke mid-body: no answer
			// reaches it; the status is for the log.
			h.refuse(w, r, http.StatusBadRequest, "the request body could not be read: "+err.Error())
		}
		return nil, nil, false
	}
	// The body is in: the storing may take longer than the body deadline.
	_ = rc.SetReadDeadline(time.Time{})
	return buf.Bytes(), release, true
}

func (h *Handler) tooLarge() string {
	return fmt.Sprintf("the body is larger than this receiver's limit of %d bytes (%d MiB); send fewer events a batch", h.o.MaxBody, h.o.MaxBody>>20)
}

// fail answers a Store error: the content's fault is 422, a machine's 500 (503
// when the server is stopping), so the sender keeps the batch and retries.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, err error, what, conv string, n int) {
	switch {
	case errors.Is(err, ErrInvalid):
		detail(w, http.StatusUnprocessableEntity, err.Error())
	case errors.Is(err, ErrUnauthorized):
		detail(w, http.StatusUnauthorized, err.Error())
	case r.Context().Err() != nil || errors.Is(err, context.Canceled):
		detail(w, http.StatusServiceUnavailable, "stopped before the "+what+" were stored; send them again")
	default:
		h.log.Error("pushed "+what+" not stored; the sender will retry", "conversation", conv, "count", n, "err", err)
		detail(w, http.StatusInternalServerError, "the "+what+" could not be stored: "+err.Error())
	}
}

// refuse answers before (or instead of) reading the rest of a body, and closes
// the connection so the unread rest is not read to reuse it.
func (h *Handler) refuse(w http.ResponseWriter, r *http.Request, status int, msg string) {
	if r.ContentLength != 0 {
		w.Header().Set("Connection", "close")
		// net/http would otherwise read on (up to 256 KB) to reuse the connection.
		_ = http.NewResponseController(w).SetReadDeadline(time.Now())
	}
	detail(w, status, msg)
}

// splitArray splits a JSON array into its elements, which share body's bytes
// (nothing is copied: a body may be tens of MiB). A body that is not JSON, not an
// array, or holds an element that is not an object is an error for the 422.
func splitArray(body []byte) ([]json.RawMessage, error) {
	if !json.Valid(body) {
		var v any
		err := json.Unmarshal(body, &v) // says where
		return nil, fmt.Errorf("the body is not JSON: %v", err)
	}
	t := bytes.TrimSpace(body)
	if t[0] != '[' {
		return nil, fmt.Errorf("the body must be a JSON array of events, not %s", kindOfValue(t[0]))
	}
	// The body is valid JSON: elements are told apart by the commas at depth 1,
	// outside strings.
	var out []json.RawMessage
	depth, start, inStr, esc := 0, 1, false, false
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case inStr:
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == '[' || c == '{':
			depth++
		case c == ']' || c == '}':
			depth--
			if depth == 0 {
				if el := bytes.TrimSpace(t[start:i]); len(el) > 0 {
					out = append(out, json.RawMessage(el))
				}
			}
		case c == ',' && depth == 1:
			out = append(out, json.RawMessage(bytes.TrimSpace(t[start:i])))
			start = i + 1
		}
	}
	for i, el := range out {
		if el[0] != '{' {
			return nil, fmt.Errorf("element %d of the array is %s, not an event (a JSON object)", i+1, kindOfValue(el[0]))
		}
	}
	return out, nil
}

// kindOfValue names the kind of a JSON value by its first byte.
func kindOfValue(c byte) string {
	switch c {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// isUUID reports whether s is a UUID, 32 hex digits or dashed.
func isUUID(s string) bool {
	h := strings.ToLower(s)
	if len(h) == 36 {
		if h[8] != '-' || h[13] != '-' || h[18] != '-' || h[23] != '-' {
			return false
		}
		h = strings.ReplaceAll(h, "-", "")
	}
	return len(h) == 32 && strings.Trim(h, "0123456789abcdef") == ""
}

func success(w http.ResponseWriter) {
	writeJSON(w, http.StatusOK, map[string]bool{"success": true})
}

// detail writes a FastAPI-shaped error: {"detail": msg}.
func detail(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"detail": msg})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// budget bounds the body bytes held at once.
type budget struct {
	mu    sync.Mutex
	free  int64
	wake  chan struct{}
	limit int64
}

func newBudget(n int64) *budget { return &budget{free: n, limit: n, wake: make(chan struct{})} }

func (b *budget) acquire(ctx context.Context, n int64) error {
	n = min(n, b.limit)
	for {
		b.mu.Lock()
		if b.free >= n {
			b.free -= n
			b.mu.Unlock()
			return nil
		}
		wake := b.wake
		b.mu.Unlock()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-wake:
		}
	}
}

func (b *budget) release(n int64) {
	n = min(n, b.limit)
	b.mu.Lock()
	b.free += n
	close(b.wake)
	b.wake = make(chan struct{})
	b.mu.Unlock()
}
