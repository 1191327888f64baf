package redact_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/export/redact"
)

// realLog is a real DeepSeek-harness session in the shared corpus, outside the repo.
const realLog = "/work/shared/corpus/dsh/wzx123188-deepseekharness/session.jsonl.zstd"

// realLogDocs returns one doc per string value of each JSON line (keys are structure,
// not content), or skips when the corpus is not on this machine.
func realLogDocs(tb testing.TB) []redact.Doc {
	tb.Helper()
	f, err := os.Open(realLog)
	if os.IsNotExist(err) {
		tb.Skip("real log not present: " + realLog)
	}
	require.NoError(tb, err)
	defer f.Close()
	zr, err := zstd.NewReader(f)
	require.NoError(tb, err)
	defer zr.Close()

	var docs []redact.Doc
	br := bufio.NewReaderSize(zr, 1<<20)
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
		if len(b) > 0 {
			var v any
			if json.Unmarshal(b, &v) == nil {
				n := 0
				walkStrings(v, "", func(path, s string) {
					n++
					docs = append(docs, redact.Doc{ID: fmt.Sprintf("line-%d/%d%s", line, n, path), Text: s})
				})
			}
		}
		if err == io.EOF {
			break
		}
		require.NoError(tb, err)
	}
	return docs
}

// walkStrings calls fn for every string value in v with its JSON path.
func walkStrings(v any, path string, fn func(path, s string)) {
	switch v := v.(type) {
	case string:
		fn(path, v)
	case []any:
		for i, e := range v {
			walkStrings(e, fmt.Sprintf("%s[%d]", path, i), fn)
		}
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			walkStrings(v[k], path+"/"+k, fn)
		}
	}
}

// TestScanRealLog reports what the scanner finds in a real session that, as far as we
// know, holds no planted secrets: every finding is a candidate false positive, listed with
// its masked preview for a person to judge. It asserts nothing about the count.
func TestScanRealLog(t *testing.T) {
	docs := realLogDocs(t)
	s, err := redact.NewScanner(redact.Options{})
	require.NoError(t, err)
	r, err := s.Scan(context.Background(), docs)
	require.NoError(t, err)
	byRule := map[string]int{}
	for _, f := range r.Findings {
		byRule[string(f.Category)+"/"+f.Rule]++
	}
	t.Logf("real log: %d docs, %d bytes, %d findings; by category %v; by rule %v", r.Docs, r.Bytes, len(r.Findings), r.Counts, byRule)
	for _, f := range r.Findings {
		t.Logf("  %-18s %-22s %-40s %s", f.Category, f.Rule, f.Doc, f.Preview)
	}
}
