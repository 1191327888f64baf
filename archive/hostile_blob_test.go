package archive_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/archivetest"
	"github.com/logbook/logbook/archive/dsh"
)

// corruptWithBulk is a log damaged mid-file (a bad line before a turn/end), followed
// by bulk bytes of incompressible text: a corrupt file whose original bytes are kept.
func corruptWithBulk(bulk int) []byte {
	b := twoTurns("session-bulk")
	b.lines = append(b.lines[:3], append([]string{"{not json"}, b.lines[3:]...)...)
	return append(b.plain(), noise(bulk)...)
}

func TestKeptBytesAreStoredInChunks(t *testing.T) {
	ctx := context.Background()
	s := archivetest.MustOpen(t)
	path := sessionFile(t, t.TempDir(), "session-bulk", false)
	data := corruptWithBulk(9 << 20) // three chunks of at most 4 MiB
	writeFile(t, path, data)

	fr := importOne(t, s, path)
	assert.Equal(t, dsh.VerdictCorrupt, fr.Verdict)
	d := db(t, s)
	assert.EqualValues(t, 3, queryInt(t, d, `SELECT chunks FROM file_blobs WHERE kind = 'original'`))
	assert.EqualValues(t, len(data), queryInt(t, d, `SELECT size FROM file_blobs WHERE kind = 'original'`))
	assert.EqualValues(t, 0, queryInt(t, d, `SELECT length(data) FROM file_blobs WHERE kind = 'original'`),
		"the bytes are in the chunks, not in the row")
	assert.EqualValues(t, 3, queryInt(t, d, `SELECT COUNT(*) FROM file_blob_chunks`))
	assert.LessOrEqual(t, queryInt(t, d, `SELECT MAX(length(data)) FROM file_blob_chunks`), int64(4<<20+4<<10),
		"no chunk holds much more than 4 MiB")

	var out bytes.Buffer
	off, err := s.KeptBytes(ctx, path, "original", &out)
	require.NoError(t, err)
	assert.Zero(t, off)
	assert.True(t, bytes.Equal(data, out.Bytes()), "the kept bytes are the file: got %d bytes, want %d", out.Len(), len(data))

	_, err = s.KeptBytes(ctx, path, "tail", &out)
	assert.ErrorIs(t, err, archive.ErrNotFound)

	// Kept again (the file changed): the row is replaced along with its chunks.
	data2 := corruptWithBulk(1 << 20)
	writeFile(t, path, data2)
	importOne(t, s, path)
	out.Reset()
	_, err = s.KeptBytes(ctx, path, "original", &out)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(data2, out.Bytes()), "the kept bytes are the new file's")
	gen := queryInt(t, d, `SELECT MAX(generation) FROM file_blobs`)
	assert.EqualValues(t, 1, queryInt(t, d, `SELECT COUNT(*) FROM file_blob_chunks WHERE generation = ?`, gen))
}

// TestKeptBytesReadsSingleRowBlobs reads bytes kept before migration 0004: the whole
// zstd stream in file_blobs.data, no chunks.
func TestKeptBytesReadsSingleRowBlobs(t *testing.T) {
	ctx := context.Background()
	s := archivetest.MustOpen(t)
	path := sessionFile(t, t.TempDir(), "session-bulk", false)
	data := corruptWithBulk(64 << 10)
	writeFile(t, path, data)
	importOne(t, s, path)

	enc, err := zstd.NewWriter(nil)
	require.NoError(t, err)
	old := enc.EncodeAll(data, nil)
	enc.Close()
	d := db(t, s)
	_, err = d.Exec(`DELETE FROM file_blob_chunks`)
	require.NoError(t, err)
	_, err = d.Exec(`UPDATE file_blobs SET data = ?, chunks = 0`, old)
	require.NoError(t, err)

	var out bytes.Buffer
	off, err := s.KeptBytes(ctx, path, "original", &out)
	require.NoError(t, err)
	assert.Zero(t, off)
	assert.True(t, bytes.Equal(data, out.Bytes()), "an old single-row blob reads as before")
}

// TestImportLineTooLong imports a file with a line past the default limit in the
// middle (a turn/end after it): the line is reported with its line and offset, the
// records before it are archived, and the file's original bytes are all kept.
func TestImportLineTooLong(t *testing.T) {
	ctx := context.Background()
	s := archivetest.MustOpen(t)
	path := sessionFile(t, t.TempDir(), "session-long", false)
	b := newLog("session-long", "")
	b.fullTurn("hello")
	before := plainOf(b.header, b.lines)
	long := fmt.Sprintf(`{"type":"user/message","seq":%d,"time":1,"data":{"text":"%s"}}`, b.seq, strings.Repeat("x", dsh.DefaultMaxLineBytes))
	b.lines = append(b.lines, long)
	b.seq++
	b.fullTurn("again")
	data := b.plain()
	writeFile(t, path, data)

	fr := importOne(t, s, path)
	assert.Equal(t, dsh.VerdictCorrupt, fr.Verdict)
	require.NotNil(t, fr.Error)
	assert.Equal(t, dsh.KindLineTooLong, fr.Error.Kind)
	assert.EqualValues(t, bytes.Count(before, []byte{'\n'})+1, fr.Error.Line, "the line after the header and the first turn")
	assert.EqualValues(t, len(before), fr.Error.Offset)
	assert.Contains(t, fr.Error.Message, fmt.Sprintf("is %d bytes long, over the limit of %d bytes", len(long), dsh.DefaultMaxLineBytes))
	assert.EqualValues(t, bytes.Count(before, []byte{'\n'})-1, fr.Records, "the records before the line are archived")
	assertSameBytes(t, before, exportOf(t, s, "session-long"), "export holds the valid prefix")

	var out bytes.Buffer
	off, err := s.KeptBytes(ctx, path, "original", &out)
	require.NoError(t, err)
	assert.Zero(t, off)
	assert.True(t, bytes.Equal(data, out.Bytes()), "every original byte is kept, the long line and the lines after it too")
}
