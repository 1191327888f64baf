package dsh

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/logbook/logbook/archive/format"
)

// V0 artifact names inside a dsh session folder.
const (
	plainName      = "session.jsonl"
	compressedName = "session.jsonl.zstd"
)

// Format is dsh V0 as an archive format (format.Format): a session source is one
// session.jsonl or session.jsonl.zstd file, under
// <root>/<project key>/<session id>/.
type Format struct{}

var _ format.Format = Format{}

// Name is "dsh".
func (Format) Name() string { return "dsh" }

// Roots are $DSH_HOME/sessions (a blank DSH_HOME counts as unset) and
// ~/.dsh/sessions.
func (Format) Roots() []string {
	var roots []string
	if h := strings.TrimSpace(os.Getenv("DSH_HOME")); h != "" {
		roots = append(roots, filepath.Join(h, "sessions"))
	}
	if home, err := os.UserHomeDir(); err == nil {
		roots = append(roots, filepath.Join(home, ".dsh", "sessions"))
	}
	return roots
}

// IsSource reports whether e is a V0 session file. Later formats (session.vN.jsonl*)
// and other files in a session folder are not V0 and are skipped.
func (Format) IsSource(_ string, e fs.DirEntry) bool {
	return !e.IsDir() && (e.Name() == plainName || e.Name() == compressedName)
}

// StateTypes are the event types that set a part of a session's working state, each
// replacing what the previous event of its type said (peers.md §9: the session-state
// timeline no viewer folds) (format.Format).
func (Format) StateTypes() []string {
	return []string{
		"todo/write", "plan/mode", "goal/change", "permission/preset", "sandbox/mode",
		"approval/policy", "model/selection", "agent-preset/selected", "session/title",
	}
}

// ScheduleFold folds archived schedule/change lines (format.Format).
func (Format) ScheduleFold() format.ScheduleFold { return &lineFold{fold: NewScheduleFold()} }

// lineFold is a ScheduleFold fed archived lines.
type lineFold struct {
	ld   LineDecoder
	fold *ScheduleFold
}

func (f *lineFold) Apply(line int64, raw []byte) *Problem {
	rec, p := f.ld.Decode(raw, line)
	if p != nil || len(rec.Events) == 0 {
		return nil // the import reported it; the fold skips what it cannot read
	}
	if p := f.fold.Apply(&rec.Events[0]); p != nil {
		p.Line = line
		return p
	}
	return nil
}

func (f *lineFold) Schedules() []Schedule { return f.fold.Schedules() }

// Record projects an archived line again (format.Format).
func (Format) Record(line int64, raw []byte) (format.Record, bool) {
	var ld LineDecoder
	rec, p := ld.Decode(raw, line)
	if p != nil || len(rec.Events) == 0 {
		return format.Record{}, false
	}
	out, _ := Project(rec)
	return out, true
}

// Timeline says what dsh's event types are to the timeline (format.Format).
func (Format) Timeline() format.TimelineTypes {
	return format.TimelineTypes{
		Skipped: []string{
			"step/start", "step/end", "assistant/chunk",
			"request/header", "request/header-delta", "request/context",
			"session-log-deepseek/delivery-accepted", "session/title-llm-request", "web/deepseek-search-llm-request",
		},
		Messages:        []string{"user/message", "assistant/message", "tool/result"},
		ToolResults:     []string{"tool/result"},
		ToolCalls:       []string{"tool/call"},
		Asked:           []string{"approval/asked"},
		Decided:         []string{"approval/decided"},
		Compactions:     []string{"compaction/start", "compaction/summary", "compaction/end", "compaction/prune"},
		CompactionParts: []string{"compaction/summary", "compaction/end"},
		Turns:           []string{"turn/start", "turn/end"},
	}
}
