package redact_test

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/export/redact"
)

// redactAll applies rd to every doc.
func redactAll(rd *redact.Redactor, docs []redact.Doc) []redact.Doc {
	out := make([]redact.Doc, len(docs))
	for i, d := range docs {
		out[i] = redact.Doc{ID: d.ID, Text: rd.Redact(d)}
	}
	return out
}

func TestRedactRescanFindsNothingAccepted(t *testing.T) {
	s, c, r := scanPlanted(t, 512<<10)
	rd := r.Redactor(redact.Decisions{})
	redacted := redactAll(rd, c.Docs)

	byID := map[string]string{}
	for _, d := range redacted {
		byID[d.ID] = d.Text
	}
	for _, o := range c.Occurrences {
		assert.NotContains(t, byID[o.Doc], o.Value, "%s survived in %s", o.Kind, o.Doc)
	}

	accepted := map[string]bool{}
	for _, f := range r.Findings {
		accepted[f.Fingerprint] = true
	}
	again, err := s.Scan(context.Background(), redacted)
	require.NoError(t, err)
	for _, f := range again.Findings {
		assert.False(t, accepted[f.Fingerprint], "re-scan found accepted %s %s: %q", f.Category, f.Rule, f.Preview)
	}
	t.Logf("re-scan of %d redacted docs: %d findings (none accepted before)", len(redacted), len(again.Findings))
}

func TestRedactPlaceholdersConsistent(t *testing.T) {
	_, c, r := scanPlanted(t, 512<<10)
	rd := r.Redactor(redact.Decisions{})
	byID := map[string]string{}
	for _, d := range redactAll(rd, c.Docs) {
		byID[d.ID] = d.Text
	}
	docs := map[string]string{}
	for _, d := range c.Docs {
		docs[d.ID] = d.Text
	}
	placeholderRe := regexp.MustCompile(`^\[REDACTED:[a-z0-9-]+#[0-9]+\]$`)
	byValue := map[string]string{}  // planted form → placeholder
	byHolder := map[string]string{} // placeholder → planted form
	for _, o := range c.Occurrences {
		f, ok := covering(r, o.Doc, strings.Index(docs[o.Doc], o.Value), len(o.Value))
		require.True(t, ok, o.Kind)
		if redact.SecretOf(f) != o.Value {
			continue // found inside a larger secret, such as a name inside an e-mail address
		}
		p := rd.Placeholder(f)
		assert.Regexp(t, placeholderRe, p)
		assert.Contains(t, byID[o.Doc], p)
		if prev, ok := byValue[o.Value]; ok {
			assert.Equal(t, prev, p, "%s got two placeholders", o.Kind)
		}
		if prev, ok := byHolder[p]; ok {
			assert.Equal(t, prev, o.Value, "two secrets share %s", p)
		}
		byValue[o.Value], byHolder[p] = p, o.Value
	}
	assert.NotEmpty(t, byValue)
}

func TestRedactDecisions(t *testing.T) {
	_, c, r := scanPlanted(t, 256<<10)
	var email redact.Finding
	for _, f := range r.Findings {
		if f.Category == redact.CategoryEmail {
			email = f
			break
		}
	}
	require.NotEmpty(t, email.ID)
	var token redact.Finding
	for _, f := range r.Findings {
		if f.Rule == "github-pat" {
			token = f
			break
		}
	}
	require.NotEmpty(t, token.ID)

	for _, tc := range []struct {
		name      string
		d         redact.Decisions
		kept      func(f redact.Finding) bool
		keptCount int
	}{
		{"AcceptAll", redact.Decisions{}, func(redact.Finding) bool { return false }, 0},
		{"RejectCategory", redact.Decisions{Categories: map[redact.Category]bool{redact.CategoryEmail: false}},
			func(f redact.Finding) bool { return f.Category == redact.CategoryEmail }, r.Counts[redact.CategoryEmail]},
		{"AcceptOnlyCategory", redact.Decisions{
			Categories: map[redact.Category]bool{redact.CategoryEmail: true},
			Findings:   map[string]bool{token.ID: false}},
			func(f redact.Finding) bool { return f.ID == token.ID }, 1},
		{"FindingOverridesCategory", redact.Decisions{
			Categories: map[redact.Category]bool{redact.CategoryEmail: false},
			Findings:   map[string]bool{email.ID: true}},
			func(f redact.Finding) bool { return f.Category == redact.CategoryEmail && f.ID != email.ID },
			r.Counts[redact.CategoryEmail] - 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rd := r.Redactor(tc.d)
			sum := rd.Summary()
			assert.Equal(t, tc.keptCount, sum.Kept)
			total := 0
			for _, n := range sum.Redacted {
				total += n
			}
			assert.Equal(t, len(r.Findings)-tc.keptCount, total)

			docs := map[string]redact.Doc{}
			for _, d := range c.Docs {
				docs[d.ID] = d
			}
			accepted := map[string]bool{}
			for _, f := range r.Findings {
				if !tc.kept(f) {
					accepted[f.Fingerprint] = true
				}
			}
			for _, f := range r.Findings {
				out := rd.Redact(docs[f.Doc])
				secret := redact.SecretOf(f)
				// A secret accepted anywhere is redacted everywhere; one kept
				// everywhere stays.
				if accepted[f.Fingerprint] {
					assert.NotContains(t, out, secret, f.ID)
				} else {
					assert.Contains(t, out, secret, f.ID)
				}
			}
		})
	}
}

func TestRedactSummaryHasNoSecrets(t *testing.T) {
	_, _, r := scanPlanted(t, 256<<10)
	sum := r.Redactor(redact.Decisions{}).Summary()
	b, err := json.Marshal(sum)
	require.NoError(t, err)
	rep, err := json.Marshal(r)
	require.NoError(t, err)
	for _, f := range r.Findings {
		assert.NotContains(t, string(b), redact.SecretOf(f))
		assert.NotContains(t, string(rep), redact.SecretOf(f), f.Rule)
	}
	assert.Equal(t, r.Counts, sum.Redacted)
	assert.NotEmpty(t, sum.Ruleset)
	t.Logf("summary: %s", b)
}

func TestRedactPositionsOfChangedText(t *testing.T) {
	s, err := redact.NewScanner(redact.Options{})
	require.NoError(t, err)
	doc := redact.Doc{ID: "d", Text: "token ghp_0123456789abcdefghijABCDEFGHIJklmnop here"}
	r, err := s.Scan(context.Background(), []redact.Doc{doc})
	require.NoError(t, err)
	require.Len(t, r.Findings, 1)
	rd := r.Redactor(redact.Decisions{})
	assert.Equal(t, "token [REDACTED:github-pat#1] here", rd.Redact(doc))
	// The same ID with other text (an export rendered differently) is still redacted by value.
	moved := redact.Doc{ID: "d", Text: "## ghp_0123456789abcdefghijABCDEFGHIJklmnop"}
	assert.Equal(t, "## [REDACTED:github-pat#1]", rd.Redact(moved))
}
