package app

// InterruptedSessions lists the sessions whose log ends mid-activity: the last turn
// (or a step or tool call in it) never ended, as when the agent was stopped or
// died. The importer reports that as an interrupted-tail warning at the log's last
// event; a warning of that kind earlier in a log (a lifetime that was resumed) does
// not count. The sessions list marks these rows "interrupted".
func (a *App) InterruptedSessions() ([]string, error) {
	return a.deps.Archive.InterruptedSessions(a.ctx)
}
