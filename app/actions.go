package app

// This file holds what the scheduler does when a schedule fires: its configuration
// (which action, how long it may take, how often it is retried, what happens to
// fires missed while Logbook was closed) and the three actions, notify, command and
// webhook.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Scheduler actions (SchedulerConfig.Action).
const (
	ActionNotify  = "notify"  // tell the UI (event, in-window notification); nothing runs
	ActionCommand = "command" // run SchedulerConfig.Command, no shell involved
	ActionWebhook = "webhook" // POST a JSON description of the fire to SchedulerConfig.WebhookURL
)

// Catch-up policies (SchedulerConfig.CatchUp): what happens to a fire whose instant
// passed while Logbook was closed (or the machine slept).
const (
	CatchUpFire = "fire" // fire it once, now
	CatchUpAsk  = "ask"  // record and show the question; the user fires, skips or dismisses it
	CatchUpSkip = "skip" // record it as skipped; an every then resumes its cadence
)

// Command placeholders, expanded inside every argument of SchedulerConfig.Command.
const (
	PlaceholderPrompt   = "{prompt}"
	PlaceholderSession  = "{session}"
	PlaceholderCwd      = "{cwd}"
	PlaceholderSchedule = "{schedule}"
)

// SchedulerConfig says what the scheduler does when a schedule fires. It is stored
// as JSON in the data directory (scheduler.json), not in the archive: a command
// template runs programs and a webhook sends prompts off the machine, so this is
// the machine's own policy, editable by hand, and must never travel with archive
// data that is copied, exported or synced to another machine.
type SchedulerConfig struct {
	Action string `json:"action"` // notify (default) | command | webhook
	// Command is the argv of the command action. Each argument may contain the
	// placeholders {prompt}, {session}, {cwd} and {schedule}; each expands inside
	// its own argument only, and the program is started directly (never through a
	// shell), so a prompt arrives as exactly the text it was, whatever it contains.
	Command    []string `json:"command"`
	WebhookURL string   `json:"webhook_url"` // http(s) URL the webhook action POSTs to
	// TimeoutSeconds bounds one attempt of the action; Retries is how many more
	// attempts a failure gets, BackoffSeconds the wait before the first retry
	// (doubled for each further one, at most maxBackoff).
	TimeoutSeconds float64 `json:"timeout_seconds"`
	Retries        int     `json:"retries"`
	BackoffSeconds float64 `json:"backoff_seconds"`
	CatchUp        string  `json:"catch_up"` // fire (default) | ask | skip
	// MaxCatchUpHours bounds the fire catch-up policy: a missed fire older than this
	// is asked about instead of run, so importing months of history (or opening
	// the app after a long holiday) never sets off a burst of stale reminders or
	// commands. 0 means no bound.
	MaxCatchUpHours float64 `json:"max_catch_up_hours"`
}

// maxBackoff caps the wait between two attempts.
const maxBackoff = 5 * time.Minute

// DefaultSchedulerConfig is the configuration of a data directory without a
// scheduler.json: notify only, and a missed fire is fired once on catch-up.
func DefaultSchedulerConfig() SchedulerConfig {
	return SchedulerConfig{Action: ActionNotify, Command: []string{}, TimeoutSeconds: 30, Retries: 2,
		BackoffSeconds: 5, CatchUp: CatchUpFire, MaxCatchUpHours: 24}
}

// Validate reports the first thing wrong with c, in words for the person who
// wrote it.
func (c SchedulerConfig) Validate() error {
	switch c.Action {
	case ActionNotify:
	case ActionCommand:
		if len(c.Command) == 0 || strings.TrimSpace(c.Command[0]) == "" {
			return errors.New("the command action needs a command: the program, then its arguments")
		}
		// The program is the user's choice alone: a placeholder in it would let a
		// session's text (a prompt, a cwd) pick what this machine runs.
		for _, ph := range []string{PlaceholderPrompt, PlaceholderSession, PlaceholderCwd, PlaceholderSchedule} {
			if strings.Contains(c.Command[0], ph) {
				return fmt.Errorf("the program (the first word of the command) cannot contain %s; put placeholders in its arguments", ph)
			}
		}
	case ActionWebhook:
		u, err := url.Parse(c.WebhookURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("the webhook action needs an http:// or https:// URL, got %q", c.WebhookURL)
		}
	default:
		return fmt.Errorf("action must be notify, command or webhook, got %q", c.Action)
	}
	switch {
	case c.TimeoutSeconds <= 0 || c.TimeoutSeconds > 3600:
		return fmt.Errorf("timeout must be more than 0 and at most 3600 seconds, got %g", c.TimeoutSeconds)
	case c.Retries < 0 || c.Retries > 10:
		return fmt.Errorf("retries must be between 0 and 10, got %d", c.Retries)
	case c.BackoffSeconds < 0 || c.BackoffSeconds > maxBackoff.Seconds():
		return fmt.Errorf("backoff must be between 0 and %g seconds, got %g", maxBackoff.Seconds(), c.BackoffSeconds)
	case c.MaxCatchUpHours < 0 || c.MaxCatchUpHours > 24*366:
		return fmt.Errorf("max catch-up age must be between 0 (no bound) and 8784 hours, got %g", c.MaxCatchUpHours)
	}
	switch c.CatchUp {
	case CatchUpFire, CatchUpAsk, CatchUpSkip:
	default:
		return fmt.Errorf("catch-up policy must be fire, ask or skip, got %q", c.CatchUp)
	}
	return nil
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// LoadSchedulerConfig reads the configuration file at path. Members the file leaves
// out keep their defaults; a missing file is the default configuration.
func LoadSchedulerConfig(path string) (SchedulerConfig, error) {
	c := DefaultSchedulerConfig()
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, fmt.Errorf("read scheduler config: %w", err)
	}
	if err := json.Unmarshal(data, &c); err != nil {
		return DefaultSchedulerConfig(), fmt.Errorf("scheduler config %s: %w", path, err)
	}
	if c.Command == nil {
		c.Command = []string{}
	}
	if err := c.Validate(); err != nil {
		return DefaultSchedulerConfig(), fmt.Errorf("scheduler config %s: %w", path, err)
	}
	return c, nil
}

// SaveSchedulerConfig validates c and writes it to path, readable by the user only
// (it may hold a webhook secret), replacing the file atomically.
func SaveSchedulerConfig(path string, c SchedulerConfig) error {
	if err := c.Validate(); err != nil {
		return err
	}
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	if err := writeFileAtomic(path, append(data, '\n')); err != nil {
		return fmt.Errorf("save scheduler config: %w", err)
	}
	return nil
}

// fileStamp identifies one version of a file: a hand edit, or a save by another
// process (`logbook scheduler --save`), changes it.
type fileStamp struct {
	exists  bool
	size    int64
	modTime time.Time
}

func (a fileStamp) equal(b fileStamp) bool {
	return a.exists == b.exists && a.size == b.size && a.modTime.Equal(b.modTime)
}

func stampOf(path string) fileStamp {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{}
	}
	return fileStamp{exists: true, size: fi.Size(), modTime: fi.ModTime()}
}

// loadConfigLocked reads ConfigPath, when set, into cfg. A file that cannot be
// used leaves the safe default (notify only), so a broken hand edit never stops
// reminders; the problem is logged.
func (s *Scheduler) loadConfigLocked() {
	s.cfgLoaded = true
	if s.configPath == "" {
		return
	}
	s.cfgStamp = stampOf(s.configPath)
	c, err := LoadSchedulerConfig(s.configPath)
	if err != nil {
		s.Logger.Warn("scheduler config unusable; notifying only", "err", err)
	}
	s.cfg = c
}

// Config returns the configuration in force: ConfigPath's, re-read whenever the
// file has changed since it was last read, so a hand edit or another process's
// save applies from the next fire, and a save from the UI is judged against (and
// never silently reverts) what the file says now.
func (s *Scheduler) Config() SchedulerConfig {
	s.cfgMu.Lock()
	defer s.cfgMu.Unlock()
	if !s.cfgLoaded || (s.configPath != "" && !stampOf(s.configPath).equal(s.cfgStamp)) {
		s.loadConfigLocked()
	}
	c := s.cfg
	c.Command = append([]string{}, s.cfg.Command...)
	return c
}

// SetConfig validates c, saves it (to ConfigPath, when set) and uses it from the
// next fire on. A config file that exists but cannot be used (a hand edit gone
// wrong) is kept as ConfigPath+".bad" rather than overwritten.
func (s *Scheduler) SetConfig(c SchedulerConfig) error {
	if c.Command == nil {
		c.Command = []string{}
	}
	if err := c.Validate(); err != nil {
		return err
	}
	s.cfgMu.Lock()
	defer s.cfgMu.Unlock()
	if s.configPath != "" {
		if _, err := os.Stat(s.configPath); err == nil {
			if _, err := LoadSchedulerConfig(s.configPath); err != nil {
				bad := s.configPath + ".bad"
				if rerr := os.Rename(s.configPath, bad); rerr != nil {
					return fmt.Errorf("keep the unusable scheduler config as %s: %w", bad, rerr)
				}
				s.Logger.Warn("unusable scheduler config kept before saving a new one", "kept", bad, "err", err)
			}
		}
		if err := SaveSchedulerConfig(s.configPath, c); err != nil {
			return err
		}
		s.cfgStamp = stampOf(s.configPath)
	}
	s.cfg, s.cfgLoaded = c, true
	return nil
}

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
func (s *Scheduler) runAction(ctx context.Context, c SchedulerConfig, p firePayload) (int, error) {
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
func (s *Scheduler) attempt(ctx context.Context, c SchedulerConfig, p firePayload) error {
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
