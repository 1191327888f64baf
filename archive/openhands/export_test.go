package openhands

import (
	"encoding/json"
	"reflect"
)

// OnePass reports, for one event's bytes, whether the one-pass decoder read it
// (fast) and whether what the read gives (header, and the projection of the
// body) is the same as DecodeEvent and a decode of the body on its own give.
func OnePass(raw []byte) (fast, same bool) {
	_, _, fast = decodeFast(raw)
	ev, body, err := decodeEvent(raw)
	ev2, err2 := DecodeEvent(raw)
	if (err == nil) != (err2 == nil) {
		return fast, false
	}
	if err != nil {
		return fast, true
	}
	var f full
	alone := Record{Raw: raw, Event: ev2}
	if json.Unmarshal(raw, &f) == nil {
		alone.body = &f
	} else {
		alone.body = undecodable
	}
	read := Record{Raw: raw, Event: ev, body: body}
	return fast, reflect.DeepEqual(ev, ev2) && reflect.DeepEqual(Project([]Record{read}), Project([]Record{alone}))
}
