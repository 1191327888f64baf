// Package demogen generates the demo archive's session logs with the test-log
// generator (archive/dshgen). Only the go:generate program that writes
// app/demodata and the tests that check it import it; the product embeds what
// it wrote, so dshgen stays out of the product binary.
package demogen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/logbook/logbook/app/demodata"
	"github.com/logbook/logbook/archive/dshgen"
)

// Base is the instant (epoch ms) the embedded logs are dated from:
// 2026-01-01T00:00:00Z. demodata.Write moves them to the day they are written.
const Base int64 = 1767225600000

// Project is one scripted session of the demo.
type Project struct {
	Cwd   string
	Seed  uint64
	Title string
	turns []turn
}

// Projects are the demo's scripted sessions (sessions.go), one every two days.
var Projects = []Project{
	{"/home/demo/weather-app", 101, "Forecast shows yesterday's temperature", fixForecast},
	{"/home/demo/weather-app", 102, "Wind chill helper with tests", windChill},
	{"/home/demo/compiler", 201, "Clean build and publish 0.9", releaseDenied},
	{"/home/demo/compiler", 202, "Name token kinds in error messages", refactorLexer},
	{"/home/demo/dotfiles", 301, "Weekly Homebrew reminder", brewReminder},
}

// demoLog is one log of the demo and how it is written.
type demoLog struct {
	log        *dshgen.Log
	compressed bool // as session.jsonl.zstd
	tear       bool // cut in the middle of its last line
}

// scripted plays turns into s, titles the session after its first prompt, and
// returns the finished log.
func scripted(s *dshgen.Session, title string, turns []turn) *dshgen.Log {
	first := s.NextSeq() + 1 // the prompt follows turn/start
	play(s, turns)
	if title != "" {
		s.Title(title, "provider", []int64{first})
	}
	return s.Log()
}

// logs generates the demo dated from base (epoch ms): the scripted sessions over
// the days after base, a fork of the first and a subagent the refactor delegated
// to, and a log whose writer died mid-line. The generator is deterministic, so
// the same sessions (ids, text) come out every time; only their dates follow base.
func logs(base int64) ([]demoLog, error) {
	const day = int64(24 * time.Hour / time.Millisecond)
	var out []demoLog
	for i, p := range Projects {
		s := dshgen.New(dshgen.Options{Seed: p.Seed, Cwd: p.Cwd, Families: dshgen.FamilyTools,
			CreatedAt: base + int64(i)*2*day, ASCII: true})
		if p.turns == nil {
			return nil, fmt.Errorf("demo: project %d has no script", i)
		}
		var l *dshgen.Log
		if i == 4 { // the scheduled prompts
			play(s, p.turns)
			// Both come due within days of the demo's last session, so a scheduler
			// that wrongly armed them would fire them (scheduler/demo_test.go).
			s.ScheduleCreateAt("every", "Run brew update, list the outdated formulae and ask before upgrading anything.", s.Now()+day, 7*day/1000)
			s.ScheduleCreateAt("at", "Check whether the iTerm2 cask picked up the font rendering fix.", s.Now()+3*60*60*1000, 0)
			s.Title(p.Title, "user", nil)
			l = s.Log()
		} else {
			l = scripted(s, p.Title, p.turns)
		}
		out = append(out, demoLog{log: l, compressed: i%2 == 1})
	}
	first := out[0].log
	fs, err := dshgen.ForkSession(first, first.LastSeq()/2, dshgen.Options{Seed: 111, ASCII: true})
	if err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	fork := scripted(fs, "Forecast in the station's time zone", forkTimezone)
	sub := scripted(dshgen.SubagentSession(out[3].log, dshgen.Options{Seed: 112, ASCII: true}), "Find kinds printed as numbers", subagentKinds)
	// The torn log ends with its last turn/end, so cutting that line leaves the
	// turn unended (interrupted): its title comes first.
	ts := dshgen.New(dshgen.Options{Seed: 401, Cwd: "/home/demo/dotfiles", Families: dshgen.FamilyTools, ASCII: true,
		CreatedAt: base + 9*day})
	ts.Title("Git aliases", "user", nil)
	torn := scripted(ts, "", gitAliases)
	return append(out, demoLog{log: fork}, demoLog{log: sub}, demoLog{log: torn, tear: true}), nil
}

// WriteTree writes the demo for a demo made at now under root exactly as the app
// wrote it when it generated the demo itself: the reference demodata.Write is
// checked against.
func WriteTree(root string, now time.Time) error {
	ls, err := logs(demodata.Base(now))
	if err != nil {
		return err
	}
	for _, d := range ls {
		path, err := d.log.WriteFile(root, d.compressed)
		if err != nil {
			return fmt.Errorf("demo: %w", err)
		}
		if d.tear {
			data := d.log.JSONL()
			last := bytes.LastIndexByte(bytes.TrimSuffix(data, []byte("\n")), '\n')
			cut := last + 1 + (len(data)-last-1)/2
			if err := os.WriteFile(path, data[:cut], 0o644); err != nil {
				return fmt.Errorf("demo: tear %s: %w", path, err)
			}
		}
	}
	return nil
}

// Embedded returns what app/demodata holds: the manifest and, by name, the
// stored logs (plain JSONL, not yet compressed for storage).
func Embedded() (demodata.Manifest, map[string][]byte, error) {
	m := demodata.Manifest{Base: Base}
	ls, err := logs(Base)
	if err != nil {
		return m, nil, err
	}
	data := map[string][]byte{}
	for i, d := range ls {
		rel, err := d.log.RelPath(d.compressed)
		if err != nil {
			return m, nil, err
		}
		f := demodata.File{Path: filepath.ToSlash(rel), Data: strconv.Itoa(i) + ".jsonl.zst", Tear: d.tear}
		if d.compressed {
			if f.Frames, err = frameLines(d.log.Frames()); err != nil {
				return m, nil, err
			}
		}
		m.Files = append(m.Files, f)
		data[f.Data] = d.log.JSONL()
	}
	return m, data, nil
}

// frameLines counts the lines in each zstd frame.
func frameLines(frames [][]byte) ([]int, error) {
	dec, err := zstd.NewReader(nil)
	if err != nil {
		return nil, err
	}
	defer dec.Close()
	out := make([]int, len(frames))
	for i, f := range frames {
		b, err := dec.DecodeAll(f, nil)
		if err != nil {
			return nil, err
		}
		out[i] = bytes.Count(b, []byte("\n"))
	}
	return out, nil
}

// WriteEmbedded replaces the generated files in dir (app/demodata) with what
// Embedded returns: the manifest as indented JSON and each log zstd-compressed
// at the best level.
func WriteEmbedded(dir string) error {
	m, data, err := Embedded()
	if err != nil {
		return err
	}
	old, err := filepath.Glob(filepath.Join(dir, "*.jsonl.zst"))
	if err != nil {
		return err
	}
	for _, p := range old {
		if err := os.Remove(p); err != nil {
			return err
		}
	}
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBestCompression), zstd.WithEncoderConcurrency(1))
	if err != nil {
		return err
	}
	defer enc.Close()
	for name, b := range data {
		if err := os.WriteFile(filepath.Join(dir, name), enc.EncodeAll(b, nil), 0o644); err != nil {
			return err
		}
	}
	js, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, demodata.ManifestName), append(js, '\n'), 0o644)
}
