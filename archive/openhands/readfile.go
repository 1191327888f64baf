package openhands

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
)

// Cursor is where a JSONL read stopped: just past the last complete line.
// ReadSince resumes there and checks that the line before it is unchanged.
type Cursor struct {
	// Offset is the byte offset just past the last complete line.
	Offset int64 `json:"offset"`
	// Line is the number of complete lines read.
	Line int `json:"line"`
	// TailStart and TailEnd bound the last line read, terminator included.
	TailStart int64 `json:"tail_start"`
	TailEnd   int64 `json:"tail_end"`
	// TailHash is the SHA-256 of the bytes [TailStart, TailEnd).
	TailHash string `json:"tail_hash"`
	// Unterminated is true when the last line read was a whole event
	// without its newline yet; the newline, when it comes, is no new line.
	Unterminated bool `json:"unterminated,omitempty"`
}

// readJSONL streams a JSONL file from the cursor from (zero: the start). Each
// line is one event; blank lines are ignored. A last line without a newline
// that does not parse is a torn tail: the cursor stops before it so a later
// ReadSince reads it once it is complete.
func (b *builder) readJSONL(ctx context.Context, u Unit, from Cursor) error {
	start, line := from.Offset, from.Line
	name := filepath.Base(u.Path)
	f, fi, err := openRegular(u.Path)
	if err != nil {
		b.problem(Problem{Kind: problemFromReadErr(err), Severity: SeverityError, File: name, Message: err.Error()})
		return nil
	}
	defer f.Close()
	if fi.Size()-start > b.max {
		b.problem(Problem{Kind: ProblemTooLarge, Severity: SeverityError, File: name,
			Message: fmt.Sprintf("%d bytes to read: %v of %d bytes", fi.Size()-start, ErrTooLarge, b.max)})
		return nil
	}
	if _, err := f.Seek(start, io.SeekStart); err != nil {
		b.problem(Problem{Kind: ProblemUnreadable, Severity: SeverityError, File: name, Message: err.Error(), Err: err})
		return nil
	}
	// all keeps the exact bytes read; records point into it. It is sized
	// from Stat, and the cap above bounds it even if the file grows.
	all := make([]byte, 0, fi.Size()-start)
	br := bufio.NewReaderSize(f, 256<<10)
	cur := from
	type span struct {
		off, end int64
		line     int
	}
	var spans []span
	for {
		if line%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		lineStart := int64(len(all))
		chunk, rerr := readLine(br, b.max-lineStart)
		all = append(all, chunk...)
		if errors.Is(rerr, ErrTooLarge) {
			b.problem(Problem{Kind: ProblemTooLarge, Severity: SeverityError, File: name, Line: line + 1, Offset: start + lineStart,
				Message: fmt.Sprintf("line %d: %v of %d bytes", line+1, ErrTooLarge, b.max)})
			break
		}
		if rerr != nil && rerr != io.EOF {
			b.problem(Problem{Kind: ProblemUnreadable, Severity: SeverityError, File: name, Line: line + 1, Offset: start + lineStart, Message: rerr.Error(), Err: rerr})
			break
		}
		if len(chunk) == 0 {
			break
		}
		complete := chunk[len(chunk)-1] == '\n'
		body := bytes.TrimRight(chunk, "\r\n")
		if cur.Unterminated && len(body) == 0 && complete {
			// The newline of the event line the last read ended on.
			cur.Offset, cur.Unterminated = start+int64(len(all)), false
			continue
		}
		if !complete && len(bytes.TrimSpace(body)) == 0 {
			break // trailing blanks: nothing to read yet
		}
		if !complete {
			// An unterminated last line counts only if it is a whole event.
			if !json.Valid(body) {
				b.problem(Problem{Kind: ProblemTornTail, Severity: SeverityWarning, File: name, Line: line + 1, Offset: start + lineStart,
					Message: fmt.Sprintf("last %d bytes are an unfinished line", len(chunk))})
				break
			}
		}
		line++
		spans = append(spans, span{lineStart, lineStart + int64(len(body)), line})
		cur = Cursor{Offset: start + int64(len(all)), Line: line, TailStart: start + lineStart, TailEnd: start + int64(len(all)),
			TailHash: hashOf(chunk), Unterminated: !complete}
		if rerr == io.EOF {
			break
		}
	}
	b.keep(sourceFile(name, RoleContainer, all, fi.ModTime()))
	for _, s := range spans {
		raw := all[s.off:s.end]
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		if r, ok := b.decode(name, s.line, start+s.off, -1, raw); ok {
			b.add(r)
		}
	}
	b.conv.Cursor = &cur
	return nil
}

// readLine reads through the next '\n' (included) or EOF, failing with
// ErrTooLarge past max bytes instead of growing without bound.
func readLine(br *bufio.Reader, max int64) ([]byte, error) {
	var out []byte
	for {
		frag, err := br.ReadSlice('\n')
		if int64(len(out)+len(frag)) > max {
			return out, ErrTooLarge
		}
		out = append(out, frag...)
		if err == bufio.ErrBufferFull {
			continue
		}
		return out, err
	}
}

// openRegular opens a regular file, refusing anything else.
func openRegular(path string) (*os.File, os.FileInfo, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fi, fmt.Errorf("%s: %w (%s)", path, ErrNotRegular, fi.Mode().Type())
	}
	f, err := os.Open(path)
	return f, fi, err
}

// readContainer reads and keeps the whole file of a single-file layout.
func (b *builder) readContainer(u Unit) (string, []byte, bool) {
	name := filepath.Base(u.Path)
	data, fi, err := readRegular(u.Path, b.max)
	if err != nil {
		b.problem(Problem{Kind: problemFromReadErr(err), Severity: SeverityError, File: name, Message: err.Error()})
		return "", nil, false
	}
	b.keep(sourceFile(name, RoleContainer, data, fi.ModTime()))
	return name, data, true
}

// readArray reads a V0 trajectory: a JSON array of events, or an object
// whose "trajectory" member is one. Records keep their byte ranges.
func (b *builder) readArray(u Unit) error {
	name, data, ok := b.readContainer(u)
	if !ok {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	fail := func(err error) {
		p := Problem{Kind: ProblemUnparseable, Severity: SeverityWarning, File: name, Offset: dec.InputOffset(), Message: err.Error()}
		var se *json.SyntaxError
		if errors.As(err, &se) {
			p.Offset = se.Offset
		}
		b.problem(p)
	}
	tok, err := dec.Token()
	if err != nil {
		fail(err)
		return nil
	}
	if tok == json.Delim('{') {
		if !seekMember(dec, "trajectory") {
			b.problem(Problem{Kind: ProblemUnsupported, Severity: SeverityError, File: name, Message: "a JSON object without a trajectory array"})
			b.conv.Verdict = VerdictUnsupported
			return nil
		}
		tok, err = dec.Token()
		if err != nil {
			fail(err)
			return nil
		}
	}
	if tok != json.Delim('[') {
		b.problem(Problem{Kind: ProblemUnsupported, Severity: SeverityError, File: name, Message: "not a JSON array of events"})
		b.conv.Verdict = VerdictUnsupported
		return nil
	}
	for i := int64(0); dec.More(); i++ {
		from := dec.InputOffset()
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			fail(err)
			return nil
		}
		end := dec.InputOffset()
		off := from + int64(len(data[from:end])-len(bytes.TrimLeft(data[from:end], " \t\r\n,")))
		if r, ok := b.decode(name, 0, off, i, data[off:end]); ok {
			b.add(r)
		}
	}
	return nil
}

// seekMember advances dec, positioned just inside an object, to the value of
// member key.
func seekMember(dec *json.Decoder, key string) bool {
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		if k, _ := tok.(string); k == key {
			return true
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return false
		}
	}
	return false
}

var zipEventName = regexp.MustCompile(`^event_(\d+)_(.+)\.json$`)

// readZip reads an exported conversation_<id>.zip: meta.json plus
// event_NNNNNN_<id>.json entries. Entries are bounded by the size cap, so a
// zip bomb stops at the cap.
func (b *builder) readZip(u Unit) error {
	name, data, ok := b.readContainer(u)
	if !ok {
		return nil
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		b.problem(Problem{Kind: ProblemUnparseable, Severity: SeverityError, File: name, Message: err.Error()})
		return nil
	}
	type entry struct {
		seq int64
		f   *zip.File
	}
	var events []entry
	for _, f := range zr.File {
		if m := zipEventName.FindStringSubmatch(f.Name); m != nil {
			seq, _ := strconv.ParseInt(m[1], 10, 64)
			events = append(events, entry{seq, f})
			continue
		}
		if f.Name == metaFile {
			if body, ok := b.zipEntry(name, f); ok {
				b.conv.zipMeta = body
			}
			continue
		}
		b.problem(Problem{Kind: ProblemSkipped, Severity: SeverityNote, File: name, Message: fmt.Sprintf("zip entry %s is not an event", f.Name)})
	}
	sort.SliceStable(events, func(i, j int) bool { return events[i].seq < events[j].seq })
	seqs := make([]int64, len(events))
	names := make([]string, len(events))
	for i, e := range events {
		seqs[i], names[i] = e.seq, e.f.Name
		body, ok := b.zipEntry(name, e.f)
		if !ok {
			continue
		}
		off, _ := e.f.DataOffset()
		if r, ok := b.decode(e.f.Name, 0, off, e.seq, body); ok {
			b.add(r)
		}
	}
	b.checkGaps(seqs, names)
	return nil
}

func (b *builder) zipEntry(zipName string, f *zip.File) ([]byte, bool) {
	bad := func(kind ProblemKind, msg string) ([]byte, bool) {
		b.problem(Problem{Kind: kind, Severity: SeverityWarning, File: f.Name, Message: zipName + ": " + msg})
		return nil, false
	}
	if f.UncompressedSize64 > uint64(b.max) {
		return bad(ProblemTooLarge, fmt.Sprintf("%d bytes: %v", f.UncompressedSize64, ErrTooLarge))
	}
	rc, err := f.Open()
	if err != nil {
		return bad(ProblemUnreadable, err.Error())
	}
	defer rc.Close()
	body, err := io.ReadAll(io.LimitReader(rc, b.max+1))
	if err != nil {
		return bad(ProblemUnreadable, err.Error())
	}
	if int64(len(body)) > b.max {
		return bad(ProblemTooLarge, ErrTooLarge.Error())
	}
	return body, true
}
