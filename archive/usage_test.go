package archive_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/archivetest"
	"github.com/logbook/logbook/archive/dshgen"
)

// logUsage sums the usage of a dsh log's assistant/message events, per turn and
// per UTC day, read straight from the JSONL.
func logUsage(t *testing.T, data []byte) (total archive.Tokens, perTurn map[string]archive.Tokens, perDay map[string]archive.Tokens) {
	t.Helper()
	perTurn, perDay = map[string]archive.Tokens{}, map[string]archive.Tokens{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var rows []json.RawMessage
		line := sc.Bytes()
		if bytes.HasPrefix(line, []byte("[")) {
			require.NoError(t, json.Unmarshal(line, &rows))
		} else {
			rows = []json.RawMessage{line}
		}
		for _, r := range rows {
			var ev struct {
				Type string `json:"type"`
				Time int64  `json:"time"`
				Data struct {
					Turn  int64 `json:"turn"`
					Usage *struct {
						In     int64 `json:"inputTokens"`
						Out    int64 `json:"outputTokens"`
						Cache  int64 `json:"cacheReadTokens"`
						Reason int64 `json:"reasoningTokens"`
					} `json:"usage"`
				} `json:"data"`
			}
			if json.Unmarshal(r, &ev) != nil || ev.Type != "assistant/message" || ev.Data.Usage == nil {
				continue
			}
			u := ev.Data.Usage
			add := func(m map[string]archive.Tokens, k string) {
				v := m[k]
				v.Input, v.Output, v.CacheRead, v.Reasoning = v.Input+u.In, v.Output+u.Out, v.CacheRead+u.Cache, v.Reasoning+u.Reason
				m[k] = v
			}
			add(perTurn, strconv.FormatInt(ev.Data.Turn, 10))
			add(perDay, time.UnixMilli(ev.Time).UTC().Format("2006-01-02"))
			total.Input, total.Output, total.CacheRead, total.Reasoning = total.Input+u.In, total.Output+u.Out, total.CacheRead+u.Cache, total.Reasoning+u.Reason
		}
	}
	require.NoError(t, sc.Err())
	return total, perTurn, perDay
}

func sumRows(rows []archive.UsageRow) map[string]archive.Tokens {
	out := map[string]archive.Tokens{}
	for _, r := range rows {
		v := out[r.Key]
		v.Input, v.Output, v.CacheRead, v.Reasoning = v.Input+r.Tokens.Input, v.Output+r.Tokens.Output, v.CacheRead+r.Tokens.CacheRead, v.Reasoning+r.Tokens.Reasoning
		out[r.Key] = v
	}
	return out
}

// TestUsage: per-turn and per-day usage, the dashboard's totals and its tool and
// approval counts agree with what the logs say, counted from the JSONL itself.
func TestUsage(t *testing.T) {
	ctx := context.Background()
	s := archivetest.MustOpen(t)
	dir := t.TempDir()
	day := int64(24 * time.Hour / time.Millisecond)
	var logs []*dshgen.Log
	for i, cwd := range []string{"/home/u/a", "/home/u/b"} {
		l := dshgen.Generate(dshgen.Options{Seed: uint64(40 + i), Turns: 4, Cwd: cwd, CreatedAt: 1767225600000 + int64(i)*3*day,
			Families: dshgen.FamilyTools | dshgen.FamilyApprovals})
		path, err := l.WriteFile(dir, false)
		require.NoError(t, err)
		_, err = s.Import(ctx, []string{path}, archive.ImportOptions{})
		require.NoError(t, err)
		logs = append(logs, l)
	}
	var all archive.Tokens
	allDays := map[string]archive.Tokens{}
	for _, l := range logs {
		total, perTurn, perDay := logUsage(t, l.JSONL())
		require.NotZero(t, total.Input)
		rows, err := s.SessionUsage(ctx, l.ID())
		require.NoError(t, err)
		assert.Equal(t, perTurn, sumRows(rows), l.ID())
		for _, r := range rows {
			assert.NotEmpty(t, r.Model)
		}
		all = all.Add(total)
		for k, v := range perDay {
			allDays[k] = allDays[k].Add(v)
		}
	}

	r, err := s.Usage(ctx, archive.UsageFilter{})
	require.NoError(t, err)
	assert.Equal(t, all, r.Totals)
	assert.Equal(t, all, r.Dated)
	assert.Equal(t, allDays, sumRows(r.Days))
	assert.Equal(t, int64(2), r.Sessions)
	assert.Len(t, sumRows(r.Projects), 2)
	assert.Len(t, r.Longest, 2)

	var calls, errs, asked, denied int64
	for _, l := range logs {
		tc, err := s.ToolCalls(ctx, l.ID())
		require.NoError(t, err)
		for _, c := range tc {
			calls++
			if c.IsError {
				errs++
			}
		}
		for _, a := range l.Facts().Approvals {
			asked++
			if a.Outcome == dshgen.ApprovalRejected || a.Outcome == dshgen.ApprovalCancelled || a.Outcome == dshgen.ApprovalUnavailable {
				denied++
			}
		}
	}
	assert.Equal(t, calls, r.ToolCalls)
	assert.Equal(t, errs, r.ToolErrors)
	assert.Equal(t, asked, r.Approvals)
	assert.Equal(t, denied, r.ApprovalsDenied)

	// A project filter keeps that project only; a later SinceMs drops the first.
	one, err := s.Usage(ctx, archive.UsageFilter{Project: "/home/u/b"})
	require.NoError(t, err)
	assert.Equal(t, int64(1), one.Sessions)
	later, err := s.Usage(ctx, archive.UsageFilter{SinceMs: 1767225600000 + 2*day})
	require.NoError(t, err)
	assert.Equal(t, one.Dated, later.Dated)

	// Re-importing changes nothing.
	for _, l := range logs {
		path, err := l.WriteFile(dir, false)
		require.NoError(t, err)
		_, err = s.Import(ctx, []string{path}, archive.ImportOptions{})
		require.NoError(t, err)
	}
	again, err := s.Usage(ctx, archive.UsageFilter{})
	require.NoError(t, err)
	assert.Equal(t, r.Dated, again.Dated)
}

// TestUsageFollowsAReplacedSource: a session whose source was rewritten and read
// again in full (--replace-damaged) has the usage of its new lines only; the old
// lines' rows go with the views derived from them.
func TestUsageFollowsAReplacedSource(t *testing.T) {
	ctx := context.Background()
	s := archivetest.MustOpen(t)
	dir := t.TempDir()
	long := dshgen.Generate(dshgen.Options{Seed: 77, Turns: 6, Families: dshgen.FamilyTools})
	path, err := long.WriteFile(dir, false)
	require.NoError(t, err)
	_, err = s.Import(ctx, []string{path}, archive.ImportOptions{})
	require.NoError(t, err)

	short := dshgen.Generate(dshgen.Options{Seed: 77, Turns: 2, Families: dshgen.FamilyTools})
	require.Equal(t, long.ID(), short.ID(), "the same session, rewritten shorter")
	require.NoError(t, os.WriteFile(path, short.JSONL(), 0o644))
	_, err = s.Import(ctx, []string{path}, archive.ImportOptions{ReplaceDamaged: true})
	require.NoError(t, err)

	_, perTurn, _ := logUsage(t, short.JSONL())
	rows, err := s.SessionUsage(ctx, short.ID())
	require.NoError(t, err)
	assert.Equal(t, perTurn, sumRows(rows), "no usage row is left from the replaced lines")
}
