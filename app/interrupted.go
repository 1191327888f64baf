package app

import (
	"github.com/logbook/logbook/archive/dsh"
)

// InterruptedSessions lists the sessions whose log ends mid-activity: the last turn
// (or a step or tool call in it) never ended, as when the agent was stopped or
// died. The importer reports that as an interrupted-tail warning at the log's last
// event; a warning of that kind earlier in a log (a lifetime that was resumed) does
// not count. The sessions list marks these rows "interrupted".
func (a *App) InterruptedSessions() ([]string, error) {
	files, err := a.deps.Archive.Files(a.ctx)
	if err != nil {
		return nil, err
	}
	out := []string{}
	seen := map[string]bool{}
	for _, f := range files {
		if f.Warnings == 0 || f.SessionID == "" || f.Duplicate || seen[f.SessionID] {
			continue
		}
		ps, err := a.deps.Archive.FileProblems(a.ctx, f.Path)
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			if p.Kind == dsh.KindInterruptedTail && p.Line >= f.Records {
				seen[f.SessionID] = true
				out = append(out, f.SessionID)
				break
			}
		}
	}
	return out, nil
}
