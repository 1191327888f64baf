package openhands

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
)

var (
	// sdkEventName matches EventLog files; idx is zero-padded to at least 5
	// digits by the SDK but any width is accepted.
	sdkEventName = regexp.MustCompile(`^event-(\d+)-([0-9a-fA-F-]{8,})\.json$`)
	v0EventName  = regexp.MustCompile(`^(\d+)\.json$`)
	appBName     = regexp.MustCompile(`^[0-9a-fA-F]{32}\.json$`)
	appAName     = regexp.MustCompile(`^(\d{14})_([A-Za-z0-9]+)_([0-9a-fA-F]{32})$`)
)

// The fixed file names of the folder layouts.
const (
	baseStateFile = "base_state.json"
	metaFile      = "meta.json"
	metadataFile  = "metadata.json"
	eventsDir     = "events"
	lockFile      = ".eventlog.lock"
)

type seqFile struct {
	seq  int64
	name string // relative to the unit path, slash-separated
}

// readState keeps a side file (base_state.json, meta.json, metadata.json).
// A missing file is fine; an unreadable or unparseable one is a warning and
// the events are read anyway.
func (b *builder) readState(dir, name string, role FileRole) {
	data, fi, err := readRegular(filepath.Join(dir, filepath.FromSlash(name)), b.max)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err != nil {
		b.problem(Problem{Kind: ProblemStateUnreadable, Severity: SeverityWarning, File: name, Message: err.Error()})
		return
	}
	b.keep(sourceFile(name, role, data, fi.ModTime()))
	if role == RoleLock {
		return
	}
	var v map[string]any
	if err := json.Unmarshal(data, &v); err != nil {
		p := Problem{Kind: ProblemStateUnreadable, Severity: SeverityWarning, File: name, Message: err.Error()}
		var se *json.SyntaxError
		if errors.As(err, &se) {
			p.Offset = se.Offset
		}
		b.problem(p)
	}
}

// loaded is one event file read and decoded off the builder.
type loaded struct {
	file *SourceFile
	rec  Record
	prob *Problem
}

// loadEvent reads and decodes one event file without touching the builder.
func loadEvent(dir folder, f seqFile, max int64) loaded {
	data, fi, err := readRegularAt(dir, f.name, max)
	if err != nil {
		p := &Problem{Kind: problemFromReadErr(err), Severity: SeverityWarning, File: f.name, Message: err.Error()}
		if p.Kind == ProblemUnreadable {
			p.Err = err
		}
		return loaded{prob: p}
	}
	sf := sourceFile(f.name, RoleEvent, data, fi.ModTime())
	rec, p := decodeRecord(f.name, 0, 0, f.seq, data)
	return loaded{file: &sf, rec: rec, prob: p}
}

// loadWorkers is how many event files are read at once. Reading is mostly
// waiting on open/read calls, so a few workers hide that latency.
const loadWorkers = 4

// loadAll loads files on a few workers, returning results in file order.
func (b *builder) loadAll(ctx context.Context, dir string, files []seqFile) ([]loaded, error) {
	out := make([]loaded, len(files))
	d := openFolder(dir)
	defer d.close()
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(loadWorkers, len(files)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i] = loadEvent(d, files[i], b.max)
			}
		}()
	}
	var err error
	for i := range files {
		if err = ctx.Err(); err != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	return out, err
}

// take records one loaded file: keeps its bytes, notes its problem and
// returns its record when there is one.
func (b *builder) take(l loaded) (Record, bool) {
	if l.file != nil {
		b.keep(*l.file)
	}
	if l.prob != nil {
		b.problem(*l.prob)
		return Record{}, false
	}
	return l.rec, true
}

// matchSeq matches an event file name; a nil re matches nothing.
func matchSeq(re *regexp.Regexp, name string) []string {
	if re == nil {
		return nil
	}
	return re.FindStringSubmatch(name)
}

// readSeqFiles reads event files in sequence order and checks for gaps.
func (b *builder) readSeqFiles(ctx context.Context, dir string, files []seqFile) error {
	sort.Slice(files, func(i, j int) bool {
		if files[i].seq != files[j].seq {
			return files[i].seq < files[j].seq
		}
		return files[i].name < files[j].name
	})
	seqs := make([]int64, len(files))
	names := make([]string, len(files))
	var todo []seqFile
	for i, f := range files {
		seqs[i], names[i] = f.seq, f.name
		if !b.known[f.name] {
			todo = append(todo, f)
		}
	}
	loads, err := b.loadAll(ctx, dir, todo)
	if err != nil {
		return err
	}
	if n := len(loads); n > 0 && todo[n-1].name == names[len(names)-1] {
		tornNewest(&loads[n-1])
	}
	for _, l := range loads {
		if r, ok := b.take(l); ok {
			b.add(r)
		}
	}
	b.checkGaps(seqs, names)
	return nil
}

// tornNewest turns the newest event file's parse failure into a torn tail when
// its JSON stops short (or it is still empty): an agent writes an event file in
// place, so a read can land between its creation and its last byte. Like a
// JSONL line still being written, that is no damage: its bytes are kept as
// read (RoleTorn) and it is read again once it changes. A file that is
// malformed otherwise, or an earlier one that stops short, stays unparseable.
func tornNewest(l *loaded) {
	if l.prob == nil || l.prob.Kind != ProblemUnparseable || l.file == nil || !stopsShort(l.file.Data) {
		return
	}
	l.file.Role = RoleTorn
	l.prob.Kind = ProblemTornTail
	l.prob.Offset = int64(len(l.file.Data))
	l.prob.Message = fmt.Sprintf("the newest event file ends mid-JSON after %d bytes: still being written, or cut off (read again when it changes)", len(l.file.Data))
}

// stopsShort reports whether data is empty or the start of a JSON value cut
// off before its end.
func stopsShort(data []byte) bool {
	if len(bytes.TrimSpace(data)) == 0 {
		return true
	}
	var v json.RawMessage
	err := json.NewDecoder(bytes.NewReader(data)).Decode(&v)
	return errors.Is(err, io.ErrUnexpectedEOF)
}

// skip notes a file or folder that is deliberately not kept.
func (b *builder) skip(name, why string) {
	b.conv.Skipped = append(b.conv.Skipped, name)
	b.problem(Problem{Kind: ProblemSkipped, Severity: SeverityNote, File: name, Message: why})
}

// listSeq lists dir/sub, returning the files whose names match re (seq from
// group 1) and the lock file, skipping the rest.
func (b *builder) listSeq(dir, sub string, re *regexp.Regexp) (files []seqFile, err error) {
	entries, err := os.ReadDir(filepath.Join(dir, filepath.FromSlash(sub)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		name := path.Join(sub, e.Name())
		if m := matchSeq(re, e.Name()); m != nil && !e.IsDir() {
			seq, perr := strconv.ParseInt(m[1], 10, 64)
			if perr != nil {
				b.skip(name, "sequence number out of range")
				continue
			}
			files = append(files, seqFile{seq: seq, name: name})
			continue
		}
		if e.Name() == lockFile && e.Type().IsRegular() {
			if !b.known[name] {
				b.readState(dir, name, RoleLock)
			}
			continue
		}
		if sub == "" && (e.Name() == baseStateFile || e.Name() == metaFile || e.Name() == metadataFile || e.Name() == eventsDir) {
			continue
		}
		why := "not part of the event log"
		if strings.HasSuffix(e.Name(), ".pkl") {
			why = "pickle: never unpickled"
		}
		b.skip(name, why)
	}
	return files, nil
}

// folderSpec describes a folder layout with numbered event files.
type folderSpec struct {
	sides []sideSpec     // side files at the top of the folder
	sub   string         // the events folder, "" for the folder itself
	re    *regexp.Regexp // event file names; group 1 is the sequence number
}

type sideSpec struct {
	name string
	role FileRole
}

var folderSpecs = map[Layout]folderSpec{
	LayoutSDK:           {sides: []sideSpec{{baseStateFile, RoleState}, {metaFile, RoleMeta}}, sub: eventsDir, re: sdkEventName},
	LayoutCLITrajectory: {re: sdkEventName},
	LayoutV0Session:     {sides: []sideSpec{{metadataFile, RoleMetadata}}, sub: eventsDir, re: v0EventName},
}

// readFolder reads a folder layout with numbered event files: an EventLog
// folder, a bare CLI trajectory folder or a V0 session.
func (b *builder) readFolder(ctx context.Context, u Unit) error {
	spec := folderSpecs[u.Layout]
	for _, s := range spec.sides {
		if !b.known[s.name] {
			b.readState(u.Path, s.name, s.role)
		}
	}
	if spec.sub != "" {
		// List the top level too, so strays (observations/, pickles) are noted.
		if _, err := b.listSeq(u.Path, "", nil); err != nil {
			return b.dirError(err)
		}
	}
	files, err := b.listSeq(u.Path, spec.sub, spec.re)
	if err != nil {
		return b.dirError(err)
	}
	return b.readSeqFiles(ctx, u.Path, files)
}

// readApp reads an app-server folder (layout A or B). Neither has a sequence
// number, so events are ordered by (timestamp, file name).
func (b *builder) readApp(ctx context.Context, u Unit) error {
	re := appBName
	if u.Layout == LayoutAppA {
		re = appAName
	}
	entries, err := os.ReadDir(u.Path)
	if err != nil {
		return b.dirError(err)
	}
	var todo []seqFile
	for _, e := range entries {
		if b.known[e.Name()] {
			continue
		}
		if e.IsDir() || !re.MatchString(e.Name()) {
			b.skip(e.Name(), "not an event file of this layout")
			continue
		}
		todo = append(todo, seqFile{seq: -1, name: e.Name()})
	}
	loads, err := b.loadAll(ctx, u.Path, todo)
	if err != nil {
		return err
	}
	for _, l := range loads {
		if r, ok := b.take(l); ok {
			b.pending = append(b.pending, r)
		}
	}
	b.flushByTime()
	return nil
}

// dirError turns a folder that cannot be listed into a corrupt verdict; only
// a cancelled context is returned as an error.
func (b *builder) dirError(err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	b.problem(Problem{Kind: ProblemUnreadable, Severity: SeverityError, Message: fmt.Sprintf("list folder: %v", err), Err: err})
	return nil
}
