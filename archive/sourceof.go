package archive

import (
	"io/fs"
	"os"
	"path/filepath"

	"github.com/logbook/logbook/archive/openhands"
)

// SourceOf is the session source a changed file belongs to, for live follow: the
// file itself when a format takes it as a source (a dsh log, an OpenHands
// events.jsonl, zip or trajectory), else the folder holding it, or the folder above,
// when a format takes that folder as a source (an OpenHands conversation: its
// events/event-NNNNN-<id>.json, a V0 session's events/N.json, its base_state.json or
// meta.json, an app-server folder's event files). It asks the formats, as an import's
// walk does, about the file and then about the folders openhands.FoldersOf names for
// it, so following knows no format's file names; false means the file is part of no
// session (yet: a conversation folder's first event makes it one).
func SourceOf(path string) (string, bool) {
	fi, err := os.Lstat(path)
	if err != nil {
		return "", false
	}
	if sourceFormat(path, fs.FileInfoToDirEntry(fi)) != "" {
		return path, true
	}
	if fi.IsDir() {
		return "", false
	}
	for _, d := range openhands.FoldersOf(path) {
		di, err := os.Stat(d)
		if err != nil || !di.IsDir() || d == filepath.Dir(d) {
			continue
		}
		if sourceFormat(d, fs.FileInfoToDirEntry(di)) != "" {
			return d, true
		}
	}
	return "", false
}
