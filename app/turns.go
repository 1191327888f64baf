package app

import "github.com/logbook/logbook/archive"

// SessionTurns returns a session's turns in order, each with its first prompt
// line, time span, tool calls, errors and approvals: the turn navigator and the
// overview of a long run draw the whole session from it.
func (a *App) SessionTurns(id string) ([]archive.TurnSummary, error) {
	if id == "" {
		return nil, invalid("a session id is required")
	}
	return a.deps.Archive.Turns(a.ctx, id)
}
