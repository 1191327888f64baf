package archive_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/archivetest"
	"github.com/logbook/logbook/archive/dsh"
)

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
	assert.Equal(t, archive.VerdictFailed, fr.Verdict, "an interrupted run says nothing of the file")
	assert.Equal(t, archive.KindInterrupted, errKind(fr))
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

func TestImportPreReleaseHeaderRetriedWhenLenient(t *testing.T) {
	ctx := context.Background()
	s := archivetest.MustOpen(t)
	b := newLog("session-pre", "")
	b.fullTurn("hello from an older harness")
	b.header = strings.Replace(b.header, `,"delegationDepth":0}`, `}`, 1)
	path := filepath.Join(t.TempDir(), "session.jsonl")
	writeFile(t, path, b.plain())

	strict := s.ImportFile(ctx, path, archive.ImportOptions{})
	require.Equal(t, dsh.VerdictCorrupt, strict.Verdict)
	require.Equal(t, dsh.KindBadHeader, strict.Error.Kind)
	again := s.ImportFile(ctx, path, archive.ImportOptions{})
	assert.Equal(t, "unchanged", again.Action, "a strict re-import does not read it again")

	lenient := s.ImportFile(ctx, path, archive.ImportOptions{LenientHeaders: true})
	require.Equal(t, dsh.VerdictOK, lenient.Verdict, "%+v", lenient.Error)
	assert.Positive(t, lenient.LogicalEvents)
	sess, err := s.Session(ctx, "session-pre")
	require.NoError(t, err)
	assert.Equal(t, "ok", sess.Health)
	last := s.ImportFile(ctx, path, archive.ImportOptions{LenientHeaders: true})
	assert.Equal(t, "unchanged", last.Action, "once imported it is unchanged again")
}
