package archive

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// SourceOf is the session source a changed file belongs to, for live follow: the
// file itself when a format takes it as a source (a dsh log, an OpenHands
// events.jsonl, zip or trajectory), else the folder holding it, or the folder above,
// when a format takes that folder as a source (an OpenHands conversation: its
// events/event-NNNNN-<id>.json, a V0 session's events/N.json, its base_state.json or
// meta.json, an app-server folder's event files). It asks the formats, as an import's
// walk does (the outer folder first, as the walk meets it), so following knows no
// format's file names; false means the file is part of no session (yet: a
// conversation folder's first event makes it one).
func SourceOf(path string) (string, bool) {
	fi, err := os.Lstat(path)
	if err != nil {
		return "", false
	}
	if sourceFormat(path, fs.FileInfoToDirEntry(fi)) != "" {
		return path, true
	}
	if fi.IsDir() || !maybeFolderPart(fi.Name()) {
		return "", false
	}
	// The outer folder first, as an import's walk meets it first: the events/
	// folder of an SDK conversation is a folder of event files too.
	dir := filepath.Dir(path)
	for _, d := range []string{filepath.Dir(dir), dir} {
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

// maybeFolderPart reports whether a file's name may be part of a folder source:
// JSON files, and the extension-less event files of OpenHands' app-server layout A.
// Other files (logs, pickles, editors' swap files) never make their folder a
// session, so no folder is listed for them.
func maybeFolderPart(name string) bool {
	if strings.HasPrefix(name, ".") { // .eventlog.lock, temporary files
		return false
	}
	ext := filepath.Ext(name)
	return ext == ".json" || ext == ""
}
