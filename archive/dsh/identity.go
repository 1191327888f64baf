package dsh

import (
	"fmt"
	"path/filepath"
)

// IdentityWarnings compares the folder names dsh derives from the header
// (<project key>/<encoded session id>/) with the file's location, when the file sits
// in a dsh-shaped root; a file elsewhere (renamed, copied out) is not checked.
func IdentityWarnings(path string, h *Header) []Problem {
	dir := filepath.Dir(path)
	project := filepath.Base(filepath.Dir(dir))
	if !(len(project) > 4 && project[:2] == "--") && project != NoCwdDir {
		return nil
	}
	var out []Problem
	if seg, err := EncodeSegment(h.ID); err == nil && seg != filepath.Base(dir) {
		out = append(out, Problem{Kind: KindIdentityMismatch, Line: 1, Offset: 0,
			Message: fmt.Sprintf("header id %q belongs in folder %q, but the file is in %q", h.ID, seg, filepath.Base(dir))})
	}
	want := NoCwdDir
	if h.HasCwd {
		want = ProjectKey(h.Cwd)
	}
	if want != project {
		out = append(out, Problem{Kind: KindIdentityMismatch, Line: 1, Offset: 0,
			Message: fmt.Sprintf("header cwd %q belongs in project folder %q, but the file is in %q", h.Cwd, want, project)})
	}
	return out
}
