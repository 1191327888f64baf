package openhands

import (
	"encoding/json"
)

// An import reads each event once: decodeRecord decodes its header (what
// DecodeEvent gives) and every field Project reads in the same pass, and keeps
// the fields on the record for Project. Most events (V1, content as lists)
// decode into fastEvent in one json.Unmarshal, with their observation, message
// and content lists in place: no json.RawMessage to decode again, and no
// custom unmarshaler that validates its bytes a second time. Any other shape
// (V0, a content given as a string or one object, a field of a type a release
// changed) does not fit it, and takes the general path, DecodeEvent then full,
// which gives the same values for what fits both.

// fastEvent is a V1 event as one pass decodes it (see above).
type fastEvent struct {
	ID        json.RawMessage `json:"id"`
	Kind      string          `json:"kind"`
	Timestamp string          `json:"timestamp"`
	Source    string          `json:"source"`
	ParentID  string          `json:"parent_id"`
	common
	LLMMessage   *fastMessage     `json:"llm_message"`
	SystemPrompt *block           `json:"system_prompt"`
	Thought      []block          `json:"thought"`
	Action       json.RawMessage  `json:"action"`
	Observation  *fastObservation `json:"observation"`
}

// fastMessage is llmMessage whose content is a list.
type fastMessage struct {
	Role    string  `json:"role"`
	Content []block `json:"content"`
	reasoningFields
}

// fastObservation is observationJSON whose content is a list.
type fastObservation struct {
	observationFields
	Content []block `json:"content"`
}

// undecodable marks a record whose body does not decode (Project keeps it
// opaque).
var undecodable = &full{}

// decodeFast decodes a V1 event in one pass; false when raw does not fit
// fastEvent, and the general path must decode it.
func decodeFast(raw []byte) (Event, *full, bool) {
	var fe fastEvent
	if json.Unmarshal(raw, &fe) != nil || fe.Kind == "" {
		return Event{}, nil, false
	}
	f := &full{common: fe.common, Thought: blocks(fe.Thought), Action: fe.Action}
	ev := Event{Dialect: DialectV1, ID: scalar(fe.ID), Kind: fe.Kind, Timestamp: fe.Timestamp, Source: fe.Source, ParentID: fe.ParentID}
	switch {
	case len(fe.Action) == 0 || string(fe.Action) == "null":
		f.act = &actionFields{}
	case fe.Action[0] == '{':
		var a actionFields
		if json.Unmarshal(fe.Action, &a) != nil {
			return Event{}, nil, false
		}
		ev.Action, f.act = a.Kind, &a
	default:
		return Event{}, nil, false // DecodeEvent's general path reads it
	}
	if m := fe.LLMMessage; m != nil {
		f.LLMMessage = &llmMessage{Role: m.Role, Content: blocks(m.Content), reasoningFields: m.reasoningFields}
	}
	if fe.SystemPrompt != nil {
		f.SystemPrompt = blocks{*fe.SystemPrompt}
	}
	f.obs = &observationJSON{}
	if o := fe.Observation; o != nil {
		ev.Observation = o.Kind
		*f.obs = observationJSON{observationFields: o.observationFields, Content: blocks(o.Content)}
	}
	ev.Known = knownKinds[ev.Kind] && knownAction(ev.Action) && knownObservation(ev.Observation)
	return ev, f, true
}

// decodeEvent decodes an event's header and body: in one pass when it fits
// fastEvent, else as DecodeEvent and Project do. The body is undecodable when
// only the header decodes.
func decodeEvent(raw []byte) (Event, *full, error) {
	if ev, f, ok := decodeFast(raw); ok {
		return ev, f, nil
	}
	ev, err := DecodeEvent(raw)
	if err != nil {
		return Event{}, nil, err
	}
	f := &full{}
	if json.Unmarshal(raw, f) != nil {
		f = undecodable
	}
	return ev, f, nil
}

// decoded is the record's body: as the read decoded it, else decoded now. False
// when it does not decode.
func (r Record) decoded() (*full, bool) {
	switch r.body {
	case nil:
		f := &full{}
		if json.Unmarshal(r.Raw, f) != nil {
			return nil, false
		}
		return f, true
	case undecodable:
		return nil, false
	}
	return r.body, true
}
