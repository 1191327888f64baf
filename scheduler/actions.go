package scheduler

// This file holds what the scheduler does when a schedule fires: the three
// actions, notify, command and webhook, with their retries.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// firePayload is what an action is told about one fire.
type firePayload struct {
	Event      string    `json:"event"` // always "schedule.fired"
	SessionID  string    `json:"session_id"`
	ScheduleID string    `json:"schedule_id"`
	Kind       string    `json:"kind"`
	Prompt     string    `json:"prompt"`
	Cwd        string    `json:"cwd,omitempty"`
	TargetAt   time.Time `json:"target_at"`
	FiredAt    time.Time `json:"fired_at"`
	Trigger    string    `json:"trigger"`
	Attempt    int       `json:"attempt"`
}

// runAction runs the configured action for p, retrying a failure with exponential
// backoff. It returns the attempts made and the last error (nil on success). A
// cancelled ctx (the scheduler stopping) ends it at once.
func (s *Scheduler) runAction(ctx context.Context, c Config, p firePayload) (int, error) {
	backoff := seconds(c.BackoffSeconds)
	for attempt := 1; ; attempt++ {
		p.Attempt, p.FiredAt = attempt, s.Now().UTC()
		actx, cancel := context.WithTimeout(ctx, seconds(c.TimeoutSeconds))
		err := s.attempt(actx, c, p)
		cancel()
		var pe *permanentError
		if err == nil || attempt > c.Retries || ctx.Err() != nil || errors.As(err, &pe) {
			return attempt, err
		}
		s.Logger.Warn("schedule action failed; retrying", "session", p.SessionID, "schedule", p.ScheduleID,
			"action", c.Action, "attempt", attempt, "retry_in", backoff, "err", err)
		select {
		case <-ctx.Done():
			return attempt, err
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, maxBackoff)
	}
}

// attempt runs the action once.
func (s *Scheduler) attempt(ctx context.Context, c Config, p firePayload) error {
	switch c.Action {
	case ActionCommand:
		return runCommand(ctx, c.Command, p)
	case ActionWebhook:
		return s.postWebhook(ctx, c.WebhookURL, p)
	}
	return nil // notify: the Notify hook, called for every fire, is the whole action
}

// expandArgs expands the placeholders in each argument of the template. The
// replacer makes one pass, so a prompt that itself contains "{session}" stays as
// written.
func expandArgs(template []string, p firePayload) []string {
	r := strings.NewReplacer(PlaceholderPrompt, p.Prompt, PlaceholderSession, p.SessionID,
		PlaceholderCwd, p.Cwd, PlaceholderSchedule, p.ScheduleID)
	out := make([]string, len(template))
	for i, a := range template {
		out[i] = r.Replace(a)
	}
	return out
}

// permanentError is an action failure no retry can mend (the same fire would
// fail the same way), so runAction does not wait out the backoff for it.
type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

// maxArgBytes is the longest single argument Linux passes to a program
// (MAX_ARG_STRLEN, 32 pages); other systems allow at least as much in total.
const maxArgBytes = 128 << 10

// runCommand starts the command directly (exec, no shell) and waits for it; a
// non-zero exit is an error carrying the tail of its output.
func runCommand(ctx context.Context, template []string, p firePayload) error {
	argv := expandArgs(template, p)
	for i, a := range argv {
		// The kernel takes arguments as C strings: a NUL byte (possible in a JSON
		// prompt) cannot be passed, and exec would only say "invalid argument".
		if strings.IndexByte(a, 0) >= 0 {
			return &permanentError{fmt.Errorf("command %s: argument %d holds a NUL byte, which no program argument can carry", argv[0], i)}
		}
		if len(a) >= maxArgBytes {
			return &permanentError{fmt.Errorf("command %s: argument %d is %d KiB, longer than a program argument may be (%d KiB); "+
				"use the webhook action for prompts this long", argv[0], i, len(a)>>10, maxArgBytes>>10)}
		}
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	out := &tailBuffer{max: 2048}
	cmd.Stdout, cmd.Stderr = out, out
	// A child that outlives the killed command could hold the output pipes open
	// forever; give up on them shortly after the timeout.
	cmd.WaitDelay = 2 * time.Second
	err := cmd.Run()
	if ctx.Err() != nil {
		return fmt.Errorf("command %s: timed out: %w", argv[0], ctx.Err())
	}
	if err != nil {
		if errors.Is(err, syscall.E2BIG) {
			return &permanentError{fmt.Errorf("command %s: the arguments are too long for a program (%w); "+
				"use the webhook action for prompts this long", argv[0], err)}
		}
		if tail := strings.TrimSpace(out.String()); tail != "" {
			return fmt.Errorf("command %s: %w: %s", argv[0], err, tail)
		}
		return fmt.Errorf("command %s: %w", argv[0], err)
	}
	return nil
}

// postWebhook POSTs the payload as JSON; any answer but 2xx is an error.
func (s *Scheduler) postWebhook(ctx context.Context, target string, p firePayload) error {
	body, err := json.Marshal(p)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("webhook: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Logbook-Scheduler")
	// Delivery is at least once (a retry after a lost answer repeats it): the key
	// names the fire, so a receiver can drop a repeat.
	req.Header.Set("Idempotency-Key", fmt.Sprintf("%s/%s/%d", p.SessionID, p.ScheduleID, p.TargetAt.UnixMilli()))
	// Redirects are not followed: on a 301, 302 or 303 Go's client would repeat
	// the request as a GET without the body, and a 2xx from that would record a
	// fire as delivered that no receiver ever saw; on a 307 or 308 it would send
	// the prompt on to wherever the answer pointed.
	client := *s.client
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := client.Do(req)
	if err != nil {
		// The error becomes the fire's history entry, which lives in the archive and
		// travels with it; the URL often carries a secret (a Slack or Discord hook's
		// path, a token in the query), so only what went wrong is kept.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Errorf("webhook POST failed: %w", err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode >= 300 && resp.StatusCode <= 399 {
		to := resp.Header.Get("Location")
		if u, err := resp.Request.URL.Parse(to); err == nil {
			to = u.Scheme + "://" + u.Host + u.Path // without a query, which may hold a token
		}
		return &permanentError{fmt.Errorf("webhook answered %s, redirecting to %s; redirects are not followed: "+
			"set the webhook URL to where it should go", resp.Status, to)}
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("webhook answered %s", resp.Status)
	}
	return nil
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
