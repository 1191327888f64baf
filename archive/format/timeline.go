package format

// TimelineTypes say what each of a format's event types is to the timeline. An
// event of a type in none of the lists is a quiet marker (the format's Marker). The
// archive pages the timeline in SQL by these lists (merged over its formats, whose
// type names never meet), and links each item to its derived row by the ID of the
// view item its record gives.
type TimelineTypes struct {
	// Skipped are never items: request and stream plumbing.
	Skipped []string
	// Messages are shown as the message their record gave, by seq; ToolResults
	// among them are folded into the tool call they answer when a call wrote its row.
	Messages, ToolResults []string
	// ToolCalls are shown with their results.
	ToolCalls []string
	// Asked are approval requests, shown with their decision; Decided are the
	// decisions, folded into their request when it is archived.
	Asked, Decided []string
	// Compactions are the events of compaction brackets and prunes, shown once, at
	// the first event of each; CompactionParts (summaries, ends) are the ones folded
	// into that first event.
	Compactions, CompactionParts []string
	// Turns are turn boundaries, shown as markers of their own kind.
	Turns []string
	// PromptTurns is true for a format whose log names no turns: each prompt
	// (IsPrompt) starts the next one (its event is NextTurn), and the timeline
	// shows a turn start, made by the archive, before it.
	PromptTurns bool
}
