package scheduler

// This file holds the scheduler's configuration: which action a fire runs, how
// long it may take, how often it is retried and what happens to fires missed while
// Logbook was closed; it lives in scheduler.json, read and saved here.

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/logbook/logbook/internal/atomicfile"
)

// Scheduler actions (Config.Action).
const (
	ActionNotify  = "notify"  // tell the UI (event, in-window notification); nothing runs
	ActionCommand = "command" // run Config.Command, no shell involved
	ActionWebhook = "webhook" // POST a JSON description of the fire to Config.WebhookURL
)

// Catch-up policies (Config.CatchUp): what happens to a fire whose instant
// passed while Logbook was closed (or the machine slept).
const (
	CatchUpFire = "fire" // fire it once, now
	CatchUpAsk  = "ask"  // record and show the question; the user fires, skips or dismisses it
	CatchUpSkip = "skip" // record it as skipped; an every then resumes its cadence
)

// Command placeholders, expanded inside every argument of Config.Command.
const (
	PlaceholderPrompt   = "{prompt}"
	PlaceholderSession  = "{session}"
	PlaceholderCwd      = "{cwd}"
	PlaceholderSchedule = "{schedule}"
)

// Config says what the scheduler does when a schedule fires. It is stored
// as JSON in the data directory (scheduler.json), not in the archive: a command
// template runs programs and a webhook sends prompts off the machine, so this is
// the machine's own policy, editable by hand, and must never travel with archive
// data that is copied, exported or synced to another machine.
type Config struct {
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

// DefaultConfig is the configuration of a data directory without a
// scheduler.json: notify only, and a missed fire is fired once on catch-up.
func DefaultConfig() Config {
	return Config{Action: ActionNotify, Command: []string{}, TimeoutSeconds: 30, Retries: 2,
		BackoffSeconds: 5, CatchUp: CatchUpFire, MaxCatchUpHours: 24}
}

// Validate reports the first thing wrong with c, in words for the person who
// wrote it.
func (c Config) Validate() error {
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

// LoadConfig reads the configuration file at path. Members the file leaves
// out keep their defaults; a missing file is the default configuration.
func LoadConfig(path string) (Config, error) {
	c := DefaultConfig()
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, fmt.Errorf("read scheduler config: %w", err)
	}
	if err := json.Unmarshal(data, &c); err != nil {
		return DefaultConfig(), fmt.Errorf("scheduler config %s: %w", path, err)
	}
	if c.Command == nil {
		c.Command = []string{}
	}
	if err := c.Validate(); err != nil {
		return DefaultConfig(), fmt.Errorf("scheduler config %s: %w", path, err)
	}
	return c, nil
}

// SaveConfig validates c and writes it to path, readable by the user only
// (it may hold a webhook secret), replacing the file atomically.
func SaveConfig(path string, c Config) error {
	if err := c.Validate(); err != nil {
		return err
	}
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(path, append(data, '\n')); err != nil {
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
	c, err := LoadConfig(s.configPath)
	if err != nil {
		s.Logger.Warn("scheduler config unusable; notifying only", "err", err)
	}
	s.cfg = c
}

// Config returns the configuration in force: ConfigPath's, re-read whenever the
// file has changed since it was last read, so a hand edit or another process's
// save applies from the next fire, and a save from the UI is judged against (and
// never silently reverts) what the file says now.
func (s *Scheduler) Config() Config {
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
func (s *Scheduler) SetConfig(c Config) error {
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
			if _, err := LoadConfig(s.configPath); err != nil {
				bad := s.configPath + ".bad"
				if rerr := os.Rename(s.configPath, bad); rerr != nil {
					return fmt.Errorf("keep the unusable scheduler config as %s: %w", bad, rerr)
				}
				s.Logger.Warn("unusable scheduler config kept before saving a new one", "kept", bad, "err", err)
			}
		}
		if err := SaveConfig(s.configPath, c); err != nil {
			return err
		}
		s.cfgStamp = stampOf(s.configPath)
	}
	s.cfg, s.cfgLoaded = c, true
	return nil
}
