package archive

import (
	"time"
)

// TimelineQuery pages a session's conversation by seq. With neither bound set the
// page starts at the beginning of the session. After and Before are exclusive.
type TimelineQuery struct {
	After  *int64 `json:"after"`  // items with seq > After, oldest first
	Before *int64 `json:"before"` // items with seq < Before, the newest Limit of them, returned oldest first
	Around *int64 `json:"around"` // a page centred on this seq (for jumping to a search hit)
	Limit  int    `json:"limit"`  // DefaultTimelineLimit when 0, at most MaxTimelineLimit
}

// Timeline page sizes.
const (
	DefaultTimelineLimit = 200
	MaxTimelineLimit     = 2000
)

// TimelinePage is one page of a session's conversation, oldest first.
type TimelinePage struct {
	SessionID string         `json:"session_id"`
	Items     []TimelineItem `json:"items"`
	HasBefore bool           `json:"has_before"` // more items before Items[0]
	HasAfter  bool           `json:"has_after"`  // more items after the last one
	Total     int64          `json:"total"`      // items in the whole timeline
}

// Timeline item kinds.
const (
	ItemMessage    = "message"    // user/message or assistant/message (Message set)
	ItemTool       = "tool"       // tool/call paired with its tool/result (Tool set)
	ItemApproval   = "approval"   // approval/asked with its decision (Approval set)
	ItemCompaction = "compaction" // a compaction checkpoint or prune (Compaction set)
	ItemTurn       = "turn"       // turn/start or turn/end (Marker set)
	ItemMarker     = "marker"     // a quiet state change: todo, plan, permission, sandbox, model, title, command, retry… (Marker set)
)

// TimelineItem is one entry of a conversation. Exactly one of the payload pointers
// is set, according to Kind. Items that a compaction replaced keep their place in
// the timeline with Surface "shadowed" and ShadowedBy naming the replacing event.
type TimelineItem struct {
	Seq        int64       `json:"seq"`
	Type       string      `json:"type"` // the dsh event type, e.g. "tool/call"
	Kind       string      `json:"kind"` // one of the Item* kinds
	Time       time.Time   `json:"time"`
	Turn       *int64      `json:"turn"`
	Step       *int64      `json:"step"`
	Surface    string      `json:"surface"` // current | shadowed | log-only (a tool item: its result's)
	ShadowedBy *int64      `json:"shadowed_by,omitempty"`
	Inherited  bool        `json:"inherited,omitempty"` // copied from the parent: seq < the fork's seedLength
	Message    *Message    `json:"message,omitempty"`
	Tool       *ToolCall   `json:"tool,omitempty"`
	Approval   *Approval   `json:"approval,omitempty"`
	Compaction *Compaction `json:"compaction,omitempty"`
	Marker     *Marker     `json:"marker,omitempty"`
	// Synthetic is true for an item no event of the log is: the turn start the
	// archive shows before a prompt in a log that names no turns (OpenHands). It
	// has its prompt's seq, and its turn never ends.
	Synthetic bool `json:"synthetic,omitempty"`
}

// SessionRef names a related session (parent, fork or subagent).
type SessionRef struct {
	ID              string    `json:"id"`
	Title           string    `json:"title"`
	Origin          string    `json:"origin,omitempty"`
	DelegationDepth int64     `json:"delegation_depth"`
	CreatedAt       time.Time `json:"created_at"`
	Health          string    `json:"health"`
}

// Relations are the sessions linked to one session: the parent it was forked or
// delegated from (nil when it has none or the parent is not archived) and the
// sessions that name it as their parent, oldest first.
type Relations struct {
	ParentID string       `json:"parent_id,omitempty"` // as the header says, archived or not
	Parent   *SessionRef  `json:"parent"`
	Children []SessionRef `json:"children"`
}

// FileStatus is the stored verdict on one session log file, for the import view.
type FileStatus struct {
	Path         string    `json:"path"`
	SessionID    string    `json:"session_id"`
	Verdict      Verdict   `json:"verdict"`
	ErrorKind    string    `json:"error_kind,omitempty"`
	ErrorLine    int64     `json:"error_line,omitempty"`
	ErrorOffset  int64     `json:"error_offset,omitempty"`
	ErrorMessage string    `json:"error_message,omitempty"`
	Warnings     int64     `json:"warnings"`
	Records      int64     `json:"records"`
	Events       int64     `json:"events"`
	Size         int64     `json:"size"`
	Compressed   bool      `json:"compressed"`
	Gone         bool      `json:"gone"`
	Duplicate    bool      `json:"duplicate"`
	FirstSeen    time.Time `json:"first_seen"`
	LastImport   time.Time `json:"last_import"`
}
