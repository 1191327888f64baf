package scheduler

import (
	"context"
	"path/filepath"
	"strings"
)

// Where a session came from decides whether its scheduled prompts may run an action
// by themselves (see Options.LocalRoots).

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
		}
		out = append(out, filepath.Clean(r))
	}
	return out
}

// local reports whether the session was archived from a file under one of this
// machine's own agent roots.
func (s *Scheduler) local(ctx context.Context, sessionID string) bool {
	files, err := s.store.SessionFiles(ctx, sessionID)
	if err != nil {
		s.Logger.Warn("cannot tell where a session came from; treating it as not local", "session", sessionID, "err", err)
		return false
	}
	for _, f := range files {
		p := f.Path
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		for _, root := range s.localRoots {
			if root == "/" || strings.HasPrefix(p, root+string(filepath.Separator)) {
				return true
			}
		}
	}
	return false
}
