package redact_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zricethezav/gitleaks/v8/detect"

	"github.com/logbook/logbook/export/redact"
	"github.com/logbook/logbook/export/redact/secretgen"
)

// scanPlanted scans a generated corpus with the names it plants.
func scanPlanted(tb testing.TB, size int) (*redact.Scanner, secretgen.Corpus, *redact.Report) {
	tb.Helper()
	return scanSeed(tb, 1, size)
}

// scanSeed scans the corpus generated from seed.
func scanSeed(tb testing.TB, seed uint64, size int) (*redact.Scanner, secretgen.Corpus, *redact.Report) {
	tb.Helper()
	c := secretgen.Generate(seed, size)
	s, err := redact.NewScanner(redact.Options{UserNames: c.UserNames, Key: []byte("test")})
	require.NoError(tb, err)
	r, err := s.Scan(context.Background(), c.Docs)
	require.NoError(tb, err)
	return s, c, r
}

// covering returns the finding that covers text[i:i+n] of doc, if any.
func covering(r *redact.Report, doc string, i, n int) (redact.Finding, bool) {
	for _, f := range r.Findings {
		if f.Doc == doc && f.Start <= i && i+n <= f.End {
			return f, true
		}
	}
	return redact.Finding{}, false
}

func TestScanRecall(t *testing.T) {
	planted, found := map[string]int{}, map[string]int{}
	findings, docs, bytes := 0, 0, int64(0)
	unplanted := map[string]int{}
	// Several seeds, so that the rules are not fitted to one draw of values.
	for seed := uint64(1); seed <= 8; seed++ {
		_, c, r := scanSeed(t, seed, 256<<10)
		hits := map[string]bool{}
		findings, docs, bytes = findings+len(r.Findings), docs+r.Docs, bytes+r.Bytes
		text := map[string]string{}
		for _, d := range c.Docs {
			text[d.ID] = d.Text
		}
		for _, o := range c.Occurrences {
			i := strings.Index(text[o.Doc], o.Value)
			require.GreaterOrEqual(t, i, 0, "%s not planted in %s", o.Kind, o.Doc)
			planted[o.Kind]++
			f, ok := covering(r, o.Doc, i, len(o.Value))
			hits[f.ID] = true
			if assert.Truef(t, ok, "seed %d: %s not found in %s: %q", seed, o.Kind, o.Doc, text[o.Doc]) {
				found[o.Kind]++
				assert.Equalf(t, o.Category, f.Category, "%s found by %s", o.Kind, f.Rule)
			}
		}
		for _, f := range r.Findings {
			if !hits[f.ID] {
				unplanted[f.Rule+" "+f.Masked]++
			}
		}
	}
	t.Logf("findings that cover no planted secret, by rule: %v", unplanted)
	kinds := make([]string, 0, len(planted))
	for k := range planted {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	total, hit := 0, 0
	for _, k := range kinds {
		total += planted[k]
		hit += found[k]
		t.Logf("recall %-24s %d/%d", k, found[k], planted[k])
	}
	t.Logf("recall total %d/%d (%.1f%%), %d findings in %d docs, %d bytes", hit, total, 100*float64(hit)/float64(total), findings, docs, bytes)
	assert.Equal(t, total, hit)
}

func TestScanPreviewHidesSecret(t *testing.T) {
	_, _, r := scanPlanted(t, 256<<10)
	require.NotEmpty(t, r.Findings)
	for _, f := range r.Findings {
		secret := redact.SecretOf(f)
		assert.NotContains(t, f.Preview, secret, f.ID)
		assert.NotContains(t, f.Masked, secret, f.ID)
		assert.NotContains(t, f.Fingerprint, secret, f.ID)
		assert.Contains(t, f.Preview, f.Masked, f.ID)
	}
}

func TestScanStableOrderAndIDs(t *testing.T) {
	_, c, r1 := scanPlanted(t, 128<<10)
	s, err := redact.NewScanner(redact.Options{UserNames: c.UserNames, Key: []byte("test"), Workers: 1})
	require.NoError(t, err)
	r2, err := s.Scan(context.Background(), c.Docs)
	require.NoError(t, err)
	assert.Equal(t, r1.Findings, r2.Findings)
	ids := map[string]bool{}
	for _, f := range r1.Findings {
		assert.False(t, ids[f.ID], "duplicate id %s", f.ID)
		ids[f.ID] = true
	}
}

func TestScanDuplicateDoc(t *testing.T) {
	s, err := redact.NewScanner(redact.Options{})
	require.NoError(t, err)
	_, err = s.Scan(context.Background(), []redact.Doc{{ID: "a"}, {ID: "a"}})
	assert.ErrorIs(t, err, redact.ErrDuplicateDoc)
}

func TestScanOptions(t *testing.T) {
	text := "mail jane.doe@acme-corp.io from /home/jdoe/src, host 10.1.2.3, also jdoe and Zoltan"
	for _, tc := range []struct {
		name string
		opts redact.Options
		want []string // rule IDs in order
	}{
		{"OK", redact.Options{}, []string{"email", "home-dir-user", "ipv4", "user-name"}},
		{"Disabled", redact.Options{Disabled: []redact.Category{redact.CategoryEmail, redact.CategoryHost}}, []string{"home-dir-user", "user-name"}},
		{"Allow", redact.Options{Allow: []string{"10.1.2.3"}}, []string{"email", "home-dir-user", "user-name"}},
		{"UserNames", redact.Options{UserNames: []string{"zoltan"}, HomeDirs: []string{`C:\Users\jane.doe`}}, []string{"email", "home-dir-user", "ipv4", "user-name", "user-name"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := redact.NewScanner(tc.opts)
			require.NoError(t, err)
			r, err := s.Scan(context.Background(), []redact.Doc{{ID: "d", Text: text}})
			require.NoError(t, err)
			var got []string
			for _, f := range r.Findings {
				got = append(got, f.Rule)
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

// TestScanQuiet lists text agent logs are full of that must not be reported.
func TestScanQuiet(t *testing.T) {
	s, err := redact.NewScanner(redact.Options{})
	require.NoError(t, err)
	for i, text := range []string{
		"go 1.26.8, bleve v2.6.3 and version 1.2.3.4.5, MinGit-2.45.1.2-64-bit.zip",
		"listening on 127.0.0.1:8080 and 0.0.0.0:80, netmask 255.255.255.0, ::1",
		"curl -H \"Authorization: Bearer $TOKEN\" https://api.github.com",
		"export OPENAI_API_KEY=<your-key-here>",
		"API_KEY=${API_KEY}",
		"DB_PASSWORD=$DB_PASSWORD and set PGPASSWORD=%PGPASS% on Windows",
		"see docs at https://user@example.com/ and write to someone@example.com",
		"git@github.com:logbook/logbook.git and icon@2x.png",
		"12:34:56 std::vec::Vec and a::b",
		"cd /home/runner/work/logbook && ls /Users/Shared",
		"password := os.Getenv(\"DB_PASSWORD\")",
		"postgres://app:[REDACTED:connection-string#1]@[REDACTED:internal-host#1]:5432/app",
		"token, err := s.tokens.Get(ctx, key)",
	} {
		r, err := s.Scan(context.Background(), []redact.Doc{{ID: fmt.Sprint(i), Text: text}})
		require.NoError(t, err)
		for _, f := range r.Findings {
			t.Errorf("%q: %s %s %q", text, f.Category, f.Rule, f.Preview)
		}
	}
}

// TestScanCoversGitleaks checks that running gitleaks' rules on windows around their
// keywords loses nothing: every finding of a stock gitleaks detector on whole docs is
// overlapped by one of ours.
func TestScanCoversGitleaks(t *testing.T) {
	_, c, r := scanPlanted(t, 512<<10)
	stock, err := detect.NewDetectorDefaultConfig()
	require.NoError(t, err)
	byDoc := map[string][]redact.Finding{}
	for _, f := range r.Findings {
		byDoc[f.Doc] = append(byDoc[f.Doc], f)
	}
	n := 0
	for _, d := range c.Docs {
		for _, g := range stock.DetectString(d.Text) {
			n++
			i := strings.Index(d.Text, g.Secret)
			require.GreaterOrEqual(t, i, 0)
			covered := false
			for _, f := range byDoc[d.ID] {
				covered = covered || (f.Start < i+len(g.Secret) && i < f.End)
			}
			assert.True(t, covered, "%s: gitleaks %s %q not found", d.ID, g.RuleID, g.Secret)
		}
	}
	t.Logf("stock gitleaks: %d findings, all covered", n)
}

func TestWithCurrentUser(t *testing.T) {
	o := redact.WithCurrentUser(redact.Options{UserNames: []string{"zoltan"}})
	assert.Equal(t, "zoltan", o.UserNames[0])
	assert.NotEmpty(t, o.HomeDirs)
}

func TestScanCanceled(t *testing.T) {
	s, err := redact.NewScanner(redact.Options{})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = s.Scan(ctx, []redact.Doc{{ID: "a", Text: "x"}})
	assert.ErrorIs(t, err, context.Canceled)
}

func TestScanIgnoresGitleaksAllow(t *testing.T) {
	s, err := redact.NewScanner(redact.Options{})
	require.NoError(t, err)
	r, err := s.Scan(context.Background(), []redact.Doc{{ID: "a", Text: "gh = \"ghp_0123456789abcdefghijABCDEFGHIJklmnop\" # gitleaks:allow"}})
	require.NoError(t, err)
	require.Len(t, r.Findings, 1)
	assert.Equal(t, "github-pat", r.Findings[0].Rule)
}
