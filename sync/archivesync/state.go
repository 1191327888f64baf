package archivesync

import (
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/logbook/logbook/internal/atomicfile"
	"github.com/logbook/logbook/sync/repo"
)

// State is what this machine remembers between syncs (DATA/sync/state.json).
// Losing it costs time, not data: the next push re-hashes every session and
// uploads only pieces the remote lacks; the next pull re-reads every entry.
type State struct {
	LastPush time.Time `json:"last_push,omitzero"`
	LastPull time.Time `json:"last_pull,omitzero"`
	// Pushed is, by session id, what the last committed push decided.
	Pushed map[string]Pushed `json:"pushed"`
	// Pulled is, by session id, the version last imported from another machine.
	Pulled map[string]Pulled `json:"pulled"`
	// Conflicts are the sessions the last pull found diverged.
	Conflicts []Conflict `json:"conflicts"`
	// Dismissed are versions the user chose not to keep (Resolve); a pull
	// skips them until they change.
	Dismissed []Dismissed `json:"dismissed,omitempty"`
}

// Dismissed is one machine's version of a session set aside by Resolve.
type Dismissed struct {
	SessionID string `json:"session_id"`
	Machine   string `json:"machine"`
	Length    int64  `json:"length"`
	SHA256    string `json:"sha256"`
}

// dismissed reports whether machine's version e was set aside by Resolve.
func (st *State) dismissed(machine string, e repo.Entry) bool {
	for _, d := range st.Dismissed {
		if d.SessionID == e.SessionID && d.Machine == machine && d.SHA256 == e.Hash.String() && d.Length == e.Length {
			return true
		}
	}
	return false
}

// Pushed is one session at the last push.
type Pushed struct {
	// Revision is the archive's revision of the session then (archive.Store.Revisions).
	Revision int64 `json:"revision"`
	// Entry is what this machine's manifest lists; nil when the session's
	// bytes are another machine's (pulled, unchanged here): only its origin
	// publishes it.
	Entry *repo.Entry `json:"entry,omitempty"`
	// Origin is the machine the bytes came from, when not this one.
	Origin string `json:"origin,omitempty"`
}

// Pulled is one session imported from another machine.
type Pulled struct {
	Machine string     `json:"machine"`
	Entry   repo.Entry `json:"entry"`
	// Path holds the pulled bytes: the session's JSONL, or an OpenHands
	// conversation's pack.
	Path string `json:"path"`
	// Import is what the importer reads when it is not Path: the folder
	// (or file) an OpenHands pack was unpacked to.
	Import string `json:"import,omitempty"`
}

// importPath is what the importer reads for this pulled session.
func (p Pulled) importPath() string {
	if p.Import != "" {
		return p.Import
	}
	return p.Path
}

// Conflict is a session whose versions diverged: neither is a prefix of the
// other. Every version is kept: the local one in the archive, the others on
// the remote and as files in Path.
type Conflict struct {
	SessionID string    `json:"session_id"`
	Versions  []Version `json:"versions"`
}

// Version is one machine's version of a conflicting session.
type Version struct {
	Machine string `json:"machine"`
	Local   bool   `json:"local,omitempty"`
	Length  int64  `json:"length"`
	SHA256  string `json:"sha256"`
	// Path is where a pulled version was kept (not imported).
	Path string `json:"path,omitempty"`
}

// LoadState reads the state; a missing file is an empty state.
func LoadState(p Paths) (*State, error) {
	st := &State{}
	err := atomicfile.ReadJSON(p.State(), st)
	var readErr *fs.PathError
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case errors.As(err, &readErr):
		return nil, err
	case err != nil: // the file is there but is not a state
		return nil, fmt.Errorf("%w (delete it to re-read everything)", err)
	}
	if st.Pushed == nil {
		st.Pushed = map[string]Pushed{}
	}
	if st.Pulled == nil {
		st.Pulled = map[string]Pulled{}
	}
	if st.Conflicts == nil {
		st.Conflicts = []Conflict{}
	}
	return st, nil
}

// Save writes the state atomically.
func (st *State) Save(p Paths) error { return atomicfile.WriteJSON(p.State(), st) }
