package openhands

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// maxDepth bounds how deep Discover walks below a root.
const maxDepth = 12

// sniffSize is how much of a candidate .json/.jsonl file Discover reads to
// tell an event file from any other JSON.
const sniffSize = 64 << 10

// DefaultRoots lists where OpenHands keeps conversations (doc §2, §5), given
// the home folder and an environment lookup (os.Getenv). Missing roots are
// fine: Discover skips them.
func DefaultRoots(home string, getenv func(string) string) []string {
	var roots []string
	add := func(p string) {
		if p != "" && filepath.IsAbs(p) {
			roots = append(roots, filepath.Clean(p))
		}
	}
	add(getenv("OPENHANDS_CONVERSATIONS_DIR"))
	if p := getenv("OPENHANDS_PERSISTENCE_DIR"); p != "" {
		add(filepath.Join(p, "conversations"))
	}
	add(getenv("OH_CONVERSATIONS_PATH"))
	add(getenv("OH_PERSISTENCE_DIR"))
	add(getenv("FILE_STORE_PATH"))
	if home != "" {
		// ~/.openhands holds conversations/ (CLI), agent-canvas/conversations,
		// [<uid>/]v1_conversations (app B), v1/events (app A) and sessions (V0).
		add(filepath.Join(home, ".openhands"))
	}
	// Exported conversation_<id>.zip files land wherever the browser saves
	// them; scanning Downloads is the caller's choice, so it is not a default.
	return dedupeRoots(roots)
}

// dedupeRoots drops repeated roots and roots inside another root.
func dedupeRoots(roots []string) []string {
	sort.Strings(roots)
	var out []string
	for _, r := range roots {
		if n := len(out); n > 0 && (r == out[n-1] || strings.HasPrefix(r, out[n-1]+string(filepath.Separator))) {
			continue
		}
		out = append(out, r)
	}
	return out
}

// Discover walks roots and returns every conversation found, sorted by path.
// It does not follow symlinks, and it does walk dot-folders (.openhands,
// .pr). Missing or unreadable folders are skipped; only a cancelled context
// is an error.
func Discover(ctx context.Context, roots []string) ([]Unit, error) {
	d := &discoverer{ctx: ctx, seen: map[string]bool{}}
	for _, root := range dedupeRoots(append([]string(nil), roots...)) {
		fi, err := os.Lstat(root)
		switch {
		case err != nil:
			continue
		case fi.Mode().IsRegular():
			d.file(filepath.Dir(root), fi.Name())
		case fi.IsDir():
			if err := d.walk(root, 0); err != nil {
				return nil, err
			}
		}
	}
	sort.Slice(d.units, func(i, j int) bool { return d.units[i].Path < d.units[j].Path })
	return d.units, nil
}

type discoverer struct {
	ctx   context.Context
	units []Unit
	seen  map[string]bool
}

func (d *discoverer) add(u Unit) {
	if !d.seen[u.Path] {
		d.seen[u.Path] = true
		d.units = append(d.units, u)
	}
}

func (d *discoverer) walk(dir string, depth int) error {
	if err := d.ctx.Err(); err != nil {
		return err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	if layout, ok := classify(dir, entries); ok {
		d.add(Unit{Path: dir, Layout: layout, SessionID: sessionID(dir, layout)})
		return nil
	}
	for _, e := range entries {
		switch {
		case e.Type().IsRegular():
			d.file(dir, e.Name())
		case e.IsDir() && depth < maxDepth:
			if err := d.walk(filepath.Join(dir, e.Name()), depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// classify decides whether a folder is a conversation of a folder layout.
func classify(dir string, entries []os.DirEntry) (Layout, bool) {
	has := map[string]os.DirEntry{}
	for _, e := range entries {
		has[e.Name()] = e
	}
	if e, ok := has[eventsDir]; ok && e.IsDir() {
		_, v0 := has[metadataFile]
		if l, ok := eventsLayout(filepath.Join(dir, eventsDir), v0); ok {
			return l, true
		}
		if v0 {
			return LayoutV0Session, true
		}
	}
	if _, ok := has[baseStateFile]; ok {
		return LayoutSDK, true
	}
	// One file decides, in this order: a CLI trajectory event, an app A file, an
	// app B file. An app B name costs a read, so it is sniffed only while
	// nothing has decided yet.
	appA, appB := false, false
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		switch n := e.Name(); {
		case sdkEventName.MatchString(n):
			return LayoutCLITrajectory, true
		case appAName.MatchString(n):
			appA = true
		case !appA && !appB && appBName.MatchString(n) && isEventObject(sniff(filepath.Join(dir, n))):
			// A V0 trajectory may be named <hex>.json too; app B files
			// hold one event object each, never an array or a wrapper.
			appB = true
		}
	}
	switch {
	case appA:
		return LayoutAppA, true
	case appB:
		return LayoutAppB, true
	}
	return "", false
}

// eventsLayout tells an events/ folder's layout by the first event file name
// it lists: it reads the folder a batch at a time and stops there, so a
// conversation of thousands of events is not listed whole just to be
// recognised (the read lists it once, Changed once). A V0 name decides at
// once; an SDK name does unless the folder's conversation has a V0
// metadata.json (v0), when the rest is listed for a V0 name, which sorts first.
func eventsLayout(events string, v0 bool) (Layout, bool) {
	f, err := os.Open(events)
	if err != nil {
		return "", false
	}
	defer f.Close()
	sdk := false
	for {
		batch, err := f.ReadDir(256)
		for _, e := range batch {
			switch n := e.Name(); {
			case v0EventName.MatchString(n):
				return LayoutV0Session, true
			case !sdk && sdkEventName.MatchString(n):
				if !v0 {
					return LayoutSDK, true
				}
				sdk = true
			}
		}
		if err != nil || len(batch) == 0 {
			return LayoutSDK, sdk
		}
	}
}

// folderID is a folder conversation's id: its name, or its parent's for the
// 2025 agent-server's extra event_service/ level, normalised when a UUID.
func folderID(dir string) string {
	name := filepath.Base(dir)
	if name == "event_service" {
		name = filepath.Base(filepath.Dir(dir))
	}
	return NormalizeID(name)
}

// sessionID is a folder conversation's id: the folder name when it is a
// UUID, else the id its side file gives (fixtures and tests name folders
// freely), else the folder name as is.
func sessionID(dir string, l Layout) string {
	id := folderID(dir)
	if NormalizeID(id) != id || len(id) == 36 {
		return id
	}
	side, key := "", ""
	switch l {
	case LayoutSDK:
		side, key = baseStateFile, "id"
	case LayoutV0Session:
		side, key = metadataFile, "conversation_id"
	default:
		return id
	}
	data, _, err := readRegular(filepath.Join(dir, side), DefaultMaxFileSize)
	if err != nil {
		return id
	}
	var m map[string]json.RawMessage
	var s string
	if json.Unmarshal(data, &m) != nil || json.Unmarshal(m[key], &s) != nil || s == "" {
		return id
	}
	return NormalizeID(s)
}

// file checks a single file for the single-file layouts.
func (d *discoverer) file(dir, name string) {
	p := filepath.Join(dir, name)
	switch {
	case strings.HasPrefix(name, "conversation_") && strings.HasSuffix(name, ".zip"):
		d.add(Unit{Path: p, Layout: LayoutZip, SessionID: NormalizeID(strings.TrimSuffix(strings.TrimPrefix(name, "conversation_"), ".zip"))})
	case strings.HasSuffix(name, ".jsonl"):
		head, _, _ := bytes.Cut(sniff(p), []byte("\n"))
		if looksLikeEvent(string(bytes.TrimSpace(head))) {
			d.add(Unit{Path: p, Layout: LayoutJSONL, SessionID: fileID(p, ".jsonl")})
		}
	case strings.HasSuffix(name, ".json") && name != baseStateFile && name != metaFile && name != metadataFile:
		if isTrajectory(sniff(p)) {
			d.add(Unit{Path: p, Layout: LayoutV0Trajectory, SessionID: fileID(p, ".json")})
		}
	}
}

// fileID is a single file's id: its stem, or its folder's name when the
// stem is the generic "events".
func fileID(p, ext string) string {
	stem := strings.TrimSuffix(filepath.Base(p), ext)
	if stem == "events" {
		stem = filepath.Base(filepath.Dir(p))
	}
	return NormalizeID(stem)
}

func sniff(p string) []byte {
	f, _, err := openRegular(p)
	if err != nil {
		return nil
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, sniffSize))
	return b
}

// looksLikeEvent reports whether a JSON line names an event kind or a V0
// action/observation.
func looksLikeEvent(s string) bool {
	return strings.HasPrefix(s, "{") && (strings.Contains(s, `"kind"`) || strings.Contains(s, `"action"`) || strings.Contains(s, `"observation"`))
}

// isEventObject reports whether JSON text starts an object that is not a
// {"trajectory": [...]} wrapper.
func isEventObject(head []byte) bool {
	t := bytes.TrimLeft(head, " \t\r\n")
	return len(t) > 0 && t[0] == '{' && !isTrajectory(t)
}

// isTrajectory reports whether the start of a JSON file is an array of events
// or a {"trajectory": [...]} wrapper.
func isTrajectory(head []byte) bool {
	t := bytes.TrimLeft(head, " \t\r\n")
	if len(t) == 0 {
		return false
	}
	hasEvent := bytes.Contains(t, []byte(`"action"`)) || bytes.Contains(t, []byte(`"observation"`)) || bytes.Contains(t, []byte(`"kind"`))
	switch t[0] {
	case '[':
		rest := bytes.TrimLeft(t[1:], " \t\r\n")
		return len(rest) > 0 && rest[0] == '{' && hasEvent
	case '{':
		return bytes.Contains(t, []byte(`"trajectory"`)) && hasEvent
	}
	return false
}

// FoldersOf names the folders that may be the conversation a file at path is
// part of, in the order an import's walk meets them: the folder above its
// folder (an SDK or V0 conversation, whose events/ holds its event files),
// then its folder (a CLI trajectory or an app-server folder, and the side
// files of a conversation). None for a file that is never part of a folder
// conversation: a dot file (.eventlog.lock, an editor's temporary file), or
// one whose extension is not .json (a log, a pickle; app-server layout A's
// event files have none).
func FoldersOf(path string) []string {
	name := filepath.Base(path)
	if strings.HasPrefix(name, ".") {
		return nil
	}
	if ext := filepath.Ext(name); ext != ".json" && ext != "" {
		return nil
	}
	dir := filepath.Dir(path)
	return []string{filepath.Dir(dir), dir}
}
