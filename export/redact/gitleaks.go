package redact

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	ahocorasick "github.com/BobuSumisu/aho-corasick"
	"github.com/spf13/viper"
	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/report"
)

// gitleaksVersion is the gitleaks module version pinned in go.mod, for the Ruleset record.
const gitleaksVersion = "v8.30.1"

// gitleaksRules runs gitleaks' default ruleset on text.
//
// gitleaks' own Detect runs a rule's regexp on the whole text whenever one of the
// rule's keywords is anywhere in it. On agent logs, where "key", "token", "api" or "ey"
// are in nearly every batch of text, that walks most regexps over most bytes, and
// Go's regexp has no literal prefix to skip ahead with for most of them. So each rule
// gets its own detector and runs only on merged windows around its keywords; gitleaks
// still decides every match (regexp, secret group, entropy, allowlists).
type gitleaksRules struct {
	rules     []gitleaksRule
	keywords  *ahocorasick.Trie
	byPattern [][]int // keyword pattern number → indexes into rules
	patterns  []string
}

// gitleaksRule is one gitleaks rule and the window its matches need around a keyword.
type gitleaksRule struct {
	id            string
	det           *detect.Detector
	before, after int
	keep          func(text string, at, end int) bool // nil keeps every keyword hit
}

// The window around a keyword: most rules' matches start at most ~50 name characters
// before it ("[\w.-]{0,50}?(?:keyword)") and end within a few hundred bytes after.
const (
	gitleaksBefore = 128
	gitleaksAfter  = 512
)

// gitleaksWindows are rules whose keywords are in most agent text, with the check that
// a keyword occurrence can start a match, and rules whose matches are long.
var gitleaksWindows = map[string]gitleaksRule{
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
	"private-key": {before: 16, after: 16384},
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
	for id := range gitleaksWindows {
		if _, ok := cfg.Rules[id]; !ok {
			return nil, fmt.Errorf("gitleaks default config has no %s rule", id)
		}
	}
	g := &gitleaksRules{}
	pattern := map[string]int{}
	for _, id := range cfg.OrderedRules {
		r := cfg.Rules[id]
		// Rules on file paths need a path, and rules without keywords would run on
		// everything; the default ruleset has only path rules among those.
		if r.Regex == nil || r.Path != nil || len(r.Keywords) == 0 {
			continue
		}
		gr, ok := gitleaksWindows[id]
		if !ok {
			gr = gitleaksRule{before: gitleaksBefore, after: gitleaksAfter}
		}
		gr.id = id
		// Detect only reads the config and the keyword trie, and returns its findings
		// instead of collecting them, so one detector serves all workers.
		gr.det = detect.NewDetector(subset(cfg, func(rid string) bool { return rid == id }))
		// A "gitleaks:allow" comment in a pasted file asks a repository scan to look
		// away; it must not keep a secret out of an export.
		gr.det.IgnoreGitleaksAllow = true
		for _, k := range r.Keywords {
			k = strings.ToLower(k)
			n, ok := pattern[k]
			if !ok {
				n = len(g.patterns)
				pattern[k] = n
				g.patterns = append(g.patterns, k)
				g.byPattern = append(g.byPattern, nil)
			}
			g.byPattern[n] = append(g.byPattern[n], len(g.rules))
		}
		g.rules = append(g.rules, gr)
	}
	g.keywords = ahocorasick.NewTrieBuilder().AddStrings(g.patterns).Build()
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
	spans := make(map[int][]span)
	g.keywords.Walk([]byte(lower), func(end, n, pattern int64) bool {
		at, e := int(end-n+1), int(end+1)
		for _, ri := range g.byPattern[pattern] {
			r := &g.rules[ri]
			if r.keep != nil && !r.keep(text, at, e) {
				continue
			}
			spans[ri] = append(spans[ri], span{max(0, at-r.before), min(len(text), e+r.after)})
		}
		return true
	})
	ids := make([]int, 0, len(spans))
	for ri := range spans {
		ids = append(ids, ri)
	}
	slices.Sort(ids)
	for _, ri := range ids {
		for _, seg := range mergeSpans(spans[ri]) {
			// A long value may run past the window; take it whole.
			for seg.end < len(text) && seg.end-seg.start < 16384 && !isSpace(text[seg.end]) {
				seg.end++
			}
			for seg.start > 0 && !utf8.RuneStart(text[seg.start]) {
				seg.start--
			}
			for seg.end < len(text) && !utf8.RuneStart(text[seg.end]) {
				seg.end++
			}
			out = g.detect(g.rules[ri].det, text, seg, out)
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

// assignmentFollows reports whether the text after a keyword ending at end has the
// shape the catch-all rule needs: up to 20 more name characters, up to 3 quotes or
// blanks, an operator, up to 5 quotes, blanks or "=", and a value of 10 or more
// token characters. It is a cheaper superset of the rule's regexp.
func assignmentFollows(text string, end int) bool {
	j := skipSet(text, end, 20, func(c byte) bool { return isAlnum(c) || strings.IndexByte(" \t_.-", c) >= 0 })
	j = skipSet(text, j, 3, func(c byte) bool { return strings.IndexByte(" \t\r\n'\"", c) >= 0 })
	isOp := func(c byte) bool { return strings.IndexByte("=>:|?,", c) >= 0 }
	if j >= len(text) || !isOp(text[j]) {
		return false
	}
	j = skipSet(text, j, 3, isOp)
	j = skipSet(text, j, 5, func(c byte) bool { return strings.IndexByte("`'\" \t\r\n=", c) >= 0 })
	v := skipSet(text, j, 10, func(c byte) bool { return isAlnum(c) || strings.IndexByte("_.=-+/", c) >= 0 })
	return v-j >= 10
}

// skipSet returns the offset after at most n bytes from i that in accepts.
func skipSet(text string, i, n int, in func(byte) bool) int {
	for k := 0; i < len(text) && k < n && in(text[i]); k++ {
		i++
	}
	return i
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
