package openhandsgen

import (
	"github.com/logbook/logbook/archive/openhands"
)

// Malformation is a kind of damage Generate can write.
type Malformation string

// The malformations. Each adds one extra, damaged event (or file) on top of
// the well-formed conversation, so the semantic Facts stay those of the
// clean events.
const (
	// Gap leaves one sequence number out (numbered layouts only).
	Gap Malformation = "gap"
	// Duplicate writes an earlier event again under a new sequence number
	// or line: the reader keeps the first.
	Duplicate Malformation = "duplicate"
	// Unparseable writes an event cut off in the middle, followed by others.
	Unparseable Malformation = "unparseable"
	// UnknownKind writes an event of a kind no release has.
	UnknownKind Malformation = "unknown-kind"
	// MissingID writes an event with no id.
	MissingID Malformation = "missing-id"
	// BadState writes base_state.json (or V0 metadata.json) as broken JSON.
	BadState Malformation = "bad-state"
	// NoState writes no base_state.json/meta.json/metadata.json at all.
	NoState Malformation = "no-state"
	// TornTail ends a JSONL file in the middle of a line.
	TornTail Malformation = "torn-tail"
)

// Applicable reports whether m can be written in layout l.
func Applicable(l openhands.Layout, m Malformation) bool {
	numbered := l == openhands.LayoutSDK || l == openhands.LayoutCLITrajectory || l == openhands.LayoutV0Session || l == openhands.LayoutZip
	perFile := numbered || l == openhands.LayoutAppA || l == openhands.LayoutAppB
	switch m {
	case Gap:
		return numbered
	case Duplicate:
		// App A and B name files by event id, so a second copy cannot exist.
		return l != openhands.LayoutAppA && l != openhands.LayoutAppB
	case Unparseable:
		return perFile || l == openhands.LayoutJSONL
	case UnknownKind, MissingID:
		return true
	case BadState, NoState:
		return l == openhands.LayoutSDK || l == openhands.LayoutV0Session
	case TornTail:
		return l == openhands.LayoutJSONL
	}
	return false
}

// Options describe one generated conversation.
type Options struct {
	// Seed makes the output deterministic.
	Seed uint64
	// Layout is the on-disk form.
	Layout openhands.Layout
	// Turns is the number of user turns (default 3).
	Turns int
	// Style overrides the layout's usual JSON style when set.
	Style *Style
	// Legacy writes 2025 shapes: ExecuteBash*/StrReplaceEditor* names and
	// observations with output/error instead of content/is_error.
	Legacy bool
	// Confirmation turns on confirmation mode: waiting_for_confirmation
	// states and some user rejections.
	Confirmation bool
	// Wrapped writes a V0 trajectory as {"trajectory": [...]}.
	Wrapped bool
	// Malformations to write; each must be Applicable to Layout.
	Malformations []Malformation
	// Extras adds parent_id to every V1 event and writes hook, ACP tool
	// call, interrupt and conversation error events.
	Extras bool
	// PadOutput adds this many bytes of tool output per observation, to
	// make large conversations for benchmarks.
	PadOutput int
}

// Facts is what Generate wrote, counted while writing.
type Facts struct {
	// Unit is the conversation as Discover should find it.
	Unit openhands.Unit
	// Events is the number of well-formed, distinct events: the records a
	// reader must return.
	Events int
	// Files lists the written files relative to the unit path (the file's
	// own name for single-file layouts).
	Files []string

	System, UserMessages, AgentMessages int
	Reasoning                           int
	ToolCalls                           int
	// Paired counts calls that got a result (observation, error or
	// rejection); Errors and Rejections count those kinds among them.
	Paired, Errors, Rejections int
	// Groups counts LLM replies that made two or more parallel calls.
	Groups      int
	Compactions int
	// Forgotten sums the forgotten event ids over all compactions.
	Forgotten int
	Approvals int
	States    int
	Tasks     int
	// ConversationErrors counts conversation-level errors.
	ConversationErrors int
	// Other counts events that fit no other list (pauses, unknown kinds).
	Other int

	// Title, Model and Cost are what the side files (or, without them,
	// the first user message) say.
	Title string
	Model string
	Cost  float64

	// Problems counts the problems a reader must report, by kind.
	Problems map[openhands.ProblemKind]int
	// Verdict is the verdict a reader must give.
	Verdict openhands.Verdict
}
