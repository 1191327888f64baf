package main

// `logbook search` against what people and sessions actually throw at it: a
// query that looks like a flag, a limit out of range, a query over the limits,
// symbols that are not indexed, and a session whose text holds terminal control
// sequences.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// importHostileSession imports one session whose answer holds a window-title
// escape (ESC ]0;x BEL) between two words, a flag-like word and symbols, and
// returns the data directory.
func importHostileSession(t *testing.T) string {
	t.Helper()
	lines := []string{
		`{"type":"session","version":0,"id":"session-hostile","createdAt":1786901809409,"cwd":"/home/u/p","delegationDepth":0}`,
		`{"type":"turn/start","seq":0,"time":1786901809419,"data":{"turn":1}}`,
		`{"type":"step/start","seq":1,"time":1786901809429,"data":{"turn":1,"step":1}}`,
		`{"type":"user/message","seq":2,"time":1786901809439,"data":{"id":"u-2","role":"user","content":[{"type":"text","text":"run the server with --port 8080 ✅"}],"source":{"kind":"user"}},"surfaceOp":"append"}`,
		`{"type":"assistant/message","seq":3,"time":1786901809462,"data":{"turn":1,"step":1,"message":{"id":"a-3","role":"assistant","content":[{"type":"text","text":"before \u001b]0;x\u0007 marker \u001b[2J after"}],"source":{"kind":"model","provider":"p","model":"m"}}},"surfaceOp":"append"}`,
		`{"type":"step/end","seq":4,"time":1786901809512,"data":{"turn":1,"step":1}}`,
		`{"type":"turn/end","seq":5,"time":1786901809522,"data":{"turn":1,"reason":{"kind":"completed"}}}`,
	}
	root := t.TempDir()
	p := filepath.Join(root, "p", "session-hostile", "session.jsonl")
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	data := t.TempDir()
	r := cliData(t, data, "import", root)
	require.Equal(t, 0, r.code, r.stderr)
	return data
}

func TestSearchCLIHardening(t *testing.T) {
	data := importHostileSession(t)

	t.Run("fragments are terminal-safe, the bold is ours", func(t *testing.T) {
		r := cliData(t, data, "search", "marker")
		require.Equal(t, 0, r.code, r.stderr)
		assert.Contains(t, r.stdout, "before ␛]0;x␇ \033[1mmarker\033[0m ␛[2J after")
		ours := strings.NewReplacer("\033[1m", "", "\033[0m", "").Replace(r.stdout)
		assert.NotContains(t, ours, "\x1b", "no escape from the session reaches the terminal")
		assert.NotContains(t, ours, "\x07")
		// JSON is data: the fragment keeps the session's bytes.
		res := searchJSON(t, data, "marker")
		fr := arr(t, objs(t, res["hits"])[0]["fragments"])
		assert.Contains(t, fr[0], "\x1b]0;x\x07")
	})

	t.Run("limit out of range is a usage error", func(t *testing.T) {
		for _, n := range []string{"0", "-1", "501"} {
			r := cliData(t, data, "search", "--limit", n, "marker")
			assert.Equal(t, 2, r.code, "--limit %s: %s", n, r.stdout)
			assert.Contains(t, r.stderr, "--limit must be between 1 and 500, got "+n)
			assert.Empty(t, r.stdout)
		}
		r := cliData(t, data, "search", "--json", "--limit", "500", "marker")
		assert.Equal(t, 0, r.code, r.stderr)
	})

	t.Run("a query that starts with -", func(t *testing.T) {
		r := cliData(t, data, "search", "--port")
		assert.Equal(t, 2, r.code)
		assert.Contains(t, r.stderr, "unknown flag --port; to search for text that starts with -, put -- before the query: logbook search -- --port")
		r = cliData(t, data, "search", "marker", "-1")
		assert.Equal(t, 2, r.code)
		assert.Contains(t, r.stderr, "logbook search -- -1")

		res := searchJSON(t, data, "--", "--port")
		assert.Equal(t, 1, total(t, res), "-- ends the flags: --port is searched")
		res = searchJSON(t, data, "--limit", "5", "--", "--port", "8080")
		assert.Equal(t, 1, total(t, res))
	})

	t.Run("queries over the limits exit 2 naming the limit", func(t *testing.T) {
		for _, tc := range []struct{ query, msg string }{
			{strings.Repeat("marker ", 600), "the query is 4200 bytes, over the limit of 4096 bytes"},
			{"ma~", "ma~: a typo search needs a word of at least 3 characters"},
			{strings.Repeat("w ", 65), "more than 64 terms"},
		} {
			r := cliData(t, data, "search", tc.query)
			assert.Equal(t, 2, r.code, r.stdout)
			assert.Contains(t, r.stderr, tc.msg)
		}
	})

	t.Run("emoji are found; operators have no searchable words, and say so", func(t *testing.T) {
		res := searchJSON(t, data, "✅")
		assert.Equal(t, 1, total(t, res), "the message holding ✅")
		assert.NotContains(t, res, "notice")
		r := cliData(t, data, "search", "=>")
		require.Equal(t, 0, r.code, r.stderr)
		assert.Equal(t, "note: => has no searchable words: punctuation and ASCII operators are not indexed\nNo matches.\n", r.stdout)
		res = searchJSON(t, data, "port =>")
		assert.Equal(t, 1, total(t, res))
		assert.Equal(t, "searched without =>: punctuation and ASCII operators are not indexed", res["notice"])
		assert.NotContains(t, searchJSON(t, data, "port"), "notice", "no notice when there is nothing to say")
	})
}
