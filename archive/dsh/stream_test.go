package dsh_test

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive/dsh"
	"github.com/logbook/logbook/archive/dshgen"
	"github.com/logbook/logbook/archive/format"
)

// streamed is what one read of a stream gave: its records as Prepare derived them
// (with the stamp after each), its result and its checks' findings.
type streamed struct {
	recs   []format.StreamRecord
	stamps [][]byte
	res    format.StreamResult
	finish []format.Problem
}

func readStream(t *testing.T, st format.Stream) streamed {
	t.Helper()
	var out streamed
	for {
		rec, err := st.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		st.Prepare(&rec)
		out.recs = append(out.recs, rec)
		out.stamps = append(out.stamps, st.Stamp(&rec))
	}
	out.res, out.finish = st.Result(), st.Finish()
	return out
}

// TestStreamResumesFromAStamp: a read resumed from the stamp of any durable record,
// with the records before it replayed, gives the records after it and the same
// findings as one read from the start, for plain and zstd files.
func TestStreamResumesFromAStamp(t *testing.T) {
	l := dshgen.Generate(dshgen.Options{Seed: 11, ID: "session-s", Cwd: "/home/u/proj", Turns: 8})
	for _, compressed := range []bool{false, true} {
		data, path := l.JSONL(), "/x/--home-u-proj--/session-s/session.jsonl"
		if compressed {
			data, path = l.Zstd(), path+".zstd"
		}
		f := dsh.Format{}
		st, err := f.Open(format.StreamSource{Path: path, Data: bytes.NewReader(data)})
		require.NoError(t, err)
		whole := readStream(t, st)
		facts := st.Session()
		st.Close()
		require.NotNil(t, facts)
		assert.Equal(t, "session-s", facts.ID)
		require.Equal(t, format.VerdictOK, whole.res.Verdict, "%+v", whole.res.Problem)
		require.Greater(t, len(whole.recs), 20)

		resumed := 0
		for i, rec := range whole.recs {
			if rec.At.Line != rec.Record.Line || i+1 == len(whole.recs) {
				continue // not durable here (inside a zstd frame), or nothing after it
			}
			off, ok := f.Offset(whole.stamps[i])
			require.True(t, ok)
			assert.Equal(t, rec.At.Offset, off)
			st, err := f.Open(format.StreamSource{Path: path, Data: bytes.NewReader(data[off:]),
				Stamp: whole.stamps[i], Header: facts.Raw})
			require.NoError(t, err)
			r, ok := st.(format.Replayer)
			require.True(t, ok, "dsh's checks span the session")
			require.NoError(t, r.Replay(1, facts.Raw))
			for _, done := range whole.recs[:i+1] {
				require.NoError(t, r.Replay(done.Record.Line, done.Record.Raw))
			}
			rest := readStream(t, st)
			st.Close()
			require.Len(t, rest.recs, len(whole.recs)-i-1, "resumed after line %d", rec.Record.Line)
			for k, got := range rest.recs {
				want := whole.recs[i+1+k]
				assert.Equal(t, want.Record.Line, got.Record.Line)
				assert.Equal(t, want.Record.Raw, got.Record.Raw)
				assert.Equal(t, want.Shadows, got.Shadows)
			}
			assert.Equal(t, whole.res.LastSeq, rest.res.LastSeq)
			assert.Equal(t, whole.res.Stamp, rest.res.Stamp)
			assert.Equal(t, whole.finish, rest.finish)
			resumed++
		}
		assert.Positive(t, resumed)
	}
}

// TestStreamRefusesABadHeader: a file whose header is refused opens, has no
// session, gives no record, and its result says why.
func TestStreamRefusesABadHeader(t *testing.T) {
	st, err := dsh.Format{}.Open(format.StreamSource{Path: "session.jsonl", Data: bytes.NewReader([]byte("{\"type\":\"nope\"}\n"))})
	require.NoError(t, err)
	defer st.Close()
	assert.Nil(t, st.Session())
	_, err = st.Next()
	assert.ErrorIs(t, err, io.EOF)
	res := st.Result()
	assert.Equal(t, format.VerdictCorrupt, res.Verdict)
	require.NotNil(t, res.Problem)
	assert.Equal(t, format.KindBadHeader, res.Problem.Kind)
	name, compressed := st.Layout()
	assert.Equal(t, "v0", name)
	assert.False(t, compressed)
}

// TestSniffTellsADshHeader: the first line of a dsh log is dsh's, another JSON
// line is not.
func TestSniffTellsADshHeader(t *testing.T) {
	l := dshgen.Generate(dshgen.Options{Seed: 1, ID: "s", Turns: 1})
	assert.True(t, dsh.Format{}.Sniff(l.Header()))
	assert.False(t, dsh.Format{}.Sniff([]byte(`{"id":1,"kind":"MessageEvent"}`)))
	_, ok := dsh.Format{}.Offset([]byte("not a stamp"))
	assert.False(t, ok)
}
