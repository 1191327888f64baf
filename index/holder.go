package index

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// holderFile is the record, in the index directory, of the process that has the
// index open for writing (see Holder). Open writes it and Close removes it.
const holderFile = "holder.json"

// Holder is the process that has an index open for writing, as it recorded itself
// in the index directory, so that another process finding the index busy can say
// who holds it instead of guessing.
type Holder struct {
	PID     int       `json:"pid"`
	Command string    `json:"command"`            // what it is, e.g. "logbook import"
	OneShot bool      `json:"one_shot,omitempty"` // a command that lets go of the index when it is done
	Since   time.Time `json:"since"`
	// Gone reports that the process is no longer running: the record is stale,
	// left by a process that died without closing the index.
	Gone bool `json:"-"`
}

// String names the holder the way a message to the user does:
// "`logbook import` (pid 4242)".
func (h Holder) String() string {
	what := "a Logbook process"
	switch {
	case strings.HasPrefix(h.Command, "logbook "):
		what = "`" + h.Command + "`" // a command line, quoted as one
	case h.Command != "":
		what = h.Command
	}
	s := what + " (pid " + strconv.Itoa(h.PID) + ")"
	if h.Gone {
		s += ", no longer running"
	}
	return s
}

// InUseError is returned by Open when another process has the index open (Bleve
// allows one process per index). It matches ErrInUse with errors.Is.
type InUseError struct {
	// Holder is the process's record of itself, or nil when it left none (a
	// read-only reader, or a Logbook from before the record existed). A record
	// whose process is gone (Holder.Gone) does not name the real holder.
	Holder *Holder
}

func (e *InUseError) Error() string {
	switch {
	case e.Holder == nil:
		return ErrInUse.Error() + " (it left no record of which)"
	case e.Holder.Gone:
		return fmt.Sprintf("%s (the last recorded holder, %s, cannot be it)", ErrInUse, *e.Holder)
	}
	return fmt.Sprintf("%s: %s has it open", ErrInUse, *e.Holder)
}

// Is reports whether target is ErrInUse.
func (e *InUseError) Is(target error) bool { return target == ErrInUse }

// writeHolder records h in dir. It writes a temporary file and renames it, so a
// reader never sees half a record.
func writeHolder(dir string, h Holder) error {
	b, err := json.Marshal(h)
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, holderFile+".tmp")
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, holderFile))
}

// readHolder returns the holder recorded in dir, with Gone set when its process
// has ended, or nil when there is no readable record.
func readHolder(dir string) *Holder {
	b, err := os.ReadFile(filepath.Join(dir, holderFile))
	if err != nil {
		return nil
	}
	var h Holder
	if json.Unmarshal(b, &h) != nil || h.PID <= 0 {
		return nil
	}
	h.Gone = h.PID != os.Getpid() && !pidAlive(h.PID)
	return &h
}

// removeHolder deletes dir's holder record if it is this process's: a record
// another process wrote after ours is left to it.
func removeHolder(dir string) error {
	h := readHolder(dir)
	if h == nil || h.PID != os.Getpid() {
		return nil
	}
	err := os.Remove(filepath.Join(dir, holderFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}
