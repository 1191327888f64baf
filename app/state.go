package app

import "github.com/logbook/logbook/archive"

// SessionState returns a session's working state just after event seq (todo list,
// plan mode, goal, permissions, sandbox, approval policy, model, title and its own
// scheduled prompts); a negative seq means the end of the session.
func (a *App) SessionState(id string, seq int64) (archive.SessionState, error) {
	if id == "" {
		return archive.SessionState{}, invalid("a session id is required")
	}
	return a.deps.Archive.SessionState(a.ctx, id, seq)
}
