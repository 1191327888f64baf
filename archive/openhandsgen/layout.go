package openhandsgen

import (
	"archive/zip"
	"bytes"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/logbook/logbook/archive/openhands"
)

// writer lays a generated conversation out on disk.
type writer struct {
	g       *gen
	root    string
	convID  string
	entries []entry
	style   Style
	dir     string // the unit folder, or the folder of the single file
}

func (w *writer) has(m Malformation) bool {
	for _, x := range w.g.opt.Malformations {
		if x == m {
			return true
		}
	}
	return false
}

func (w *writer) file(name string, data []byte) error {
	p := filepath.Join(w.dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		return err
	}
	w.g.f.Files = append(w.g.f.Files, name)
	return nil
}

func (w *writer) write() error {
	f, l := w.g.f, w.g.opt.Layout
	id, hx := w.convID, hex(w.convID)
	f.Unit = openhands.Unit{Layout: l, SessionID: id}
	// Only side files name the model; events do not.
	sided := l == openhands.LayoutSDK || l == openhands.LayoutV0Session
	if !(sided && !w.has(NoState) && !w.has(BadState)) && l != openhands.LayoutZip {
		f.Model = ""
	}
	switch l {
	case openhands.LayoutSDK:
		w.dir = filepath.Join(w.root, hx)
		if w.g.opt.Legacy {
			w.dir = filepath.Join(w.dir, "event_service")
		}
		return w.folder(w.sdkSides, func(seq int, e entry) string {
			return fmt.Sprintf("events/event-%05d-%s.json", seq, e.ev.id)
		})
	case openhands.LayoutCLITrajectory:
		w.dir = filepath.Join(w.root, fmt.Sprintf("traj-%d", w.g.opt.Seed))
		f.Unit.SessionID = filepath.Base(w.dir)
		return w.folder(nil, func(seq int, e entry) string { return fmt.Sprintf("event-%05d-%s.json", seq, e.ev.id) })
	case openhands.LayoutV0Session:
		w.dir = filepath.Join(w.root, "sessions", hx)
		return w.folder(w.v0Sides, func(seq int, _ entry) string { return fmt.Sprintf("events/%d.json", seq) })
	case openhands.LayoutAppA:
		w.dir = filepath.Join(w.root, "v1", "events", id)
		return w.folder(nil, func(_ int, e entry) string {
			return fmt.Sprintf("%s_%s_%s", e.ev.ts.Format("20060102150405"), kindOf(e), hex(e.ev.id))
		})
	case openhands.LayoutAppB:
		w.dir = filepath.Join(w.root, "v1_conversations", hx)
		return w.folder(nil, func(_ int, e entry) string { return hex(e.ev.id) + ".json" })
	case openhands.LayoutJSONL:
		w.dir = filepath.Join(w.root, hx)
		f.Unit.Path = filepath.Join(w.dir, "events.jsonl")
		return w.jsonl()
	case openhands.LayoutZip:
		w.dir = w.root
		f.Unit.Path = filepath.Join(w.dir, "conversation_"+hx+".zip")
		return w.zip(filepath.Base(f.Unit.Path))
	case openhands.LayoutV0Trajectory:
		w.dir = w.root
		f.Unit.Path = filepath.Join(w.dir, hx+".json")
		return w.array(filepath.Base(f.Unit.Path))
	}
	return fmt.Errorf("openhandsgen: unknown layout %q", l)
}

func kindOf(e entry) string {
	if k, ok := e.ev.o.get("kind").(string); ok {
		return k
	}
	return "MessageEvent"
}

// folder writes side files and one file per entry, numbered by position.
func (w *writer) folder(sides func() error, name func(int, entry) string) error {
	w.g.f.Unit.Path = w.dir
	if sides != nil && !w.has(NoState) {
		if err := sides(); err != nil {
			return err
		}
	}
	for seq, e := range w.entries {
		if e.hole {
			continue
		}
		if err := w.file(name(seq, e), e.data); err != nil {
			return err
		}
	}
	return nil
}

// stateBytes encodes a side file, or breaks it for BadState.
func (w *writer) stateBytes(o obj) []byte {
	b := encode(o, w.style)
	if w.has(BadState) {
		return b[:len(b)/3]
	}
	return b
}

func (w *writer) first() string { return stamp(w.g.events[0].ts) }
func (w *writer) last() string  { return stamp(w.g.events[len(w.g.events)-1].ts) }

func (w *writer) sdkSides() error {
	f := w.g.f
	status := "execution_status"
	if w.g.opt.Legacy {
		status = "agent_status"
	}
	const stateCost = 1.5
	state := obj{{"id", w.convID}, {"agent", obj{{"kind", "Agent"}, {"llm", obj{{"model", f.Model}, {"api_key", "**********"}}}}},
		{status, "finished"}, {"stats", obj{{"usage_to_metrics", obj{{"agent", obj{{"model_name", f.Model}, {"accumulated_cost", stateCost}}}}}}},
		{"tags", obj{{"origin", "openhandsgen"}}}}
	if err := w.file("base_state.json", w.stateBytes(state)); err != nil {
		return err
	}
	if !w.has(BadState) {
		f.Cost = max(f.Cost, stateCost)
	}
	meta := obj{{"id", w.convID}, {"title", f.Title}, {"created_at", w.first() + "Z"}, {"updated_at", w.last() + "Z"}, {"parent_conversation_id", nil}}
	if err := w.file("meta.json", encode(meta, Compact)); err != nil {
		return err
	}
	return w.file("events/.eventlog.lock", nil)
}

func (w *writer) v0Sides() error {
	f := w.g.f
	const cost = 0.75
	meta := obj{{"conversation_id", hex(w.convID)}, {"title", f.Title}, {"created_at", w.first() + "Z"},
		{"last_updated_at", w.last() + "Z"}, {"llm_model", f.Model}, {"accumulated_cost", cost}, {"prompt_tokens", 1200}, {"completion_tokens", 90}}
	if err := w.file("metadata.json", w.stateBytes(meta)); err != nil {
		return err
	}
	if !w.has(BadState) {
		f.Cost = cost
	}
	// A pickle stand-in: base64 text, as in the real sessions. Readers
	// must never decode it.
	pkl := base64.StdEncoding.AppendEncode(nil, []byte("\x80\x04\x95openhands.controller.state.state\x94.State"))
	if err := w.file("agent_state.pkl", pkl); err != nil {
		return err
	}
	w.g.f.Files = w.g.f.Files[:len(w.g.f.Files)-1] // not kept by readers
	return nil
}

func (w *writer) jsonl() error {
	var b bytes.Buffer
	for _, e := range w.entries {
		b.Write(e.data)
		b.WriteByte('\n')
	}
	if w.has(TornTail) {
		half := encode(obj{{"id", w.g.uuid()}, {"timestamp", w.last()}, {"source", "agent"}, {"kind", "MessageEvent"}}, Compact)
		b.Write(half[:len(half)/2])
	}
	return w.file("events.jsonl", b.Bytes())
}

func (w *writer) zip(name string) error {
	f := w.g.f
	const cost = 2.25
	f.Cost = max(f.Cost, cost)
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	put := func(n string, data []byte) error {
		h := &zip.FileHeader{Name: n, Method: zip.Deflate, Modified: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)}
		fw, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		_, err = fw.Write(data)
		return err
	}
	meta := obj{{"id", w.convID}, {"title", f.Title}, {"llm_model", f.Model}, {"agent_kind", "Agent"},
		{"metrics", obj{{"accumulated_cost", cost}}}, {"created_at", w.first() + "Z"}, {"updated_at", w.last() + "Z"}}
	if err := put("meta.json", encode(meta, Pretty)); err != nil {
		return err
	}
	for seq, e := range w.entries {
		if e.hole {
			continue
		}
		if err := put(fmt.Sprintf("event_%06d_%s.json", seq, e.ev.id), e.data); err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return w.file(name, b.Bytes())
}

func (w *writer) array(name string) error {
	var items []any
	for _, e := range w.entries {
		items = append(items, reindent(e.data, w.style))
	}
	var doc any = items
	if w.g.opt.Wrapped {
		doc = obj{{"trajectory", items}}
	}
	return w.file(name, append(encode(doc, w.style), '\n'))
}
