package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTermSafe(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain text\n\tindented", "plain text\n\tindented"},
		{"title\x1b]0;pwned\x07", "title␛]0;pwned␇"},
		{"\x1b]52;c;ZXZpbA==\x07", "␛]52;c;ZXZpbA==␇"},
		{"\x1b[2J\x1b[H", "␛[2J␛[H"},
		{"csi\u009b2J", "csi⟨U+009B⟩2J"},
		{"abc\u202edcba", "abc⟨U+202E⟩dcba"},
		{"iso\u2066late\u2069", "iso⟨U+2066⟩late⟨U+2069⟩"},
		{"crlf\r\nline", "crlf\nline"},
		{"over\rwrite", "over␍write"},
		{"bad \xff\xfe bytes", "bad \ufffd\ufffd bytes"},
		{"del\x7f nul\x00", "del␡ nul␀"},
		{"写入权限 ✅ →", "写入权限 ✅ →"},
	} {
		assert.Equal(t, tc.want, termSafe(tc.in), "%q", tc.in)
	}
}

func TestSafeWriterKeepsSplitRunes(t *testing.T) {
	var out bytes.Buffer
	w := &safeWriter{w: &out}
	in := []byte("写入\x1b[2J权限")
	for i := range in {
		_, err := w.Write(in[i : i+1])
		require.NoError(t, err)
	}
	assert.Equal(t, "写入␛[2J权限", out.String())
}

// TestCLIViewsNeutraliseControlSequences imports a session whose prompt, answer,
// tool output, title and approval reason carry terminal control sequences and bidi
// overrides, and checks that no human-readable view prints one raw, while --json
// and export keep the bytes exact.
func TestCLIViewsNeutraliseControlSequences(t *testing.T) {
	const evil = "\x1b]0;pwned\x07\x1b]52;c;ZXZpbA==\x07\x1b[2J\u009b31m\u202eevil"
	esc := func(s string) string { q := fmt.Sprintf("%q", s); return q[1 : len(q)-1] }
	j := strings.ReplaceAll(esc(evil), `\x1b`, `\u001b`)
	j = strings.ReplaceAll(j, `\a`, `\u0007`)
	lines := []string{
		`{"type":"session","version":0,"id":"session-evil","createdAt":1786901809409,"cwd":"/home/u/p","delegationDepth":0}`,
		`{"type":"turn/start","seq":0,"time":1786901809419,"data":{"turn":1}}`,
		`{"type":"step/start","seq":1,"time":1786901809429,"data":{"turn":1,"step":1}}`,
		`{"type":"user/message","seq":2,"time":1786901809439,"data":{"id":"u-2","role":"user","content":[{"type":"text","text":"prompt ` + j + `"}],"source":{"kind":"user"}},"surfaceOp":"append"}`,
		`{"type":"session/title","seq":3,"time":1786901809440,"data":{"title":"title ` + j + `","messageSeqs":[2],"source":{"kind":"fallback"}}}`,
		`{"type":"assistant/message","seq":4,"time":1786901809462,"data":{"turn":1,"step":1,"message":{"id":"a-4","role":"assistant","content":[{"type":"text","text":"answer ` + j + `"},{"type":"tool-call","id":"c1","name":"shell","arguments":"{}"}],"source":{"kind":"model","provider":"p","model":"m"}}},"surfaceOp":"append"}`,
		`{"type":"approval/asked","seq":5,"time":1786901809472,"data":{"id":"ap-1","toolName":"shell","callId":"c1","reason":"reason ` + j + `"}}`,
		`{"type":"approval/decided","seq":6,"time":1786901809482,"data":{"id":"ap-1","outcome":"allowed-once"}}`,
		`{"type":"tool/call","seq":7,"time":1786901809492,"data":{"turn":1,"step":1,"callId":"c1","name":"shell","arguments":"{}"}}`,
		`{"type":"tool/result","seq":8,"time":1786901809502,"data":{"turn":1,"step":1,"message":{"id":"r-8","role":"user","content":[{"type":"tool-result","toolCallId":"c1","content":[{"type":"text","text":"output ` + j + `"}]}],"source":{"kind":"tool","callId":"c1"}}},"surfaceOp":"append","sourceEventSeqs":[7]}`,
		`{"type":"step/end","seq":9,"time":1786901809512,"data":{"turn":1,"step":1}}`,
		`{"type":"turn/end","seq":10,"time":1786901809522,"data":{"turn":1,"reason":{"kind":"completed"}}}`,
	}
	file := strings.Join(lines, "\n") + "\n"
	root := t.TempDir()
	p := filepath.Join(root, "p", "session-evil", "session.jsonl")
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(file), 0o644))
	data := t.TempDir()
	r := cliData(t, data, "import", root)
	require.Equal(t, 0, r.code, r.stderr)

	raw := []string{"\x1b", "\x07", "\u009b", "\u202e"}
	for _, args := range [][]string{{"sessions"}, {"show", "session-evil"}, {"approvals"}, {"import", root}} {
		r := cliData(t, data, args...)
		require.Equal(t, 0, r.code, "%v: %s", args, r.stderr)
		for _, c := range raw {
			assert.NotContains(t, r.stdout, c, "%v prints %q raw", args, c)
		}
	}
	show := cliData(t, data, "show", "session-evil")
	for _, want := range []string{"prompt ␛]0;pwned␇", "answer ␛]0;pwned␇␛]52;c;", "output ␛]0;pwned␇␛]52;c;ZXZpbA==␇␛[2J⟨U+009B⟩31m⟨U+202E⟩evil"} {
		assert.Contains(t, show.stdout, want)
	}
	exp := cliData(t, data, "export", "session-evil")
	assert.Equal(t, file, exp.stdout, "export keeps the bytes exact")
}
