package archive_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/archivetest"
	"github.com/logbook/logbook/archive/dsh"
)

// ---------------------------------------------------------------------------
// A compact hand-built V0 log builder.

const (
	testCwd     = "/home/u/proj"
	testProject = "--home-u-proj--"
	testCreated = int64(1786901809409)
)

// logB builds a V0 session log line by line with dense seqs.
type logB struct {
	header string
	lines  []string // storage lines after the header, without '\n'
	seq    int64
	now    int64
	turn   int64
	step   int64
}

// newLog starts a log; headerExtra is spliced into the header object after cwd
// (e.g. `,"parentSession":"p","seedLength":3`).
func newLog(id, headerExtra string) *logB {
	return newLogVersion(id, 0, headerExtra)
}

func newLogVersion(id string, version int, headerExtra string) *logB {
	h := fmt.Sprintf(`{"type":"session","version":%d,"id":%q,"createdAt":%d,"cwd":%q%s,"delegationDepth":0}`,
		version, id, testCreated, testCwd, headerExtra)
	return &logB{header: h, now: testCreated}
}

// ev appends one plain event; extra holds more envelope members (",\"surfaceOp\":...").
func (b *logB) ev(typ, data, extra string) int64 {
	s := b.seq
	b.now += 10
	b.lines = append(b.lines, fmt.Sprintf(`{"type":%q,"seq":%d,"time":%d,"data":%s%s}`, typ, s, b.now, data, extra))
	b.seq++
	return s
}

// raw appends a line as is (for damage); it takes no seq.
func (b *logB) raw(line string) { b.lines = append(b.lines, line) }

// textChunks appends one packed text-chunks row and returns its first seq.
func (b *logB) textChunks(texts ...string) int64 {
	s := b.seq
	b.now += 10
	dt := make([]string, len(texts)-1)
	q := make([]string, len(texts))
	for i := range texts {
		q[i] = fmt.Sprintf("%q", texts[i])
		if i > 0 {
			dt[i-1] = fmt.Sprint(i)
		}
	}
	b.lines = append(b.lines, fmt.Sprintf(`{"type":"text-chunks","seq0":%d,"time0":%d,"data":{"turn":%d,"step":%d,"index":0,"dt":[%s],"texts":[%s]}}`,
		s, b.now, b.turn, b.step, strings.Join(dt, ","), strings.Join(q, ",")))
	b.seq += int64(len(texts))
	b.now += int64(len(texts))
	return s
}

func (b *logB) startTurn() {
	b.turn++
	b.step = 1
	b.ev("turn/start", fmt.Sprintf(`{"turn":%d}`, b.turn), "")
	b.ev("step/start", fmt.Sprintf(`{"turn":%d,"step":%d}`, b.turn, b.step), "")
}

func (b *logB) endTurn() {
	b.ev("step/end", fmt.Sprintf(`{"turn":%d,"step":%d}`, b.turn, b.step), "")
	b.ev("turn/end", fmt.Sprintf(`{"turn":%d,"reason":{"kind":"completed"}}`, b.turn), "")
}

func (b *logB) user(text string) int64 {
	return b.ev("user/message", fmt.Sprintf(`{"id":"u-%d","role":"user","content":[{"type":"text","text":%q}],"source":{"kind":"user"}}`, b.seq, text),
		`,"surfaceOp":"append"`)
}

// assistant streams text as a packed row and assembles it; callID (optional)
// advertises one tool call.
func (b *logB) assistant(callID string, texts ...string) int64 {
	c0 := b.textChunks(texts...)
	content := fmt.Sprintf(`{"type":"text","text":%q}`, strings.Join(texts, ""))
	if callID != "" {
		content += fmt.Sprintf(`,{"type":"tool-call","id":%q,"name":"shell","arguments":"{\"cmd\":\"ls\"}"}`, callID)
	}
	return b.ev("assistant/message", fmt.Sprintf(`{"turn":%d,"step":%d,"message":{"id":"a-%d","role":"assistant","content":[%s],"source":{"kind":"model","provider":"deepseek","model":"v4"}},"usage":{"inputTokens":10,"outputTokens":5}}`,
		b.turn, b.step, b.seq, content), fmt.Sprintf(`,"sourceEventSeqs":[[%d,%d]],"surfaceOp":"append"`, c0, c0+int64(len(texts))-1))
}

func (b *logB) toolCall(callID string) int64 {
	return b.ev("tool/call", fmt.Sprintf(`{"turn":%d,"step":%d,"callId":%q,"name":"shell","arguments":"{\"cmd\":\"ls\"}"}`, b.turn, b.step, callID), "")
}

func (b *logB) toolResult(callID string, callSeq int64, out string) int64 {
	return b.ev("tool/result", fmt.Sprintf(`{"turn":%d,"step":%d,"message":{"id":"r-%d","role":"user","content":[{"type":"tool-result","toolCallId":%q,"content":[{"type":"text","text":%q}]}],"source":{"kind":"tool","callId":%q}}}`,
		b.turn, b.step, b.seq, callID, out, callID), fmt.Sprintf(`,"surfaceOp":"append","sourceEventSeqs":[%d]`, callSeq))
}

func (b *logB) asked(id, callID string) int64 {
	call := ""
	if callID != "" {
		call = fmt.Sprintf(`,"callId":%q`, callID)
	}
	return b.ev("approval/asked", fmt.Sprintf(`{"id":%q,"toolName":"shell"%s,"reason":"writes files"}`, id, call), "")
}

func (b *logB) decided(id, outcome string) int64 {
	return b.ev("approval/decided", fmt.Sprintf(`{"id":%q,"outcome":%q}`, id, outcome), "")
}

func (b *logB) scheduleAt(id, at string) int64 {
	return b.ev("schedule/change", fmt.Sprintf(`{"version":1,"operation":"create","schedule":{"id":%q,"kind":"at","prompt":"ping %s","scheduledAt":%q}}`, id, id, at), "")
}

// fullTurn writes one complete turn: a prompt, a streamed answer advertising a tool
// call, an approval, the call and its result. 11 lines, 13 events.
func (b *logB) fullTurn(prompt string) {
	b.startTurn()
	b.user(prompt)
	call := fmt.Sprintf("call-%d", b.turn)
	b.assistant(call, "a", "b", "c")
	b.asked(fmt.Sprintf("ap-%d", b.turn), call)
	b.decided(fmt.Sprintf("ap-%d", b.turn), "allowed-once")
	cs := b.toolCall(call)
	b.toolResult(call, cs, "out-"+call)
	b.endTurn()
}

// plainOf renders a header and lines as JSONL.
func plainOf(header string, lines []string) []byte {
	var buf bytes.Buffer
	buf.WriteString(header + "\n")
	for _, l := range lines {
		buf.WriteString(l + "\n")
	}
	return buf.Bytes()
}

func (b *logB) plain() []byte { return plainOf(b.header, b.lines) }

// zstdFrame encodes one checksummed frame holding lines.
func zstdFrame(t testing.TB, lines []string) []byte {
	t.Helper()
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderCRC(true))
	require.NoError(t, err)
	defer enc.Close()
	var buf bytes.Buffer
	for _, l := range lines {
		buf.WriteString(l + "\n")
	}
	return enc.EncodeAll(buf.Bytes(), nil)
}

// zstdOf writes frame 0 = the header line, then one frame per batch of per lines.
func zstdOf(t testing.TB, header string, lines []string, per int) []byte {
	t.Helper()
	out := zstdFrame(t, []string{header})
	for i := 0; i < len(lines); i += per {
		out = append(out, zstdFrame(t, lines[i:min(i+per, len(lines))])...)
	}
	return out
}

func (b *logB) zstd(t testing.TB, per int) []byte { return zstdOf(t, b.header, b.lines, per) }

// noise returns n bytes of deterministic, incompressible text.
func noise(n int) string {
	r := rand.New(rand.NewPCG(1, 2))
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 "
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

// ---------------------------------------------------------------------------
// Archive helpers.

// sessionFile returns <root>/--home-u-proj--/<id>/session.jsonl[.zstd], creating the folder.
func sessionFile(t testing.TB, root, id string, compressed bool) string {
	t.Helper()
	dir := filepath.Join(root, testProject, id)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	name := "session.jsonl"
	if compressed {
		name += ".zstd"
	}
	return filepath.Join(dir, name)
}

var mtimeTick int64

// writeFile writes data and gives the file a fresh, distinct mtime, so a rewrite of
// the same size is never mistaken for an unchanged file by a coarse clock.
func writeFile(t testing.TB, path string, data []byte) {
	t.Helper()
	require.NoError(t, os.WriteFile(path, data, 0o644))
	touch(t, path)
}

func appendFile(t testing.TB, path string, data []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.Write(data)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	touch(t, path)
}

func touch(t testing.TB, path string) {
	t.Helper()
	mtimeTick++
	mt := time.Unix(1_800_000_000+mtimeTick, 0)
	require.NoError(t, os.Chtimes(path, mt, mt))
}

func importPaths(t testing.TB, s *archive.Store, opts archive.ImportOptions, paths ...string) *archive.ImportReport {
	t.Helper()
	rep, err := s.Import(context.Background(), paths, opts)
	require.NoError(t, err)
	return rep
}

func importOne(t testing.TB, s *archive.Store, path string) archive.FileReport {
	t.Helper()
	rep := importPaths(t, s, archive.ImportOptions{}, path)
	require.Len(t, rep.Files, 1)
	return rep.Files[0]
}

func exportOf(t testing.TB, s *archive.Store, id string) []byte {
	t.Helper()
	var out bytes.Buffer
	require.NoError(t, s.ExportJSONL(context.Background(), id, &out))
	return out.Bytes()
}

// assertSameBytes compares byte streams and shows them as text when they differ.
func assertSameBytes(t testing.TB, want, got []byte, msg string) {
	t.Helper()
	assert.Equal(t, string(want), string(got), msg)
}

// db opens the archive file directly for assertions on tables the API does not expose.
func db(t testing.TB, s *archive.Store) *sql.DB {
	t.Helper()
	d, err := sql.Open("sqlite", "file:"+s.Path+"?_pragma=busy_timeout(5000)")
	require.NoError(t, err)
	t.Cleanup(func() { _ = d.Close() })
	return d
}

func queryInt(t testing.TB, d *sql.DB, q string, args ...any) int64 {
	t.Helper()
	var n int64
	require.NoError(t, d.QueryRow(q, args...).Scan(&n))
	return n
}

// blob returns the decompressed bytes of a file's kept blob of a kind, and its offset.
func blob(t testing.TB, d *sql.DB, path, kind string) ([]byte, int64) {
	t.Helper()
	var data []byte
	var off int64
	err := d.QueryRow(`SELECT b.data, b.offset FROM file_blobs b JOIN files f ON f.id = b.file_id
		WHERE f.path = ? AND b.kind = ? ORDER BY b.generation DESC LIMIT 1`, path, kind).Scan(&data, &off)
	require.NoError(t, err, "no %s blob for %s", kind, path)
	dec, err := zstd.NewReader(nil)
	require.NoError(t, err)
	defer dec.Close()
	out, err := dec.DecodeAll(data, nil)
	require.NoError(t, err)
	return out, off
}

func sessionOf(t testing.TB, s *archive.Store, id string) archive.Session {
	t.Helper()
	sess, err := s.Session(context.Background(), id)
	require.NoError(t, err)
	return sess
}

func warningKinds(fr archive.FileReport) []dsh.Kind {
	out := []dsh.Kind{}
	for _, w := range fr.Warnings {
		out = append(out, w.Kind)
	}
	return out
}

func errKind(fr archive.FileReport) dsh.Kind {
	if fr.Error == nil {
		return ""
	}
	return fr.Error.Kind
}

func errLine(fr archive.FileReport) int64 {
	if fr.Error == nil {
		return 0
	}
	return fr.Error.Line
}

// twoTurns is the standard test session: 2 full turns, 22 lines, 26 events.
func twoTurns(id string) *logB {
	b := newLog(id, "")
	b.fullTurn("hello")
	b.fullTurn("again")
	return b
}

// ---------------------------------------------------------------------------
// Tests.

func TestImportNewFile(t *testing.T) {
	for _, tc := range []struct {
		name       string
		compressed bool
	}{
		{"plain file imports ok", false},
		{"zstd file imports ok", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			s := archivetest.MustOpen(t)
			b := twoTurns("session-x")
			path := sessionFile(t, t.TempDir(), "session-x", tc.compressed)
			data := b.plain()
			if tc.compressed {
				data = b.zstd(t, 4)
			}
			writeFile(t, path, data)

			fr := importOne(t, s, path)
			assert.Equal(t, dsh.VerdictOK, fr.Verdict, "%+v", fr.Error)
			assert.Nil(t, fr.Error)
			assert.Empty(t, fr.Warnings)
			assert.Equal(t, "session-x", fr.SessionID)
			assert.Equal(t, "new", fr.Action)
			assert.True(t, fr.Changed)
			assert.EqualValues(t, 22, fr.Records)
			assert.EqualValues(t, 26, fr.LogicalEvents)
			assert.EqualValues(t, 25, fr.LastSeq)
			assert.EqualValues(t, len(data), fr.Bytes, "bytes read in this run")
			assertSameBytes(t, b.plain(), exportOf(t, s, "session-x"), "export equals the logical stream")

			sess, err := s.Session(ctx, "session-x")
			require.NoError(t, err)
			assert.Equal(t, "ok", sess.Health)
			assert.Equal(t, testCwd, sess.Cwd)
			assert.EqualValues(t, 2, sess.Turns)
			assert.EqualValues(t, 2, sess.ToolCalls)
			assert.EqualValues(t, 4, sess.Messages, "user and assistant messages; tool results count as tool calls")
			assert.EqualValues(t, 26, sess.Events)
			assert.EqualValues(t, 22, sess.Records)
			assert.Equal(t, []string{"deepseek/v4"}, sess.Models)
			assert.EqualValues(t, 20, sess.Tokens.Input)

			msgs, err := s.Messages(ctx, "session-x")
			require.NoError(t, err)
			require.Len(t, msgs, 6)
			for i, want := range []struct {
				kind string
				turn int64
			}{{"human", 1}, {"assistant", 1}, {"tool_result", 1}, {"human", 2}, {"assistant", 2}, {"tool_result", 2}} {
				assert.Equal(t, want.kind, msgs[i].Kind, "message %d", i)
				require.NotNil(t, msgs[i].Turn, "message %d has a turn", i)
				assert.Equal(t, want.turn, *msgs[i].Turn, "message %d", i)
				assert.Equal(t, "current", msgs[i].Surface)
			}
			assert.Equal(t, "hello", msgs[0].Text)
			assert.Equal(t, "abc", msgs[1].Text)

			calls, err := s.ToolCalls(ctx, "session-x")
			require.NoError(t, err)
			require.Len(t, calls, 2)
			for _, c := range calls {
				require.NotNil(t, c.Output, c.CallID)
				assert.Equal(t, "out-"+c.CallID, *c.Output)
			}
		})
	}
}

func TestImportUnchangedWritesNothing(t *testing.T) {
	for _, tc := range []struct {
		name       string
		compressed bool
	}{
		{"plain file is skipped unchanged", false},
		{"zstd file is skipped unchanged", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := archivetest.MustOpen(t)
			clock := time.UnixMilli(1_900_000_000_000)
			s.Now = func() time.Time { return clock }
			b := twoTurns("session-x")
			path := sessionFile(t, t.TempDir(), "session-x", tc.compressed)
			if tc.compressed {
				writeFile(t, path, b.zstd(t, 5))
			} else {
				writeFile(t, path, b.plain())
			}
			first := importOne(t, s, path)
			require.Equal(t, dsh.VerdictOK, first.Verdict)

			d := db(t, s)
			conn, err := d.Conn(context.Background())
			require.NoError(t, err)
			defer conn.Close()
			version := func() int64 {
				var v int64
				require.NoError(t, conn.QueryRowContext(context.Background(), `PRAGMA data_version`).Scan(&v))
				return v
			}
			lastImport := queryInt(t, d, `SELECT last_import FROM files WHERE path = ?`, path)
			updated := queryInt(t, d, `SELECT updated_at FROM sessions WHERE id = 'session-x'`)
			v0 := version()

			clock = clock.Add(time.Hour)
			fr := importOne(t, s, path)
			assert.False(t, fr.Changed)
			assert.Equal(t, "unchanged", fr.Action)
			assert.Equal(t, dsh.VerdictOK, fr.Verdict)
			assert.EqualValues(t, 22, fr.Records)
			assert.EqualValues(t, 26, fr.LogicalEvents)
			assert.EqualValues(t, 25, fr.LastSeq)
			assert.Zero(t, fr.Bytes)

			assert.Equal(t, v0, version(), "no other connection committed anything")
			assert.Equal(t, lastImport, queryInt(t, d, `SELECT last_import FROM files WHERE path = ?`, path))
			assert.Equal(t, updated, queryInt(t, d, `SELECT updated_at FROM sessions WHERE id = 'session-x'`))
		})
	}
}

func TestImportAppend(t *testing.T) {
	// The full log: turn 1, then turn 2 cut between its tool/call and its
	// tool/result, then the rest of turn 2 and a third turn.
	full := newLog("session-x", "")
	full.fullTurn("hello")
	full.startTurn()
	full.user("again")
	full.assistant("call-2", "x", "y", "z")
	cs := full.toolCall("call-2")
	cut := len(full.lines) // first part ends with the tool/call
	full.toolResult("call-2", cs, "out-call-2")
	full.endTurn()
	full.fullTurn("third")
	events := full.seq

	for _, tc := range []struct {
		name       string
		compressed bool
	}{
		{"plain file with more lines is appended", false},
		{"zstd file with one more frame is appended", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			s := archivetest.MustOpen(t)
			path := sessionFile(t, t.TempDir(), "session-x", tc.compressed)
			var first, rest []byte
			if tc.compressed {
				first = zstdOf(t, full.header, full.lines[:cut], 3)
				rest = zstdFrame(t, full.lines[cut:])
			} else {
				first = plainOf(full.header, full.lines[:cut])
				rest = plainOf("", full.lines[cut:])[1:] // drop the empty header line
			}
			writeFile(t, path, first)
			fr := importOne(t, s, path)
			require.Equal(t, dsh.VerdictOK, fr.Verdict, "%+v", fr.Error)
			assert.EqualValues(t, cut, fr.Records)
			firstEvents := fr.LogicalEvents

			calls, err := s.ToolCalls(ctx, "session-x")
			require.NoError(t, err)
			require.Len(t, calls, 2)
			assert.Nil(t, calls[1].Output, "result not written yet")

			appendFile(t, path, rest)
			fr = importOne(t, s, path)
			assert.Equal(t, dsh.VerdictOK, fr.Verdict, "%+v", fr.Error)
			assert.Equal(t, "appended", fr.Action)
			assert.True(t, fr.Changed)
			assert.EqualValues(t, len(full.lines), fr.Records)
			assert.EqualValues(t, events, fr.LogicalEvents)
			assert.Greater(t, fr.LogicalEvents, firstEvents)
			assert.EqualValues(t, events-1, fr.LastSeq)
			assert.EqualValues(t, len(rest), fr.Bytes, "only the appended bytes are read")
			assert.Empty(t, fr.Warnings)
			assertSameBytes(t, full.plain(), exportOf(t, s, "session-x"), "export equals the new full stream")

			sess, err := s.Session(ctx, "session-x")
			require.NoError(t, err)
			assert.EqualValues(t, 3, sess.Turns)
			assert.EqualValues(t, 3, sess.ToolCalls)
			assert.EqualValues(t, 6, sess.Messages)
			assert.EqualValues(t, events, sess.Events)

			calls, err = s.ToolCalls(ctx, "session-x")
			require.NoError(t, err)
			require.Len(t, calls, 3)
			c := calls[1]
			assert.Equal(t, "call-2", c.CallID)
			assert.Equal(t, "shell", c.Name)
			assert.Equal(t, cs, c.CallSeq)
			require.NotNil(t, c.Output, "the result in the appended part pairs with the earlier call")
			assert.Equal(t, "out-call-2", *c.Output)
			require.NotNil(t, c.ResultSeq)
			assert.Equal(t, cs+1, *c.ResultSeq)

			msgs, err := s.Messages(ctx, "session-x")
			require.NoError(t, err)
			assert.Len(t, msgs, 9, "no message stored twice")

			// And the appended file is then unchanged.
			fr = importOne(t, s, path)
			assert.Equal(t, "unchanged", fr.Action)
		})
	}
}

func TestImportTornTail(t *testing.T) {
	full := twoTurns("session-x")
	full.fullTurn("third")
	events := full.seq

	t.Run("plain partial line is recovered, then completed and appended", func(t *testing.T) {
		s := archivetest.MustOpen(t)
		path := sessionFile(t, t.TempDir(), "session-x", false)
		const keep = 15 // complete lines kept; line keep+2 is torn
		whole := full.plain()
		prefix := plainOf(full.header, full.lines[:keep])
		torn := full.lines[keep][:len(full.lines[keep])/2]
		writeFile(t, path, append(append([]byte{}, prefix...), torn...))

		fr := importOne(t, s, path)
		assert.Equal(t, dsh.VerdictRecovered, fr.Verdict)
		assert.Equal(t, dsh.KindTornTail, errKind(fr))
		assert.EqualValues(t, keep+2, errLine(fr), "the torn line (header is line 1)")
		assert.EqualValues(t, keep, fr.Records)
		assertSameBytes(t, prefix, exportOf(t, s, "session-x"), "export holds the complete lines")
		tail, off := blob(t, db(t, s), path, "tail")
		assert.EqualValues(t, len(prefix), off)
		assert.Equal(t, torn, string(tail))
		sess, err := s.Session(context.Background(), "session-x")
		require.NoError(t, err)
		assert.Equal(t, "recovered", sess.Health)

		appendFile(t, path, whole[len(prefix)+len(torn):])
		fr = importOne(t, s, path)
		assert.Equal(t, dsh.VerdictOK, fr.Verdict, "%+v", fr.Error)
		assert.Nil(t, fr.Error)
		assert.Equal(t, "appended", fr.Action)
		assert.EqualValues(t, len(full.lines), fr.Records)
		assert.EqualValues(t, events, fr.LogicalEvents)
		assert.Empty(t, fr.Warnings)
		assertSameBytes(t, whole, exportOf(t, s, "session-x"), "export equals the completed file")
		sess, err = s.Session(context.Background(), "session-x")
		require.NoError(t, err)
		assert.Equal(t, "ok", sess.Health)
	})

	t.Run("zstd frame cut short is recovered with its complete records, then completed", func(t *testing.T) {
		s := archivetest.MustOpen(t)
		path := sessionFile(t, t.TempDir(), "session-x", true)
		const per = 10 // frames of 10, 10, 10 and 3 lines
		whole := full.zstd(t, per)
		lastFrame := len(full.lines) / per * per
		writeFile(t, path, whole[:len(whole)-2]) // cut inside the last frame's checksum

		fr := importOne(t, s, path)
		assert.Equal(t, dsh.VerdictRecovered, fr.Verdict)
		assert.Equal(t, dsh.KindTornTail, errKind(fr))
		assert.EqualValues(t, len(full.lines), fr.Records, "the torn frame's complete records are kept")
		assert.EqualValues(t, len(full.lines)+2, errLine(fr))
		assertSameBytes(t, full.plain(), exportOf(t, s, "session-x"), "export holds every complete record")
		_, off := blob(t, db(t, s), path, "tail")
		assert.EqualValues(t, len(zstdOf(t, full.header, full.lines[:lastFrame], per)), off, "the tail starts at the torn frame")

		writeFile(t, path, whole)
		fr = importOne(t, s, path)
		assert.Equal(t, dsh.VerdictOK, fr.Verdict, "%+v", fr.Error)
		assert.Equal(t, "appended", fr.Action)
		assert.EqualValues(t, len(full.lines), fr.Records, "no record counted twice")
		assert.EqualValues(t, events, fr.LogicalEvents)
		assertSameBytes(t, full.plain(), exportOf(t, s, "session-x"), "export equals the full file")
		assert.EqualValues(t, len(full.lines), sessionOf(t, s, "session-x").Records, "no record stored twice")
		sess, err := s.Session(context.Background(), "session-x")
		require.NoError(t, err)
		assert.Equal(t, "ok", sess.Health)
		assert.EqualValues(t, 3, sess.Turns)
		assert.EqualValues(t, 6, sess.Messages)
	})

	t.Run("zstd multi-block frame cut short keeps the records before the cut, then completed", func(t *testing.T) {
		// The last frame holds two ~150 KiB prompts and a few small lines, so it
		// spans three 128 KiB blocks; cutting into the last block leaves the first
		// prompt complete and the second one partial.
		big := twoTurns("session-x")
		head := len(big.lines)
		big.startTurn()
		big.user(noise(150 << 10))
		big.user(strings.Repeat("compressible ", 12<<10))
		big.assistant("", "o", "k", ".")
		big.endTurn()
		s := archivetest.MustOpen(t)
		path := sessionFile(t, t.TempDir(), "session-x", true)
		whole := append(zstdOf(t, big.header, big.lines[:head], head), zstdFrame(t, big.lines[head:])...)
		writeFile(t, path, whole[:len(whole)-8])

		fr := importOne(t, s, path)
		assert.Equal(t, dsh.VerdictRecovered, fr.Verdict)
		assert.Equal(t, dsh.KindTornTail, errKind(fr))
		assert.EqualValues(t, head+3, fr.Records, "turn/start, step/start and the first prompt are kept")
		assert.EqualValues(t, head+3+2, errLine(fr), "the second prompt is the partial record")
		assertSameBytes(t, plainOf(big.header, big.lines[:head+3]), exportOf(t, s, "session-x"), "export holds the complete records")

		writeFile(t, path, whole)
		fr = importOne(t, s, path)
		assert.Equal(t, dsh.VerdictOK, fr.Verdict, "%+v", fr.Error)
		assert.Equal(t, "appended", fr.Action)
		assert.EqualValues(t, len(big.lines), fr.Records)
		assert.Equal(t, big.seq, fr.LogicalEvents)
		assert.True(t, bytes.Equal(big.plain(), exportOf(t, s, "session-x")), "export equals the full file")
		assert.EqualValues(t, len(big.lines), sessionOf(t, s, "session-x").Records, "no record stored twice")
	})

	t.Run("zstd frame cut inside its block keeps nothing of it, then completed", func(t *testing.T) {
		s := archivetest.MustOpen(t)
		path := sessionFile(t, t.TempDir(), "session-x", true)
		const per = 10
		whole := full.zstd(t, per)
		lastFrame := len(full.lines) / per * per
		writeFile(t, path, whole[:len(whole)-40])

		fr := importOne(t, s, path)
		assert.Equal(t, dsh.VerdictRecovered, fr.Verdict)
		assert.Equal(t, dsh.KindTornTail, errKind(fr))
		assert.EqualValues(t, lastFrame, fr.Records)
		assertSameBytes(t, plainOf(full.header, full.lines[:lastFrame]), exportOf(t, s, "session-x"), "export holds the complete frames")

		writeFile(t, path, whole)
		fr = importOne(t, s, path)
		assert.Equal(t, dsh.VerdictOK, fr.Verdict, "%+v", fr.Error)
		assert.Equal(t, "appended", fr.Action)
		assert.EqualValues(t, len(full.lines), fr.Records)
		assertSameBytes(t, full.plain(), exportOf(t, s, "session-x"), "export equals the full file")
	})
}

func TestImportRewritten(t *testing.T) {
	old := twoTurns("session-x")
	oldPlain := old.plain()

	// A rewrite of the same size: the first prompt differs but keeps its length.
	same := newLog("session-x", "")
	same.fullTurn("HELLO")
	same.fullTurn("again")
	require.Len(t, same.plain(), len(oldPlain))

	// A shorter rewrite with different earlier content.
	shorter := newLog("session-x", "")
	shorter.fullTurn("bye")

	// A plain truncation below the cursor: the first turn only.
	truncated := plainOf(old.header, old.lines[:11])

	oldZstd := old.zstd(t, 4)

	for _, tc := range []struct {
		name       string
		compressed bool
		next       []byte
		logical    []byte
		recs       int
	}{
		{"same-size rewrite is rewritten", false, same.plain(), same.plain(), 22},
		{"shorter rewrite is rewritten", false, shorter.plain(), shorter.plain(), 11},
		{"truncation below the cursor is rewritten", false, truncated, truncated, 11},
		{"zstd shorter rewrite is rewritten", true, shorter.zstd(t, 4), shorter.plain(), 11},
		{"zstd truncation to whole frames is rewritten", true, zstdOf(t, old.header, old.lines[:12], 4), plainOf(old.header, old.lines[:12]), 12},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := archivetest.MustOpen(t)
			path := sessionFile(t, t.TempDir(), "session-x", tc.compressed)
			if tc.compressed {
				writeFile(t, path, oldZstd)
			} else {
				writeFile(t, path, oldPlain)
			}
			require.Equal(t, dsh.VerdictOK, importOne(t, s, path).Verdict)

			writeFile(t, path, tc.next)
			fr := importOne(t, s, path)
			assert.Equal(t, "rewritten", fr.Action)
			assert.True(t, fr.Changed)
			assert.Equal(t, dsh.VerdictOK, fr.Verdict, "%+v", fr.Error)
			assert.EqualValues(t, tc.recs, fr.Records)
			assertSameBytes(t, tc.logical, exportOf(t, s, "session-x"), "export holds the new content")

			d := db(t, s)
			var kept bytes.Buffer
			rows, err := d.Query(`SELECT data FROM superseded_blocks ORDER BY first_line`)
			require.NoError(t, err)
			zd, _ := zstd.NewReader(nil)
			for rows.Next() {
				var data []byte
				require.NoError(t, rows.Scan(&data))
				plain, err := zd.DecodeAll(data, nil)
				require.NoError(t, err)
				kept.Write(plain)
			}
			require.NoError(t, rows.Err())
			assert.Equal(t, strings.Join(old.lines, "\n")+"\n", kept.String(), "every old line is kept verbatim")
			assert.EqualValues(t, tc.recs, sessionOf(t, s, "session-x").Records)
			assert.EqualValues(t, 2, queryInt(t, d, `SELECT generation FROM files WHERE path = ?`, path), "the rewrite starts a new generation")

			msgs, err := s.Messages(context.Background(), "session-x")
			require.NoError(t, err)
			assert.Len(t, msgs, 3*(tc.recs/11), "derived rows are rebuilt from the new content")
		})
	}
}

func TestImportGoneUpstream(t *testing.T) {
	ctx := context.Background()
	s := archivetest.MustOpen(t)
	root := t.TempDir()
	b := twoTurns("session-x")
	path := sessionFile(t, root, "session-x", false)
	writeFile(t, path, b.plain())

	rep := importPaths(t, s, archive.ImportOptions{}, root)
	require.Len(t, rep.Files, 1)
	require.Equal(t, dsh.VerdictOK, rep.Files[0].Verdict)
	assert.Empty(t, rep.Gone)

	require.NoError(t, os.Remove(path))
	rep = importPaths(t, s, archive.ImportOptions{}, root)
	assert.Empty(t, rep.Files)
	assert.Equal(t, []string{"session-x"}, rep.Gone)

	sess, err := s.Session(ctx, "session-x")
	require.NoError(t, err)
	assert.Equal(t, "gone", sess.Health)
	assertSameBytes(t, b.plain(), exportOf(t, s, "session-x"), "a gone session still exports")

	t.Run("a second run reports it gone only once", func(t *testing.T) {
		rep := importPaths(t, s, archive.ImportOptions{}, root)
		assert.Empty(t, rep.Gone)
	})

	t.Run("a restored file is live again", func(t *testing.T) {
		writeFile(t, path, b.plain())
		rep := importPaths(t, s, archive.ImportOptions{}, root)
		require.Len(t, rep.Files, 1)
		assert.Equal(t, dsh.VerdictOK, rep.Files[0].Verdict)
		assert.Empty(t, rep.Gone)
		sess, err := s.Session(ctx, "session-x")
		require.NoError(t, err)
		assert.Equal(t, "ok", sess.Health)
		assert.Equal(t, path, sess.Path)
		assertSameBytes(t, b.plain(), exportOf(t, s, "session-x"), "nothing was duplicated")
	})
}

func TestImportDamagedFiles(t *testing.T) {
	// corrupt: a bad line at storage line 5 (line 6), with turn/ends after it.
	corrupt := twoTurns("session-x")
	corruptLines := append(append(append([]string{}, corrupt.lines[:4]...), `{"type":"step/end","seq":4,`), corrupt.lines[4:]...)

	// recovered: a bad line after the last turn/end, nothing ends a turn later.
	rec := twoTurns("session-x")
	recLines := append(append([]string{}, rec.lines...), `{not json}`, rec.lines[2])

	seedBad := newLog("session-x", `,"parentSession":"session-p","seedLength":99`)
	seedBad.fullTurn("hi")

	unsupported := newLogVersion("session-x", 1, "")
	unsupported.fullTurn("hi")

	for _, tc := range []struct {
		name      string
		data      []byte
		verdict   dsh.Verdict
		kind      dsh.Kind
		line      int64
		records   int64
		exported  []byte // nil: no session
		blobKind  string
		blobFrom  int64
		sessionOK bool
	}{
		{
			name: "bad json before a turn/end is corrupt", data: plainOf(corrupt.header, corruptLines),
			verdict: dsh.VerdictCorrupt, kind: dsh.KindBadJSON, line: 6, records: 4,
			exported: plainOf(corrupt.header, corrupt.lines[:4]), blobKind: "original", blobFrom: 0,
		},
		{
			name: "bad json with no later turn/end is recovered", data: plainOf(rec.header, recLines),
			verdict: dsh.VerdictRecovered, kind: dsh.KindBadJSON, line: int64(len(rec.lines)) + 2, records: int64(len(rec.lines)),
			exported: rec.plain(), blobKind: "tail", blobFrom: int64(len(rec.plain())),
		},
		{
			name: "seedLength beyond the events is corrupt", data: seedBad.plain(),
			verdict: dsh.VerdictCorrupt, kind: dsh.KindSeedLength, line: 1, records: 11,
			exported: seedBad.plain(), blobKind: "original", blobFrom: 0,
		},
		{
			name: "version 1 is unsupported", data: unsupported.plain(),
			verdict: dsh.VerdictUnsupported, kind: dsh.KindUnsupportedVersion, line: 1,
			blobKind: "original", blobFrom: 0,
		},
		{
			name: "empty file is corrupt", data: []byte{},
			verdict: dsh.VerdictCorrupt, kind: dsh.KindEmptyFile, line: 0,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			s := archivetest.MustOpen(t)
			path := sessionFile(t, t.TempDir(), "session-x", false)
			writeFile(t, path, tc.data)

			fr := importOne(t, s, path)
			assert.Equal(t, tc.verdict, fr.Verdict)
			require.NotNil(t, fr.Error)
			assert.Equal(t, tc.kind, fr.Error.Kind, fr.Error.Message)
			assert.Equal(t, tc.line, fr.Error.Line, fr.Error.Message)
			assert.Equal(t, tc.records, fr.Records)
			assert.True(t, fr.Changed)
			assert.EqualValues(t, len(tc.data), fr.Bytes)

			d := db(t, s)
			if tc.exported == nil {
				assert.Empty(t, fr.SessionID)
				assert.Zero(t, queryInt(t, d, `SELECT COUNT(*) FROM sessions`), "no session row")
				_, err := s.Session(ctx, "session-x")
				assert.ErrorIs(t, err, archive.ErrNotFound)
			} else {
				assert.Equal(t, "session-x", fr.SessionID)
				assertSameBytes(t, tc.exported, exportOf(t, s, "session-x"), "the valid prefix is archived")
				sess, err := s.Session(ctx, "session-x")
				require.NoError(t, err)
				assert.Equal(t, string(tc.verdict), sess.Health)
			}
			if tc.blobKind == "" {
				assert.Zero(t, queryInt(t, d, `SELECT COUNT(*) FROM file_blobs`))
			} else {
				got, off := blob(t, d, path, tc.blobKind)
				assert.Equal(t, tc.blobFrom, off)
				assertSameBytes(t, tc.data[tc.blobFrom:], got, "the bytes not imported are kept")
			}

			// A damaged file is skipped unchanged like any other.
			again := importOne(t, s, path)
			assert.Equal(t, "unchanged", again.Action)
			assert.Equal(t, tc.verdict, again.Verdict)
			assert.Equal(t, tc.kind, errKind(again))
		})
	}
}

func TestImportOneBadFileNeverStopsTheOthers(t *testing.T) {
	ctx := context.Background()
	s := archivetest.MustOpen(t)
	root := t.TempDir()
	good1 := twoTurns("session-a")
	good2 := twoTurns("session-c")
	bad := twoTurns("session-b")
	writeFile(t, sessionFile(t, root, "session-a", false), good1.plain())
	writeFile(t, sessionFile(t, root, "session-b", false), plainOf(bad.header, append([]string{"garbage"}, bad.lines...)))
	writeFile(t, sessionFile(t, root, "session-c", true), good2.zstd(t, 7))

	rep := importPaths(t, s, archive.ImportOptions{}, root)
	require.Len(t, rep.Files, 3)
	verdicts := map[string]dsh.Verdict{}
	for _, f := range rep.Files {
		verdicts[f.SessionID] = f.Verdict
	}
	assert.Equal(t, map[string]dsh.Verdict{"session-a": dsh.VerdictOK, "session-b": dsh.VerdictCorrupt, "session-c": dsh.VerdictOK}, verdicts)
	assert.Equal(t, 2, rep.Summary.OK)
	assert.Equal(t, 1, rep.Summary.Corrupt)
	assert.Equal(t, 3, rep.Summary.Files)
	var size int64
	for _, f := range rep.Files {
		fi, err := os.Stat(f.Path)
		require.NoError(t, err)
		size += fi.Size()
		assert.Equal(t, fi.Size(), f.Bytes, f.Path)
	}
	assert.Equal(t, size, rep.Summary.Bytes)
	assertSameBytes(t, good1.plain(), exportOf(t, s, "session-a"), "good plain file archived")
	assertSameBytes(t, good2.plain(), exportOf(t, s, "session-c"), "good zstd file archived")
	sess, err := s.ListSessions(ctx, archive.SessionFilter{})
	require.NoError(t, err)
	assert.Len(t, sess, 3, "the corrupt file's (empty) valid prefix is archived too")
}

func TestImportDuplicateSession(t *testing.T) {
	for _, tc := range []struct {
		name    string
		oneCall bool
	}{
		{"copy imported in a later run is a duplicate", false},
		{"copy imported in the same run is a duplicate", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			s := archivetest.MustOpen(t)
			b := twoTurns("session-x")
			first := sessionFile(t, t.TempDir(), "session-x", false)
			second := sessionFile(t, t.TempDir(), "session-x", true)
			writeFile(t, first, b.plain())
			writeFile(t, second, b.zstd(t, 6))

			var reports []archive.FileReport
			if tc.oneCall {
				// Discover sorts paths; make sure the plain one comes first.
				rep := importPaths(t, s, archive.ImportOptions{}, first, second)
				reports = rep.Files
			} else {
				reports = append(reports, importOne(t, s, first), importOne(t, s, second))
			}
			require.Len(t, reports, 2)
			byPath := map[string]archive.FileReport{}
			for _, r := range reports {
				byPath[r.Path] = r
			}
			assert.Equal(t, "new", byPath[first].Action)
			dup := byPath[second]
			assert.Equal(t, "duplicate", dup.Action)
			assert.Equal(t, dsh.VerdictOK, dup.Verdict)
			assert.Contains(t, warningKinds(dup), dsh.Kind("duplicate-session"))
			assert.EqualValues(t, 22, dup.Records)

			msgs, err := s.Messages(ctx, "session-x")
			require.NoError(t, err)
			assert.Len(t, msgs, 6, "messages are not stored twice")
			sess, err := s.Session(ctx, "session-x")
			require.NoError(t, err)
			assert.EqualValues(t, 22, sess.Records)
			assert.Equal(t, first, sess.Path)
			assertSameBytes(t, b.plain(), exportOf(t, s, "session-x"), "export unchanged")

			again := importOne(t, s, second)
			assert.Equal(t, "unchanged", again.Action)
		})
	}
}

func TestImportMovedSession(t *testing.T) {
	ctx := context.Background()
	s := archivetest.MustOpen(t)
	b := twoTurns("session-x")
	oldPath := sessionFile(t, t.TempDir(), "session-x", false)
	newPath := sessionFile(t, t.TempDir(), "session-x", false)
	copyPath := sessionFile(t, t.TempDir(), "session-x", true)
	writeFile(t, oldPath, b.plain())
	require.Equal(t, "new", importOne(t, s, oldPath).Action)

	require.NoError(t, os.Remove(oldPath))
	writeFile(t, newPath, b.plain())
	t.Run("moved file takes the session over", func(t *testing.T) {
		fr := importOne(t, s, newPath)
		assert.Equal(t, dsh.VerdictOK, fr.Verdict, "%+v", fr.Error)
		assert.Equal(t, "session-x", fr.SessionID)
		sess, err := s.Session(ctx, "session-x")
		require.NoError(t, err)
		assert.Equal(t, newPath, sess.Path)
		assertSameBytes(t, b.plain(), exportOf(t, s, "session-x"), "export unchanged")
	})

	writeFile(t, copyPath, b.zstd(t, 5))
	writeFile(t, oldPath, b.plain())
	for _, p := range []string{copyPath, oldPath} {
		name := "a copy of the moved file is a duplicate"
		if p == oldPath {
			name = "the old file coming back is a duplicate"
		}
		t.Run(name, func(t *testing.T) {
			fr := importOne(t, s, p)
			assert.Equal(t, "duplicate", fr.Action)
			assert.Contains(t, warningKinds(fr), dsh.Kind("duplicate-session"))
			sess, err := s.Session(ctx, "session-x")
			require.NoError(t, err)
			assert.Equal(t, newPath, sess.Path)
			assert.Equal(t, "ok", sess.Health)
			assert.EqualValues(t, 22, sess.Records)
			assertSameBytes(t, b.plain(), exportOf(t, s, "session-x"), "export unchanged")
		})
	}
}

func TestImportResumesAfterAnInterruptedRun(t *testing.T) {
	ctx := context.Background()
	s := archivetest.MustOpen(t)
	b := twoTurns("session-x")
	b.fullTurn("third") // 33 lines; turn 3 starts at line 23
	path := sessionFile(t, t.TempDir(), "session-x", false)
	writeFile(t, path, b.plain())

	// Cancel the run once its second batch is committed: the batches committed every
	// 12 records stay, and nothing after them is written.
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	opts := archive.ImportOptions{BatchRecords: 12, Committed: func(_ string, line int64) {
		if line >= 24 {
			cancel()
		}
	}}
	fr := s.ImportFile(cctx, path, opts)
	assert.Equal(t, "failed", fr.Action)
	assert.Equal(t, dsh.KindIOError, errKind(fr))
	require.EqualValues(t, 24, sessionOf(t, s, "session-x").Records, "two batches were committed")
	assertSameBytes(t, plainOf(b.header, b.lines[:24]), exportOf(t, s, "session-x"), "the committed batches are archived")

	fr = importOne(t, s, path)
	assert.Equal(t, dsh.VerdictOK, fr.Verdict, "%+v", fr.Error)
	assert.Equal(t, "appended", fr.Action)
	assert.EqualValues(t, 33, fr.Records)
	assert.Equal(t, b.seq, fr.LogicalEvents)
	assert.Empty(t, fr.Warnings)
	assertSameBytes(t, b.plain(), exportOf(t, s, "session-x"), "export equals the file")

	sess, err := s.Session(ctx, "session-x")
	require.NoError(t, err)
	assert.EqualValues(t, 3, sess.Turns)
	assert.EqualValues(t, 3, sess.ToolCalls)
	assert.EqualValues(t, 30, sess.Tokens.Input)
	msgs, err := s.Messages(ctx, "session-x")
	require.NoError(t, err)
	require.Len(t, msgs, 9)
	last := msgs[6] // turn 3's prompt, read after the resume; its turn/start was not
	assert.Equal(t, "human", last.Kind)
	require.NotNil(t, last.Turn)
	assert.EqualValues(t, 3, *last.Turn)
	calls, err := s.ToolCalls(ctx, "session-x")
	require.NoError(t, err)
	require.Len(t, calls, 3)
	require.NotNil(t, calls[2].Output)
}

func TestImportForkSchedules(t *testing.T) {
	ctx := context.Background()
	s := archivetest.MustOpen(t)
	// Inherited prefix: one turn of the parent with a reminder in it.
	parent := newLog("session-p", "")
	parent.startTurn()
	parent.user("remind me")
	parent.scheduleAt("schedule-1", "2030-01-01T00:00:00.000Z")
	parent.assistant("", "o", "k", "!")
	parent.endTurn()
	seed := parent.seq

	fork := newLog("session-f", fmt.Sprintf(`,"parentSession":"session-p","seedLength":%d`, seed))
	fork.lines = append(fork.lines, parent.lines...)
	fork.seq, fork.now, fork.turn = parent.seq, parent.now, parent.turn
	fork.ev("session/end-seed", `{}`, "")
	fork.startTurn()
	fork.user("another")
	fork.scheduleAt("schedule-2", "2030-06-01T00:00:00.000Z")
	fork.assistant("", "s", "u", "re")
	fork.endTurn()

	path := sessionFile(t, t.TempDir(), "session-f", false)
	writeFile(t, path, fork.plain())
	fr := importOne(t, s, path)
	require.Equal(t, dsh.VerdictOK, fr.Verdict, "%+v", fr.Error)

	sess, err := s.Session(ctx, "session-f")
	require.NoError(t, err)
	require.NotNil(t, sess.SeedLength)
	assert.Equal(t, seed, *sess.SeedLength)
	assert.Equal(t, "session-p", sess.ParentSession)

	items, err := s.Schedules(ctx, archive.ItemFilter{SessionID: "session-f"}, time.UnixMilli(testCreated))
	require.NoError(t, err)
	require.Len(t, items, 1, "only the fork's own schedule; the inherited one belongs to the parent")
	assert.Equal(t, "schedule-2", items[0].ID)
	assert.Greater(t, items[0].CreatedSeq, seed)
}

func TestImportBatching(t *testing.T) {
	b := twoTurns("session-x")
	b.ev("approval/policy", `{"policy":"ask"}`, "")
	b.scheduleAt("schedule-1", "2030-01-01T00:00:00.000Z")
	b.fullTurn("third") // 24 + 11 = 35 lines
	b.fullTurn("fourth")

	type snapshot struct {
		report   archive.FileReport
		export   string
		session  archive.Session
		messages []archive.Message
		calls    []archive.ToolCall
		appr     []archive.Approval
		sched    []archive.ScheduleItem
	}
	take := func(t *testing.T, compressed bool, batch int) snapshot {
		ctx := context.Background()
		s := archivetest.MustOpen(t)
		path := sessionFile(t, t.TempDir(), "session-x", compressed)
		if compressed {
			writeFile(t, path, b.zstd(t, 3))
		} else {
			writeFile(t, path, b.plain())
		}
		rep := importPaths(t, s, archive.ImportOptions{BatchRecords: batch}, path)
		require.Len(t, rep.Files, 1)
		var sn snapshot
		sn.report = rep.Files[0]
		sn.report.Path = ""
		sn.export = string(exportOf(t, s, "session-x"))
		var err error
		sn.session, err = s.Session(ctx, "session-x")
		require.NoError(t, err)
		sn.session.Path = ""
		sn.messages, err = s.Messages(ctx, "session-x")
		require.NoError(t, err)
		sn.calls, err = s.ToolCalls(ctx, "session-x")
		require.NoError(t, err)
		sn.appr, err = s.Approvals(ctx, archive.ItemFilter{})
		require.NoError(t, err)
		sn.sched, err = s.Schedules(ctx, archive.ItemFilter{}, time.UnixMilli(testCreated))
		require.NoError(t, err)
		return sn
	}
	for _, tc := range []struct {
		name       string
		compressed bool
		batch      int
	}{
		{"plain in batches of 2 matches the default", false, 2},
		{"plain in batches of 1 matches the default", false, 1},
		{"plain in batches of 7 matches the default", false, 7},
		{"zstd in batches of 2 matches the default", true, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := take(t, tc.compressed, 0)
			require.Equal(t, dsh.VerdictOK, want.report.Verdict)
			require.EqualValues(t, len(b.lines), want.report.Records)
			got := take(t, tc.compressed, tc.batch)
			assert.Equal(t, want, got)
		})
	}
}

func TestImportApprovals(t *testing.T) {
	ctx := context.Background()
	s := archivetest.MustOpen(t)
	b := newLog("session-x", "")
	b.ev("approval/policy", `{"policy":"ask"}`, "")
	b.ev("sandbox/mode", `{"mode":"workspace-write"}`, "")
	b.startTurn()
	b.user("do things")
	b.assistant("", "o", "k", ".")
	outcomes := []string{"allowed-once", "rejected", "cancelled", "unavailable"}
	for i, o := range outcomes {
		b.asked(fmt.Sprintf("ap-%d", i), "")
		b.decided(fmt.Sprintf("ap-%d", i), o)
	}
	undecided := b.asked("ap-open", "")
	b.endTurn()

	path := sessionFile(t, t.TempDir(), "session-x", false)
	writeFile(t, path, b.plain())
	fr := importOne(t, s, path)
	require.Equal(t, dsh.VerdictOK, fr.Verdict, "%+v", fr.Error)
	assert.Contains(t, warningKinds(fr), dsh.KindUnpairedApproval, "the undecided approval is reported")

	list, err := s.Approvals(ctx, archive.ItemFilter{SessionID: "session-x"})
	require.NoError(t, err)
	require.Len(t, list, 5)
	byID := map[string]archive.Approval{}
	for _, a := range list {
		byID[a.ID] = a
	}
	for i, o := range outcomes {
		t.Run("decided "+o, func(t *testing.T) {
			a := byID[fmt.Sprintf("ap-%d", i)]
			require.NotNil(t, a.Outcome)
			assert.Equal(t, o, *a.Outcome)
			assert.Equal(t, "shell", a.ToolName)
			assert.Equal(t, "writes files", a.Reason)
			assert.Equal(t, "ask", a.Policy)
			assert.Equal(t, "workspace-write", a.SandboxMode)
			require.NotNil(t, a.Turn)
			assert.EqualValues(t, 1, *a.Turn)
			require.NotNil(t, a.AskedSeq)
			require.NotNil(t, a.DecidedSeq)
			assert.Equal(t, *a.AskedSeq+1, *a.DecidedSeq)
		})
	}
	t.Run("undecided has no outcome", func(t *testing.T) {
		a := byID["ap-open"]
		assert.Nil(t, a.Outcome)
		assert.Nil(t, a.DecidedSeq)
		require.NotNil(t, a.AskedSeq)
		assert.Equal(t, undecided, *a.AskedSeq)
		assert.Equal(t, "ask", a.Policy)
	})
	sess, err := s.Session(ctx, "session-x")
	require.NoError(t, err)
	assert.Equal(t, "ask", sess.Policy)
	assert.Equal(t, "workspace-write", sess.SandboxMode)
}

func TestImportCompactions(t *testing.T) {
	ctx := context.Background()
	s := archivetest.MustOpen(t)
	b := newLog("session-x", "")
	b.startTurn()
	u := b.user("hello")
	a := b.assistant("", "h", "i", "!")
	b.endTurn()
	b.ev("compaction/start", `{"compactionId":"c1","turn":null}`, "")
	b.ev("compaction/summary", fmt.Sprintf(`{"compactionId":"c1","summary":[{"type":"text","text":"they said hi"}],"shadowedRange":{"start":%d,"end":%d},"shadowedSeqs":[%d,%d],"shadowedTokenCount":42,"provider":"deepseek","model":"v4"}`, u, a, u, a), "")
	checkpoint := b.ev("user/message", `{"id":"cp-1","role":"user","content":[{"type":"text","text":"summary: they said hi"}],"source":{"kind":"plugin","plugin":"compact","compactionId":"c1"}}`,
		fmt.Sprintf(`,"surfaceOp":{"op":"replace","start":%d,"end":%d},"sourceEventSeqs":[%d,%d]`, u, a, u, a))
	b.ev("compaction/end", `{"compactionId":"c1","turn":null}`, "")
	b.ev("compaction/start", `{"compactionId":"c2","turn":null}`, "")
	b.ev("compaction/end", `{"compactionId":"c2","turn":null,"error":{"message":"provider failed","code":"PROVIDER_ERROR"}}`, "")

	path := sessionFile(t, t.TempDir(), "session-x", false)
	writeFile(t, path, b.plain())
	fr := importOne(t, s, path)
	require.Equal(t, dsh.VerdictOK, fr.Verdict, "%+v", fr.Error)
	assert.Empty(t, fr.Warnings)

	msgs, err := s.Messages(ctx, "session-x")
	require.NoError(t, err)
	require.Len(t, msgs, 3)
	for _, m := range msgs[:2] {
		t.Run(fmt.Sprintf("message %d is shadowed by the checkpoint", m.Seq), func(t *testing.T) {
			assert.Equal(t, "shadowed", m.Surface)
			require.NotNil(t, m.ShadowedBy)
			assert.Equal(t, checkpoint, *m.ShadowedBy)
		})
	}
	t.Run("checkpoint is current", func(t *testing.T) {
		m := msgs[2]
		assert.Equal(t, checkpoint, m.Seq)
		assert.Equal(t, "current", m.Surface)
		assert.Nil(t, m.ShadowedBy)
		assert.Equal(t, "injected", m.Kind)
		assert.Equal(t, "compact", m.Plugin)
	})

	list, err := s.Compactions(ctx, archive.ItemFilter{SessionID: "session-x"})
	require.NoError(t, err)
	require.Len(t, list, 2)
	t.Run("successful compaction is ok", func(t *testing.T) {
		c := list[0]
		assert.Equal(t, "c1", c.CompactionID)
		assert.Equal(t, "ok", c.Status)
		assert.Equal(t, "they said hi", c.Summary)
		assert.Equal(t, []int64{u, a}, c.ShadowedSeqs)
		require.NotNil(t, c.ReplaceSeq)
		assert.Equal(t, checkpoint, *c.ReplaceSeq)
		require.NotNil(t, c.ShadowedTokens)
		assert.EqualValues(t, 42, *c.ShadowedTokens)
		assert.Nil(t, c.Error)
		assert.Nil(t, c.Turn)
	})
	t.Run("failed compaction is failed with its error", func(t *testing.T) {
		c := list[1]
		assert.Equal(t, "c2", c.CompactionID)
		assert.Equal(t, "failed", c.Status)
		require.NotNil(t, c.Error)
		assert.Contains(t, *c.Error, "provider failed")
		assert.Nil(t, c.SummarySeq)
	})

	t.Run("shadowing survives an append", func(t *testing.T) {
		more := *b
		more.lines = append([]string{}, b.lines...)
		more.fullTurn("next")
		appendFile(t, path, more.plain()[len(b.plain()):])
		fr := importOne(t, s, path)
		require.Equal(t, "appended", fr.Action)
		require.Equal(t, dsh.VerdictOK, fr.Verdict, "%+v", fr.Error)
		msgs, err := s.Messages(ctx, "session-x")
		require.NoError(t, err)
		require.Len(t, msgs, 6)
		assert.Equal(t, "shadowed", msgs[0].Surface)
		assert.Equal(t, "current", msgs[2].Surface)
		assert.Equal(t, "current", msgs[5].Surface)
	})
}

func TestImportSchedulesAtNow(t *testing.T) {
	ctx := context.Background()
	s := archivetest.MustOpen(t)
	b := newLog("session-x", "")
	b.startTurn()
	b.user("remind me")
	b.scheduleAt("schedule-1", "2027-01-01T00:00:00.000Z")
	b.ev("schedule/change", `{"version":1,"operation":"create","schedule":{"id":"schedule-2","kind":"every","prompt":"tick","everySeconds":3600,"scheduledAt":"2028-01-01T00:00:00.000Z"}}`, "")
	b.scheduleAt("schedule-3", "2027-06-01T00:00:00.000Z")
	b.ev("schedule/change", `{"version":1,"operation":"delete","id":"schedule-3"}`, "")
	b.assistant("", "o", "k", ".")
	b.endTurn()
	path := sessionFile(t, t.TempDir(), "session-x", false)
	writeFile(t, path, b.plain())
	fr := importOne(t, s, path)
	require.Equal(t, dsh.VerdictOK, fr.Verdict, "%+v", fr.Error)
	assert.Empty(t, fr.Warnings)

	for _, tc := range []struct {
		name string
		now  string
		want map[string]string
	}{
		{"before every target all are scheduled", "2026-12-01T00:00:00.000Z",
			map[string]string{"schedule-1": "scheduled", "schedule-2": "scheduled", "schedule-3": "deleted"}},
		{"between targets the past one is overdue", "2027-06-01T00:00:00.000Z",
			map[string]string{"schedule-1": "overdue", "schedule-2": "scheduled", "schedule-3": "deleted"}},
		{"after every target all are overdue", "2029-01-01T00:00:00.000Z",
			map[string]string{"schedule-1": "overdue", "schedule-2": "overdue", "schedule-3": "deleted"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now, err := time.Parse(time.RFC3339, tc.now)
			require.NoError(t, err)
			items, err := s.Schedules(ctx, archive.ItemFilter{SessionID: "session-x"}, now)
			require.NoError(t, err)
			got := map[string]string{}
			for _, it := range items {
				got[it.ID] = it.State
			}
			assert.Equal(t, tc.want, got)
			for _, it := range items {
				if it.ID == "schedule-2" {
					require.NotNil(t, it.EverySeconds)
					assert.EqualValues(t, 3600, *it.EverySeconds)
					require.NotNil(t, it.NextFire)
					assert.Equal(t, "2028-01-01T00:00:00Z", it.NextFire.Format(time.RFC3339))
				}
				if it.ID == "schedule-3" {
					assert.Equal(t, "deleted", it.Status)
					assert.Nil(t, it.NextFire)
				}
			}
		})
	}
}
