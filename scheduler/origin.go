package scheduler

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
)

// Where a session came from decides whether its scheduled prompts may run an action
// by themselves (see Options.LocalRoots), and whether they may run at all (see
// Options.DemoRoots).

// ErrDemo is returned when a schedule of a demo session is fired: the demo
// archive's scheduled prompts are shown, never fired.
var ErrDemo = errors.New("scheduler: a demo session's scheduled prompts never fire")

// cleanRoots makes roots absolute and resolves their links, so a session path is
// compared with where the roots really are.
func cleanRoots(roots []string) []string {
	out := make([]string, 0, len(roots))
	for _, r := range roots {
		if abs, err := filepath.Abs(r); err == nil {
			r = abs
		}
		if real, err := filepath.EvalSymlinks(r); err == nil {
			r = real
		} else if real, err := filepath.EvalSymlinks(filepath.Dir(r)); err == nil {
			r = filepath.Join(real, filepath.Base(r)) // a root not made yet (the demo's)
		}
		out = append(out, filepath.Clean(r))
	}
	return out
}

// local reports whether the session was archived from a file under one of this
// machine's own agent roots.
func (s *Scheduler) local(ctx context.Context, sessionID string) bool {
	ok, err := s.under(ctx, sessionID, s.localRoots, false)
	if err != nil {
		s.Logger.Warn("cannot tell where a session came from; treating it as not local", "session", sessionID, "err", err)
	}
	return ok
}

// Demo reports whether the session belongs to the demo archive (it was archived
// from a file under one of Options.DemoRoots): its schedules are never armed or
// fired. A session whose origin cannot be read counts as a demo, so it never fires.
func (s *Scheduler) Demo(ctx context.Context, sessionID string) bool {
	if len(s.demoRoots) == 0 {
		return false
	}
	ok, err := s.under(ctx, sessionID, s.demoRoots, true)
	if err != nil {
		s.Logger.Warn("cannot tell whether a session is a demo; treating it as one", "session", sessionID, "err", err)
		return true
	}
	return ok
}

// under reports whether one of the session's files lies under one of roots, where
// the file really is (links resolved) or, when lenient, as it was imported.
func (s *Scheduler) under(ctx context.Context, sessionID string, roots []string, lenient bool) (bool, error) {
	files, err := s.store.SessionFiles(ctx, sessionID)
	if err != nil {
		return false, err
	}
	for _, f := range files {
		p := f.Path
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		for _, root := range roots {
			if root == "/" || strings.HasPrefix(p, root+string(filepath.Separator)) ||
				(lenient && strings.HasPrefix(f.Path, root+string(filepath.Separator))) {
				return true, nil
			}
		}
	}
	return false, nil
}
