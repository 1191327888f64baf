package redact_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/export/redact"
	"github.com/logbook/logbook/export/redact/secretgen"
)

// inParts splits c's docs into n parts, their IDs prefixed with the part.
func inParts(c secretgen.Corpus, n int) [][]redact.Doc {
	parts := make([][]redact.Doc, n)
	for i, d := range c.Docs {
		p := i * n / len(c.Docs)
		parts[p] = append(parts[p], redact.Doc{ID: fmt.Sprintf("%d:%s", p, d.ID), Text: d.Text})
	}
	return parts
}

// TestScanParts: a scan of parts, one at a time, finds what a scan of all their
// docs at once finds, with the same IDs: values found in one part (a token, a user
// name in a home path) are found again where another part echoes them.
func TestScanParts(t *testing.T) {
	ctx := context.Background()
	c := secretgen.Generate(3, 256<<10)
	parts := inParts(c, 5)
	// The last part echoes, without any context a rule would fire on, a secret
	// and a home path's user name that only the first part's rules find.
	r0, err := redact.NewScanner(redact.Options{Key: []byte("k")})
	require.NoError(t, err)
	first, err := r0.Scan(ctx, parts[0])
	require.NoError(t, err)
	var long, user string
	for _, f := range first.Findings {
		s := redact.SecretOf(f)
		switch {
		case f.Rule == "home-dir-user" && user == "":
			user = s
		case f.Category == redact.CategoryToken && len(s) >= 16 && long == "":
			long = s
		}
	}
	require.NotEmpty(t, long, "the first part has a token")
	require.NotEmpty(t, user, "the first part has a home path")
	echo := redact.Doc{ID: "4:echo", Text: "plain words " + long + " and then " + user + " said so"}
	parts[4] = append(parts[4], echo)

	s, err := redact.NewScanner(redact.Options{UserNames: c.UserNames, Key: []byte("k")})
	require.NoError(t, err)
	var all []redact.Doc
	for _, p := range parts {
		all = append(all, p...)
	}
	whole, err := s.Scan(ctx, all)
	require.NoError(t, err)
	calls := map[int]int{}
	streamed, err := s.ScanParts(ctx, len(parts), func(_ context.Context, i int) ([]redact.Doc, error) {
		calls[i]++
		return parts[i], nil
	})
	require.NoError(t, err)
	assert.Equal(t, map[int]int{0: 2, 1: 2, 2: 2, 3: 2, 4: 2}, calls, "each part is read twice")
	assert.Equal(t, whole.Docs, streamed.Docs)
	assert.Equal(t, whole.Bytes, streamed.Bytes)
	assert.Equal(t, whole.Counts, streamed.Counts)
	require.Equal(t, len(whole.Findings), len(streamed.Findings))
	for i := range whole.Findings {
		assert.Equal(t, whole.Findings[i], streamed.Findings[i])
	}
	var echoed []string
	for _, f := range streamed.Findings {
		if f.Doc == echo.ID {
			echoed = append(echoed, redact.SecretOf(f))
		}
	}
	assert.ElementsMatch(t, []string{long, user}, echoed, "what part 0 found is found in part 4")

	// A redactor of the streamed report redacts each part alone as the whole
	// report's redacts all docs.
	rw, rs := whole.Redactor(redact.Decisions{}), streamed.Redactor(redact.Decisions{})
	assert.Equal(t, rw.Summary(), rs.Summary())
	for _, d := range all {
		assert.Equal(t, rw.Redact(d), rs.Redact(d), d.ID)
	}
}

func TestScanPartsChangedOrBad(t *testing.T) {
	ctx := context.Background()
	c := secretgen.Generate(4, 64<<10)
	parts := inParts(c, 3)
	s, err := redact.NewScanner(redact.Options{Key: []byte("k")})
	require.NoError(t, err)

	t.Run("ChangedPartIsScannedAfresh", func(t *testing.T) {
		calls := 0
		r, err := s.ScanParts(ctx, 2, func(_ context.Context, i int) ([]redact.Doc, error) {
			if i == 1 {
				return []redact.Doc{{ID: "1:x", Text: "nothing"}}, nil
			}
			calls++
			if calls == 1 {
				return parts[0], nil
			}
			// Shorter on the second read: positions found first would run past it.
			return []redact.Doc{{ID: "0:short", Text: "key AKIAIOSFODNN7EXAMPLQ"}}, nil
		})
		require.NoError(t, err)
		require.NotEmpty(t, r.Findings, "the part as read the second time is scanned")
		for _, f := range r.Findings {
			assert.Equal(t, "0:short", f.Doc)
			assert.LessOrEqual(t, f.End, len("key AKIAIOSFODNN7EXAMPLQ"))
		}
		assert.Equal(t, 2, r.Docs)
	})
	t.Run("OnePartIsReadOnce", func(t *testing.T) {
		calls := 0
		r, err := s.ScanParts(ctx, 1, func(context.Context, int) ([]redact.Doc, error) { calls++; return parts[0], nil })
		require.NoError(t, err)
		assert.Equal(t, 1, calls)
		whole, err := s.Scan(ctx, parts[0])
		require.NoError(t, err)
		assert.Equal(t, whole.Findings, r.Findings)
	})
	t.Run("ErrDuplicateDoc", func(t *testing.T) {
		_, err := s.ScanParts(ctx, 1, func(context.Context, int) ([]redact.Doc, error) {
			return []redact.Doc{{ID: "a", Text: "x"}, {ID: "a", Text: "y"}}, nil
		})
		assert.ErrorIs(t, err, redact.ErrDuplicateDoc)
	})
	t.Run("PartError", func(t *testing.T) {
		boom := fmt.Errorf("session gone")
		_, err := s.ScanParts(ctx, 2, func(_ context.Context, i int) ([]redact.Doc, error) {
			if i == 1 {
				return nil, boom
			}
			return parts[0], nil
		})
		assert.ErrorIs(t, err, boom)
	})
	t.Run("Canceled", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		_, err := s.ScanParts(cctx, 2, func(context.Context, int) ([]redact.Doc, error) { return parts[0], nil })
		assert.ErrorIs(t, err, context.Canceled)
	})
}
