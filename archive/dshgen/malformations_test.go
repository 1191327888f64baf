package dshgen

import (
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/logbook/logbook/archive/dsh"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var validKinds = map[string]bool{"": true}

func init() {
	for _, k := range []dsh.Kind{dsh.KindEmptyFile, dsh.KindBadHeader, dsh.KindUnsupportedVersion, dsh.KindTornTail,
		dsh.KindBadFrame, dsh.KindBadChecksum, dsh.KindBadJSON, dsh.KindBadEvent, dsh.KindMalformedPackedRow,
		dsh.KindBadSourceSeqs, dsh.KindBadSurfaceOp, dsh.KindSeqGap, dsh.KindSeedLength} {
		validKinds[string(k)] = true
	}
}

func TestMalformationsCatalogue(t *testing.T) {
	cases := Malformations()
	require.Greater(t, len(cases), 150)
	names := map[string]bool{}
	verdicts := map[string]bool{string(dsh.VerdictOK): true, string(dsh.VerdictRecovered): true,
		string(dsh.VerdictCorrupt): true, string(dsh.VerdictUnsupported): true}
	for _, c := range cases {
		assert.Falsef(t, names[c.Name], "duplicate case %s", c.Name)
		names[c.Name] = true
		assert.Truef(t, verdicts[c.Verdict], "%s: verdict %q", c.Name, c.Verdict)
		assert.Truef(t, validKinds[c.Kind], "%s: kind %q", c.Name, c.Kind)
		assert.Equalf(t, c.Verdict == "ok", c.Kind == "", "%s: ok iff no kind", c.Name)
		assert.Equalf(t, strings.HasPrefix(c.Name, "zstd/") || strings.HasSuffix(c.Name, "-zstd"), c.Compressed, "%s", c.Name)
	}
	// Both forms of every record-level problem exist.
	for name := range names {
		if base, ok := strings.CutSuffix(name, "/committed"); ok {
			assert.Truef(t, names[base+"/tail"], "%s has no tail form", base)
		}
	}
	assert.Equal(t, cases, Malformations(), "deterministic")
}

func TestMalformationsPlainVerdicts(t *testing.T) {
	for _, c := range Malformations() {
		if c.Compressed {
			continue
		}
		got := checkPlain(c.Data)
		assert.Equalf(t, verdict{c.Verdict, c.Kind, c.Line}, got, "%s", c.Name)
	}
}

func TestMalformationsZstd(t *testing.T) {
	dec, err := zstd.NewReader(nil)
	require.NoError(t, err)
	defer dec.Close()
	for _, c := range Malformations() {
		if !c.Compressed {
			continue
		}
		out, err := dec.DecodeAll(c.Data, nil)
		switch {
		case c.Verdict == "ok":
			require.NoErrorf(t, err, "%s", c.Name)
			assert.Equalf(t, verdict{"ok", "", 0}, checkPlain(out), "%s", c.Name)
		case c.Kind == string(dsh.KindEmptyFile):
			assert.Empty(t, c.Data)
		case c.Kind == string(dsh.KindBadChecksum):
			require.Errorf(t, err, "%s", c.Name)
			assert.ErrorIsf(t, err, zstd.ErrCRCMismatch, "%s", c.Name)
		case c.Kind == string(dsh.KindTornTail):
			assert.Errorf(t, err, "%s", c.Name)
		case strings.Contains(c.Name, "header-frame-two-lines"), strings.Contains(c.Name, "header-frame-no-newline"),
			strings.Contains(c.Name, "ends-mid-record"), strings.Contains(c.Name, "skippable"):
			// Framing-only damage: a generic decoder reads straight through it.
			require.NoErrorf(t, err, "%s", c.Name)
		case c.Kind == string(dsh.KindBadFrame):
			require.Errorf(t, err, "%s", c.Name)
			assert.NotErrorIsf(t, err, zstd.ErrCRCMismatch, "%s", c.Name)
		case c.Name == "zstd/only-torn-header-frame":
			assert.Error(t, err)
		default: // record or header problems inside complete frames
			require.NoErrorf(t, err, "%s", c.Name)
			got := checkPlain(out)
			assert.Equalf(t, c.Kind, got.k, "%s", c.Name)
			assert.Equalf(t, c.Line, got.line, "%s", c.Name)
		}
	}
}
