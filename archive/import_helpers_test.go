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
	"github.com/logbook/logbook/archive/dsh"
)

// This file holds the small V0 log builder and helpers the import tests share.

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

// blob returns the decompressed bytes of a file's kept blob of a kind, and its offset,
// read as the archive reads them (chunked, or one row when kept before chunks).
func blob(t testing.TB, d *sql.DB, path, kind string) ([]byte, int64) {
	t.Helper()
	var out bytes.Buffer
	off, err := archive.KeptBytesOf(context.Background(), d, path, kind, &out)
	require.NoError(t, err, "no %s blob for %s", kind, path)
	return out.Bytes(), off
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
