package format

// Record is one record of a session source as its format read it: where it is, its
// bytes as written, and what the archive's views derive from it. The store keeps
// Raw byte for byte (an export gives it back) and writes the rest to its views.
type Record struct {
	// Line is the record's 1-based position in the source's logical stream (a
	// line of a JSONL file; for a folder source, its place in the folder's order).
	Line int64
	// Raw is the record as written, without its line end. The archive frames the
	// records of a session by newlines, so Raw must not hold one (the import of a
	// source fails on such a record): a format whose records span lines
	// (pretty-printed JSON) must keep each as one line or keep the source's bytes
	// another way.
	Raw []byte
	// FirstSeq and LastSeq are the sequence numbers of the first and last logical
	// events it holds, and Events how many it holds.
	FirstSeq, LastSeq, Events int64
	// FirstTime is the time of its first event, LastTime the latest time of all its
	// events (Unix ms).
	FirstTime, LastTime int64
	// Event is the event the views index, or nil for a record only the log keeps
	// (a stream of token deltas the format assembles elsewhere).
	Event *Event
	// Items are what the views derive from Event, in the order they apply.
	Items []Item
}

// Event is the archive's row of one event: what the timeline pages through and
// search results point at.
type Event struct {
	Seq  int64
	Time int64  // Unix ms
	Type string // the format's own name for the kind of event
	// Turn and Step are what the event's data says (nil when it says nothing).
	// NamesTurn is true when its data has a turn member at all (even null): an
	// event that names none belongs to the open turn, between TurnStarts and TurnEnds.
	Turn, Step           *int64
	NamesTurn            bool
	TurnStarts, TurnEnds bool
	Surface              string // current (part of the conversation the model sees) or log-only
	SourceSeqs           string // the events it was built from, encoded; "" when it names none
	HasSourceSeqs        bool
	// Key identifies the event for an events API (OpenHands'); nil for a format
	// whose events are not served that way.
	Key *EventKey
	// NextTurn is true when the event starts the turn after the last one the
	// session started, in a log that names no turns (an OpenHands prompt, see
	// IsPrompt): the archive numbers it, and the events after it belong to it.
	NextTurn bool
}
