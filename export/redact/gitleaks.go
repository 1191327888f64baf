package redact

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/spf13/viper"
	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/report"
)

// gitleaksVersion is the gitleaks module version pinned in go.mod, for the Ruleset record.
const gitleaksVersion = "v8.30.1"

// gitleaksRules runs gitleaks' default ruleset on text.
//
// A few rules have keywords that are in most agent text ("key", "token", "ey", "s.")
// and regexps without a literal prefix, so run on whole docs they cost more than all
// other rules together. Each of those runs alone, on windows around its keywords where
// the shape its regexp needs is present; the rest run on whole docs.
type gitleaksRules struct {
	whole    *detect.Detector // every rule but the windowed ones, on whole docs
	windowed []windowedRule
}

// windowedRule is one gitleaks rule that runs on windows around its keywords.
type windowedRule struct {
	det           *detect.Detector
	keywords      []string
	before, after int
	keep          func(text string, at, end int) bool
}

// windowedRules are the gitleaks rules run on windows, with the window each needs and
// the check that a keyword occurrence can start a match.
var windowedRules = map[string]windowedRule{
	// (?i)[\w.-]{0,50}?(?:access|auth|…|token)(?:[ \t\w.-]{0,20})[\s'"]{0,3}(?:=|>|…|,)[\x60'"\s=]{0,5}(value{10,150})
	"generic-api-key": {before: 52, after: 200, keep: func(text string, _, end int) bool { return assignmentFollows(text, end) }},
	// \b(ey[a-zA-Z0-9]{17,}\.ey…
	"jwt": {before: 1, after: 200, keep: func(text string, at, _ int) bool {
		return text[at:at+2] == "ey" && wordStart(text, at) && alnumRun(text, at+2) >= 17
	}},
	// \b((?:hvs\.[\w-]{90,120}|s\.(?i:[a-z0-9]{24})))
	"vault-service-token": {before: 1, after: 130, keep: func(text string, at, end int) bool {
		return wordStart(text, at) && alnumRun(text, end) >= 24
	}},
}

// newGitleaksRules builds the detectors from the default config embedded in gitleaks. It
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
	g := &gitleaksRules{whole: detect.NewDetector(subset(cfg, func(id string) bool {
		_, ok := windowedRules[id]
		return !ok
	}))}
	for id, w := range windowedRules {
		r, ok := cfg.Rules[id]
		if !ok {
			return nil, fmt.Errorf("gitleaks default config has no %s rule", id)
		}
		for _, k := range r.Keywords {
			w.keywords = append(w.keywords, strings.ToLower(k))
		}
		// Detect only reads the config and the keyword trie, and returns its findings
		// instead of collecting them, so one detector serves all workers.
		w.det = detect.NewDetector(subset(cfg, func(rid string) bool { return rid == id }))
		g.windowed = append(g.windowed, w)
	}
	return g, nil
}

// subset returns cfg with only the rules keep accepts, and their keywords.
func subset(cfg config.Config, keep func(id string) bool) config.Config {
	out := cfg
	out.Rules = map[string]config.Rule{}
	out.Keywords = map[string]struct{}{}
	out.OrderedRules = nil
	for _, id := range cfg.OrderedRules {
		r, ok := cfg.Rules[id]
		if !ok || !keep(id) {
			continue
		}
		out.Rules[id] = r
		out.OrderedRules = append(out.OrderedRules, id)
		for _, k := range r.Keywords {
			out.Keywords[strings.ToLower(k)] = struct{}{}
		}
	}
	return out
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

func (g *gitleaksRules) find(text, lower string, out []match) []match {
	out = g.detect(g.whole, text, span{0, len(text)}, out)
	for _, w := range g.windowed {
		keep := func(at, end int) bool { return w.keep(text, at, end) }
		for _, seg := range windows(text, lower, w.keywords, w.before, w.after, keep) {
			// A long value may run past the window; take it whole.
			for seg.end < len(text) && seg.end-seg.start < 8192 && !isSpace(text[seg.end]) {
				seg.end++
			}
			for seg.end < len(text) && !utf8.RuneStart(text[seg.end]) {
				seg.end++
			}
			out = g.detect(w.det, text, seg, out)
		}
	}
	return out
}

// detect runs d on text[seg.start:seg.end].
func (g *gitleaksRules) detect(d *detect.Detector, text string, seg span, out []match) []match {
	part := text[seg.start:seg.end]
	var lines lineIndex
	for _, f := range d.DetectString(part) {
		start, end, ok := g.locate(part, &lines, f)
		if !ok {
			continue
		}
		out = append(out, match{
			start: seg.start + start, end: seg.start + end,
			rule: f.RuleID, cat: gitleaksCategory(f.RuleID), prio: gitleaksPriority(f.RuleID),
		})
	}
	return out
}

// assignmentFollows reports whether an assignment operator follows a keyword ending at
// end within the 20 name characters and 3 quotes or blanks the catch-all rule allows.
func assignmentFollows(text string, end int) bool {
	for j := end; j < len(text) && j < end+24; j++ {
		switch c := text[j]; {
		case strings.IndexByte("=>:|?,", c) >= 0:
			return true
		case isAlnum(c) || strings.IndexByte(" \t\r\n_.-'\"", c) >= 0:
		default:
			return false
		}
	}
	return false
}

// wordStart reports whether a word starts at text[at], as \b before it requires.
func wordStart(text string, at int) bool {
	return at == 0 || !(isAlnum(text[at-1]) || text[at-1] == '_')
}

// alnumRun returns how many ASCII letters and digits start at text[from].
func alnumRun(text string, from int) int {
	n := 0
	for from+n < len(text) && isAlnum(text[from+n]) {
		n++
	}
	return n
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

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
