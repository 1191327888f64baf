package redact

import (
	"fmt"
	"strings"

	"github.com/spf13/viper"
	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/report"
)

// gitleaksVersion is the gitleaks module version pinned in go.mod, for the Ruleset record.
const gitleaksVersion = "v8.30.1"

// gitleaksRules runs gitleaks' default ruleset on text.
type gitleaksRules struct {
	det *detect.Detector
}

// newGitleaksRules builds a detector from the default config embedded in gitleaks. It
// uses its own viper instance instead of detect.NewDetectorDefaultConfig, which reads
// into viper's global one and so is not safe next to anything else using viper.
func newGitleaksRules() (*gitleaksRules, error) {
	v := viper.New()
	v.SetConfigType("toml")
	if err := v.ReadConfig(strings.NewReader(config.DefaultConfig)); err != nil {
		return nil, fmt.Errorf("read gitleaks default config: %w", err)
	}
	var vc config.ViperConfig
	if err := v.Unmarshal(&vc); err != nil {
		return nil, fmt.Errorf("decode gitleaks default config: %w", err)
	}
	cfg, err := vc.Translate()
	if err != nil {
		return nil, fmt.Errorf("compile gitleaks default config: %w", err)
	}
	// Detect only reads the config and the keyword trie, and returns its findings
	// instead of collecting them, so one detector serves all workers.
	return &gitleaksRules{det: detect.NewDetector(cfg)}, nil
}

// gitleaksCategory maps a gitleaks rule ID to our category; most of its rules are tokens.
func gitleaksCategory(rule string) Category {
	switch rule {
	case "private-key":
		return CategoryPrivateKey
	case "curl-auth-header", "curl-auth-user":
		return CategoryBearer
	}
	return CategoryToken
}

// gitleaksPriority ranks gitleaks' catch-all rule below our rules and its specific ones
// above them.
func gitleaksPriority(rule string) int {
	switch rule {
	case "generic-api-key":
		return prioGeneric
	case "private-key":
		return prioPrivateKey
	}
	return prioGitleaks
}

func (g *gitleaksRules) find(text, _ string, out []match) []match {
	var lines lineIndex
	for _, f := range g.det.DetectString(text) {
		start, end, ok := g.locate(text, &lines, f)
		if !ok {
			continue
		}
		out = append(out, match{
			start: start, end: end,
			rule: f.RuleID, cat: gitleaksCategory(f.RuleID), prio: gitleaksPriority(f.RuleID),
		})
	}
	return out
}

// locate turns gitleaks' line and column of the match into the byte range of the secret.
// gitleaks counts lines from 0 and columns from 1 after the newline that ends the
// previous line (see detect/location.go).
func (g *gitleaksRules) locate(text string, lines *lineIndex, f report.Finding) (int, int, bool) {
	if f.Secret == "" {
		return 0, 0, false
	}
	ms := f.StartColumn - 1
	if f.StartLine > 0 {
		nl := lines.newline(text, f.StartLine-1)
		if nl < 0 {
			return g.fallback(text, f)
		}
		ms += nl
	}
	if ms < 0 || ms+len(f.Match) > len(text) || text[ms:ms+len(f.Match)] != f.Match {
		return g.fallback(text, f)
	}
	i := strings.Index(f.Match, f.Secret)
	if i < 0 {
		return g.fallback(text, f)
	}
	return ms + i, ms + i + len(f.Secret), true
}

// fallback finds the secret by value when the reported position does not check out; the
// Redactor replaces every occurrence of an accepted secret anyway.
func (g *gitleaksRules) fallback(text string, f report.Finding) (int, int, bool) {
	i := strings.Index(text, f.Secret)
	if i < 0 {
		return 0, 0, false
	}
	return i, i + len(f.Secret), true
}

// lineIndex finds newline offsets on first use; most docs have no findings.
type lineIndex struct {
	done bool
	nl   []int
}

// newline returns the offset of the n-th (0-based) newline, or -1.
func (l *lineIndex) newline(text string, n int) int {
	if !l.done {
		l.done = true
		for i := 0; i < len(text); i++ {
			if text[i] == '\n' {
				l.nl = append(l.nl, i)
			}
		}
	}
	if n < 0 || n >= len(l.nl) {
		return -1
	}
	return l.nl[n]
}
