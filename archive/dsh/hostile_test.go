package dsh_test

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive/dsh"
)

// These tests hold the reader to its limits on hostile input: a line or a frame past
// its limit is refused with a specific problem, in memory bounded by the limit rather
// than by the input.

const (
	hHeader  = `{"type":"session","version":0,"id":"s","createdAt":1,"delegationDepth":0}`
	hStart   = `{"type":"turn/start","seq":0,"time":1,"data":{"turn":1}}`
	hTurnEnd = `{"type":"turn/end","seq":%d,"time":3,"data":{"turn":1,"reason":{"kind":"completed"}}}`
)

// userLine is a valid user/message line of exactly n bytes (n >= 80).
func userLine(seq int64, n int) string {
	head := fmt.Sprintf(`{"type":"user/message","seq":%d,"time":2,"data":{"text":"`, seq)
	tail := `"}}`
	return head + strings.Repeat("x", n-len(head)-len(tail)) + tail
}

// repeatReader yields n copies of one byte without holding them.
type repeatReader struct {
	b byte
	n int64
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), r.n)]
	for i := range p {
		p[i] = r.b
	}
	r.n -= int64(len(p))
	return len(p), nil
}

// hugeLineFile is a plain log whose line 3 is a valid user/message n bytes long,
// generated as it is read; after is what follows that line.
func hugeLineFile(n int64, after string) io.Reader {
	head := fmt.Sprintf(`{"type":"user/message","seq":1,"time":2,"data":{"text":"`)
	return io.MultiReader(strings.NewReader(hHeader+"\n"+hStart+"\n"+head),
		&repeatReader{b: 'x', n: n - int64(len(head)) - 3}, strings.NewReader(`"}}`+after))
}

// readAllocs reads a whole file and returns the result, the records and the bytes
// the reading allocated.
func readAllocs(t *testing.T, r io.Reader, compressed bool, opts dsh.Options) (dsh.Result, []*dsh.Record, uint64) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	rd := dsh.NewReader(r, compressed, opts)
	defer rd.Close()
	var recs []*dsh.Record
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		recs = append(recs, rec)
	}
	runtime.ReadMemStats(&after)
	return rd.Result(), recs, after.TotalAlloc - before.TotalAlloc
}

func TestLineTooLong(t *testing.T) {
	const limit = 1 << 20
	const huge = 64 << 20 // read through, never held
	lineStart := int64(len(hHeader) + 1 + len(hStart) + 1)

	t.Run("mid-file, before a turn/end: corrupt, the line never held", func(t *testing.T) {
		res, recs, alloc := readAllocs(t, hugeLineFile(huge, "\n"+fmt.Sprintf(hTurnEnd, 2)+"\n"), false,
			dsh.Options{MaxLineBytes: limit, Detached: true})
		assert.Equal(t, dsh.VerdictCorrupt, res.Verdict)
		require.NotNil(t, res.Problem)
		assert.Equal(t, dsh.KindLineTooLong, res.Problem.Kind)
		assert.EqualValues(t, 3, res.Problem.Line)
		assert.Equal(t, lineStart, res.Problem.Offset)
		assert.Contains(t, res.Problem.Message, fmt.Sprintf("line 3 at byte %d is %d bytes long, over the limit of %d bytes", lineStart, huge, limit))
		assert.Contains(t, res.Problem.Message, "a later turn/end")
		assert.Len(t, recs, 1, "the records before it are read")
		assert.True(t, res.Dropped)
		assert.Less(t, alloc, uint64(8<<20), "a %d-byte line was skipped, not buffered", huge)
	})

	t.Run("in the tail: dropped as uncommitted", func(t *testing.T) {
		res, recs, _ := readAllocs(t, hugeLineFile(2*limit, "\n"+hStart+"\n"), false, dsh.Options{MaxLineBytes: limit})
		assert.Equal(t, dsh.VerdictRecovered, res.Verdict)
		require.NotNil(t, res.Problem)
		assert.Equal(t, dsh.KindLineTooLong, res.Problem.Kind)
		assert.Contains(t, res.Problem.Message, "uncommitted tail")
		assert.Len(t, recs, 1)
		assert.True(t, res.Dropped)
		assert.Equal(t, lineStart, res.Committed.Offset, "the kept tail starts at the long line")
	})

	t.Run("strict: corrupt", func(t *testing.T) {
		res, _, _ := readAllocs(t, hugeLineFile(2*limit, "\n"), false, dsh.Options{MaxLineBytes: limit, Strict: true})
		assert.Equal(t, dsh.VerdictCorrupt, res.Verdict)
		require.NotNil(t, res.Problem)
		assert.Equal(t, dsh.KindLineTooLong, res.Problem.Kind)
	})

	t.Run("no newline at the end of the file", func(t *testing.T) {
		res, _, alloc := readAllocs(t, hugeLineFile(huge, ""), false, dsh.Options{MaxLineBytes: limit})
		assert.Equal(t, dsh.VerdictRecovered, res.Verdict)
		require.NotNil(t, res.Problem)
		assert.Equal(t, dsh.KindLineTooLong, res.Problem.Kind)
		assert.Contains(t, res.Problem.Message, "no newline")
		assert.Less(t, alloc, uint64(8<<20))
	})

	t.Run("header line", func(t *testing.T) {
		res, recs, alloc := readAllocs(t, &repeatReader{b: 'h', n: huge}, false, dsh.Options{MaxLineBytes: limit})
		assert.Equal(t, dsh.VerdictCorrupt, res.Verdict)
		require.NotNil(t, res.Problem)
		assert.Equal(t, dsh.KindLineTooLong, res.Problem.Kind)
		assert.EqualValues(t, 1, res.Problem.Line)
		assert.EqualValues(t, 0, res.Problem.Offset)
		assert.Contains(t, res.Problem.Message, "the header line was skipped")
		assert.Empty(t, recs)
		assert.Less(t, alloc, uint64(8<<20))
	})

	t.Run("the limit itself is allowed, one byte more is not", func(t *testing.T) {
		line := userLine(1, 200)
		log := hHeader + "\n" + hStart + "\n" + line + "\n" + fmt.Sprintf(hTurnEnd, 2) + "\n"
		res := readAll([]byte(log), false, dsh.Options{MaxLineBytes: len(line)})
		assert.Equal(t, dsh.VerdictOK, res.Verdict, "%+v", res.Problem)
		res = readAll([]byte(log), false, dsh.Options{MaxLineBytes: len(line) - 1})
		assert.Equal(t, dsh.VerdictCorrupt, res.Verdict)
		require.NotNil(t, res.Problem)
		assert.Equal(t, dsh.KindLineTooLong, res.Problem.Kind)
		assert.Contains(t, res.Problem.Message, "is 200 bytes long")
	})

	t.Run("long lines under the limit keep their bytes when detached", func(t *testing.T) {
		// Lines past the reader's buffer are handed to their records, not copied:
		// each record must still hold its own line after the next is read.
		var want []string
		var b strings.Builder
		b.WriteString(hHeader + "\n" + hStart + "\n")
		for seq := int64(1); seq <= 3; seq++ {
			line := userLine(seq, 3<<20+int(seq))
			want = append(want, line)
			b.WriteString(line + "\n")
		}
		res, recs, _ := readAllocs(t, strings.NewReader(b.String()), false, dsh.Options{Detached: true})
		assert.Equal(t, dsh.VerdictOK, res.Verdict, "%+v", res.Problem)
		require.Len(t, recs, 4)
		for i, w := range want {
			assert.True(t, string(recs[i+1].Raw) == w, "record %d holds its own line", i+1)
		}
	})
}

// frames compresses each group of lines into one frame, as dsh does per batch: by a
// streaming writer, so the frames declare no content size.
func frames(t *testing.T, groups ...[]string) []byte {
	t.Helper()
	return streamFrames(t, []zstd.EOption{zstd.WithEncoderCRC(true)}, groups...)
}

func streamFrames(t *testing.T, opts []zstd.EOption, groups ...[]string) []byte {
	t.Helper()
	var out bytes.Buffer
	for _, g := range groups {
		enc, err := zstd.NewWriter(&out, opts...)
		require.NoError(t, err)
		_, err = enc.Write([]byte(strings.Join(g, "\n") + "\n"))
		require.NoError(t, err)
		require.NoError(t, enc.Close())
	}
	return out.Bytes()
}

// rleFrame is a frame of n RLE blocks of 128 KiB zeros (no checksum, 1 MiB window),
// written by hand: a bomb that decodes to n*128 KiB from 4 bytes a block. last marks
// the final block; without it the frame is cut short by the end of the data.
func rleFrame(n int, last bool) []byte {
	out := []byte{0x28, 0xB5, 0x2F, 0xFD, 0x00, 10 << 3}
	for i := range n {
		h := uint32(128<<10)<<3 | 1<<1
		if last && i == n-1 {
			h |= 1
		}
		out = append(out, byte(h), byte(h>>8), byte(h>>16), 0)
	}
	return out
}

func TestFrameTooLarge(t *testing.T) {
	const limit = 1 << 20
	header := frames(t, []string{hHeader})
	start := frames(t, []string{hStart})
	bombAt := int64(len(header) + len(start))

	check := func(t *testing.T, res dsh.Result, verdict dsh.Verdict, msg string) {
		t.Helper()
		assert.Equal(t, verdict, res.Verdict)
		require.NotNil(t, res.Problem)
		assert.Equal(t, dsh.KindFrameTooLarge, res.Problem.Kind, res.Problem.Message)
		assert.EqualValues(t, 3, res.Problem.Line)
		assert.Equal(t, bombAt, res.Problem.Offset)
		assert.Contains(t, res.Problem.Message, fmt.Sprintf("frame 2 at byte %d", bombAt))
		assert.Contains(t, res.Problem.Message, msg)
		assert.True(t, res.Dropped)
	}

	t.Run("RLE bomb: refused by its block headers, never decoded", func(t *testing.T) {
		bomb := rleFrame(8192, true) // 1 GiB from 32 KiB
		data := append(append(append([]byte{}, header...), start...), bomb...)
		res, recs, alloc := readAllocs(t, bytes.NewReader(data), true, dsh.Options{MaxFrameBytes: limit})
		check(t, res, dsh.VerdictCorrupt, fmt.Sprintf("decodes to more than %d bytes", limit))
		assert.Len(t, recs, 1, "the frames before it are read")
		assert.Less(t, alloc, uint64(4<<20))
	})

	t.Run("RLE bomb cut short at the end of the file: an uncommitted tail", func(t *testing.T) {
		data := append(append(append([]byte{}, header...), start...), rleFrame(8192, false)...)
		res, _, _ := readAllocs(t, bytes.NewReader(data), true, dsh.Options{MaxFrameBytes: limit})
		check(t, res, dsh.VerdictRecovered, "uncommitted tail")
		assert.Equal(t, bombAt, res.Committed.Offset)
	})

	// Zeros compressed by a streaming encoder: compressed blocks whose decoded size
	// only decoding tells, and no declared content size.
	var zbuf bytes.Buffer
	enc, err := zstd.NewWriter(&zbuf, zstd.WithEncoderCRC(true), zstd.WithWindowSize(limit))
	require.NoError(t, err)
	_, err = enc.Write(make([]byte, 64<<20))
	require.NoError(t, err)
	require.NoError(t, enc.Close())
	zeros := zbuf.Bytes()

	t.Run("compressed bomb: decoding stops at the limit", func(t *testing.T) {
		data := append(append(append([]byte{}, header...), start...), zeros...)
		res, _, alloc := readAllocs(t, bytes.NewReader(data), true, dsh.Options{MaxFrameBytes: limit})
		check(t, res, dsh.VerdictCorrupt, fmt.Sprintf("decodes to more than %d bytes", limit))
		assert.Less(t, alloc, uint64(8<<20), "64 MiB of zeros decoded no further than the limit")
	})

	t.Run("compressed bomb cut short: the torn frame is decoded no further than the limit", func(t *testing.T) {
		data := append(append(append([]byte{}, header...), start...), zeros[:len(zeros)-10]...)
		res, _, alloc := readAllocs(t, bytes.NewReader(data), true, dsh.Options{MaxFrameBytes: limit})
		check(t, res, dsh.VerdictRecovered, "before the end of the file cuts it short")
		assert.Less(t, alloc, uint64(8<<20))
	})

	t.Run("declared content size over the limit: refused from the header", func(t *testing.T) {
		enc, err := zstd.NewWriter(nil)
		require.NoError(t, err)
		big := enc.EncodeAll([]byte(userLine(1, 2*limit)+"\n"), nil) // one-shot: declares its size
		enc.Close()
		data := append(append(append([]byte{}, header...), start...), big...)
		res, _, _ := readAllocs(t, bytes.NewReader(data), true, dsh.Options{MaxFrameBytes: limit})
		check(t, res, dsh.VerdictCorrupt, fmt.Sprintf("declares %d bytes of content", 2*limit+1))
	})

	t.Run("window over the limit: refused from the header", func(t *testing.T) {
		// More than one block, or the writer fits the window to the data.
		wide := streamFrames(t, []zstd.EOption{zstd.WithWindowSize(4 * limit)}, []string{userLine(1, 256<<10)})
		data := append(append(append([]byte{}, header...), start...), wide...)
		res, _, _ := readAllocs(t, bytes.NewReader(data), true, dsh.Options{MaxFrameBytes: limit})
		check(t, res, dsh.VerdictCorrupt, fmt.Sprintf("needs a window of %d bytes", 4*limit))
	})

	t.Run("a line over the line limit inside a frame", func(t *testing.T) {
		data := append(append(append([]byte{}, header...), start...),
			frames(t, []string{userLine(1, 5000), fmt.Sprintf(hTurnEnd, 2)})...)
		res := readAll(data, true, dsh.Options{MaxLineBytes: 4000})
		assert.Equal(t, dsh.VerdictCorrupt, res.Verdict)
		require.NotNil(t, res.Problem)
		assert.Equal(t, dsh.KindLineTooLong, res.Problem.Kind)
		assert.EqualValues(t, 3, res.Problem.Line)
		assert.Equal(t, bombAt, res.Problem.Offset)
		assert.Contains(t, res.Problem.Message, "is 5000 bytes long")
	})
}

// TestLargeFrames reads frames too large for the shared decoder (their blocks could
// decode to more than 4 MiB) through the reader's own bounded one, and checks that
// detached records keep their lines when frames are let go of rather than reused.
func TestLargeFrames(t *testing.T) {
	shared, err := zstd.NewReader(nil)
	require.NoError(t, err)
	defer shared.Close()
	var groups [][]string
	var plain strings.Builder
	plain.WriteString(hHeader + "\n")
	groups = append(groups, []string{hHeader})
	seq := int64(0)
	for f := range 3 {
		var g []string
		for range 6 {
			line := userLine(seq, 1<<20+int(seq)+f)
			g = append(g, line)
			plain.WriteString(line + "\n")
			seq++
		}
		groups = append(groups, g)
	}
	// A frame written by a streaming writer declares no content size, as dsh's do.
	data := frames(t, groups...)
	for _, opts := range []dsh.Options{{Detached: true}, {Detached: true, Decoder: shared}} {
		res, recs, _ := readAllocs(t, bytes.NewReader(data), true, opts)
		assert.Equal(t, dsh.VerdictOK, res.Verdict, "%+v", res.Problem)
		require.Len(t, recs, int(seq))
		var got strings.Builder
		got.WriteString(hHeader + "\n")
		for _, r := range recs {
			got.Write(r.Raw)
			got.WriteByte('\n')
		}
		assert.True(t, got.String() == plain.String(), "every record keeps its own line")
	}
}

// TestDroppedRecordsAreFreed: a detached record the caller lets go of must not stay
// alive through the slabs the decoder cuts records from, nor keep its neighbours'
// lines or frames alive. 512 long lines sharing a slab were held to the end.
func TestDroppedRecordsAreFreed(t *testing.T) {
	var plain strings.Builder
	plain.WriteString(hHeader + "\n")
	var groups [][]string
	groups = append(groups, []string{hHeader})
	for seq := int64(0); seq < 300; seq += 2 {
		long, short := userLine(seq, 200<<10), userLine(seq+1, 100)
		plain.WriteString(long + "\n" + short + "\n")
		groups = append(groups, []string{long, short}) // a 200 KiB frame
	}
	for _, c := range []struct {
		name       string
		data       []byte
		compressed bool
	}{{"plain", []byte(plain.String()), false}, {"zstd", frames(t, groups...), true}} {
		t.Run(c.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			rd := dsh.NewReader(bytes.NewReader(c.data), c.compressed, dsh.Options{Detached: true})
			defer rd.Close()
			n := 0
			for {
				_, err := rd.Next()
				if err == io.EOF {
					break
				}
				require.NoError(t, err)
				n++
			}
			assert.Equal(t, 300, n)
			assert.Equal(t, dsh.VerdictOK, rd.Result().Verdict, "%+v", rd.Result().Problem)
			runtime.GC()
			runtime.ReadMemStats(&after)
			held := int64(after.HeapInuse) - int64(before.HeapInuse)
			assert.Less(t, held, int64(16<<20), "60 MiB of records read and let go of; the reader holds on to none")
		})
	}
}

// TestWideWindowSmallFrames: a small frame that declares a window under the frame
// limit but over the shared decoder's share (as a streaming writer's 8 MiB default
// does) is read, with or without a shared decoder.
func TestWideWindowSmallFrames(t *testing.T) {
	line := userLine(0, 300<<10)
	data := append(frames(t, []string{hHeader}),
		streamFrames(t, []zstd.EOption{zstd.WithWindowSize(8 << 20)}, []string{line})...)
	shared, err := zstd.NewReader(nil)
	require.NoError(t, err)
	defer shared.Close()
	for _, opts := range []dsh.Options{{}, {Decoder: shared}} {
		res := readAll(data, true, opts)
		assert.Equal(t, dsh.VerdictOK, res.Verdict, "%+v", res.Problem)
		assert.EqualValues(t, 1, res.Records)
	}
}

// TestFrameOfSeveralLongLinesIsValid holds the frame bound above the line bound with
// room for several lines of nearly the maximum length: dsh writes one frame per
// 200 ms batch, and a batch of a few big tool results is a valid log, never a bomb.
func TestFrameOfSeveralLongLinesIsValid(t *testing.T) {
	const n = 3
	line := dsh.DefaultMaxLineBytes - 1<<20
	var b strings.Builder
	b.WriteString(hStart + "\n")
	for i := range n {
		b.WriteString(userLine(int64(i+1), line) + "\n")
	}
	b.WriteString(fmt.Sprintf(hTurnEnd, n+1) + "\n")
	require.Greater(t, b.Len(), 2*dsh.DefaultMaxLineBytes, "the frame is larger than a line may be")
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderCRC(true))
	require.NoError(t, err)
	file := enc.EncodeAll([]byte(hHeader+"\n"), nil)
	file = enc.EncodeAll([]byte(b.String()), file)
	require.NoError(t, enc.Close())

	res, recs, _ := readAllocs(t, bytes.NewReader(file), true, dsh.Options{Detached: true})
	assert.Equal(t, dsh.VerdictOK, res.Verdict, "%+v", res.Problem)
	assert.Len(t, recs, n+2)
}
