package format

// Marker describes a quiet state change in a conversation.
type Marker struct {
	Label  string        `json:"label"`            // short text, e.g. "sandbox: workspace-write"
	Detail string        `json:"detail,omitempty"` // longer text (goal, command line, retry error…)
	Todos  []TodoItem    `json:"todos,omitempty"`  // a todo list as written
	Status string        `json:"status,omitempty"` // turn/end status, command exit, …
	Fields []MarkerField `json:"fields,omitempty"`
}

// MarkerField is one labelled value of a marker, shown in its details.
type MarkerField struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// TodoItem is one entry of a todo list.
type TodoItem struct {
	Content string `json:"content"`
	Status  string `json:"status"` // pending | in_progress | completed | …, as written
}

// MarkerInfo is what a marker may need beyond the event's own bytes: the archive's
// row of the event.
type MarkerInfo struct {
	Seq        int64
	Turn       *int64 // the turn the archive placed the event in
	SeedLength *int64 // the session's inherited prefix length, if seeded
}
