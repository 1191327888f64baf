package format

import "time"

// EventKey is what an events API (the OpenHands-compatible one, archive/ohevents.go)
// filters, sorts and fetches an event by.
type EventKey struct {
	// ID is the event's own id as written.
	ID string
	// Time is the event's time as TimeKey gives it, "" when it has none.
	Time string
	// File is the source file whose bytes are exactly the event's (a file of
	// one event), "" when the record's own bytes are (a line of a JSONL file).
	File string
}

// timeKeyLayout is fixed width, so that keys sort as the times they stand for.
const timeKeyLayout = "2006-01-02T15:04:05.000000000"

// TimeKey is t as an EventKey time: UTC, to the nanosecond, fixed width, so that
// SQLite compares and sorts the keys as strings in time order.
func TimeKey(t time.Time) string { return t.UTC().Format(timeKeyLayout) }
