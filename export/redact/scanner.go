package redact

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// rulesetVersion changes whenever our own rules change what they find.
const rulesetVersion = "logbook-redact/1"

// Options configure a Scanner. The zero value scans every category with no extra names.
type Options struct {
	// Disabled lists categories not to scan for.
	Disabled []Category
	// HomeDirs are the person's home directories (such as os.UserHomeDir()); their last
	// element is taken as a user name to find everywhere.
	HomeDirs []string
	// UserNames are further names to find wherever they stand as a word (such as the
	// current user's login and full name parts).
	UserNames []string
	// Allow lists exact values that are never reported, such as a public company address.
	Allow []string
	// Key keys the fingerprints. Nil means a random key, so fingerprints are comparable
	// only within one Scanner, which is one export.
	Key []byte
	// Workers bounds parallel scanning. Zero means GOMAXPROCS.
	Workers int
}

// Scanner finds secrets in docs. It is safe for concurrent use.
type Scanner struct {
	rules    []detector
	disabled map[Category]bool
	names    []string
	allow    map[string]bool
	key      []byte
	workers  int
}

// NewScanner compiles the rules for opts.
func NewScanner(opts Options) (*Scanner, error) {
	s := &Scanner{
		disabled: map[Category]bool{},
		allow:    map[string]bool{},
		key:      opts.Key,
		workers:  opts.Workers,
	}
	for _, c := range opts.Disabled {
		s.disabled[c] = true
	}
	for _, a := range opts.Allow {
		s.allow[a] = true
	}
	if s.key == nil {
		s.key = make([]byte, 32)
		if _, err := rand.Read(s.key); err != nil {
			return nil, fmt.Errorf("fingerprint key: %w", err)
		}
	}
	if s.workers <= 0 {
		s.workers = runtime.GOMAXPROCS(0)
	}
	gl, err := newGitleaksRules()
	if err != nil {
		return nil, err
	}
	s.rules = append([]detector{gl, ipv4Rule{}, ipv6Rule{}, homePathRule{}}, ownRules()...)
	s.names = append(s.names, opts.UserNames...)
	for _, h := range opts.HomeDirs {
		h = strings.TrimRight(strings.ReplaceAll(h, `\`, "/"), "/")
		if i := strings.LastIndexByte(h, '/'); i >= 0 {
			s.names = append(s.names, h[i+1:])
		}
	}
	return s, nil
}

// Ruleset names the rules the Scanner runs.
func (s *Scanner) Ruleset() string {
	return "gitleaks " + gitleaksVersion + " default rules + " + rulesetVersion
}

// Scan scans docs in parallel and returns every finding in a stable order. It returns
// ErrDuplicateDoc if two docs share an ID, and ctx's error if ctx ends first.
func (s *Scanner) Scan(ctx context.Context, docs []Doc) (*Report, error) {
	if err := checkIDs(docs); err != nil {
		return nil, err
	}
	names := newNameRule(s.names)
	sc, err := s.firstPass(ctx, docs, names)
	if err != nil {
		return nil, err
	}
	l := newLearner(s, names)
	l.learn(sc)
	r := s.newReport()
	if err := s.finish(ctx, r, docs, sc, l.rules()); err != nil {
		return nil, err
	}
	return r, nil
}

// checkIDs returns ErrDuplicateDoc if two docs share an ID.
func checkIDs(docs []Doc) error {
	seen := make(map[string]bool, len(docs))
	for _, d := range docs {
		if seen[d.ID] {
			return fmt.Errorf("scan %q: %w", d.ID, ErrDuplicateDoc)
		}
		seen[d.ID] = true
	}
	return nil
}

// newReport is an empty Report of s's rules.
func (s *Scanner) newReport() *Report {
	return &Report{Counts: map[Category]int{}, Ruleset: s.Ruleset()}
}

// scanned is docs joined in batches and what the first pass found in each.
type scanned struct {
	batches  []batch
	perBatch [][]match
}

// firstPass runs every rule on docs, a batch at a time.
func (s *Scanner) firstPass(ctx context.Context, docs []Doc, names *nameRule) (scanned, error) {
	sc := scanned{batches: makeBatches(docs)}
	sc.perBatch = make([][]match, len(sc.batches))
	err := s.each(ctx, len(sc.batches), func(i int) {
		sc.perBatch[i] = s.scanText(sc.batches[i].text, names)
	})
	return sc, err
}

// finish runs the second pass's rules on sc (what the first pass found in docs)
// and adds docs' findings to r.
func (s *Scanner) finish(ctx context.Context, r *Report, docs []Doc, sc scanned, second []detector) error {
	// A second pass finds again, everywhere, what the first found somewhere: user
	// names seen in a home path ("alice ran …") and secrets that a rule caught in one
	// place but not where they are echoed without context.
	if len(second) > 0 {
		err := s.each(ctx, len(sc.batches), func(i int) {
			text, lower := sc.batches[i].text, asciiLower(sc.batches[i].text)
			ms := sc.perBatch[i]
			for _, r := range second {
				ms = r.find(text, lower, ms)
			}
			sc.perBatch[i] = resolve(s.filter(text, ms))
		})
		if err != nil {
			return err
		}
	}
	perDoc := make([][]match, len(docs))
	for i, b := range sc.batches {
		b.split(docs, sc.perBatch[i], perDoc)
	}
	for i, ms := range perDoc {
		fs := s.findings(docs[i], ms)
		for _, f := range fs {
			r.Counts[f.Category]++
		}
		r.Findings = append(r.Findings, fs...)
		r.Bytes += int64(len(docs[i].Text))
	}
	r.Docs += len(docs)
	return nil
}

// learner gathers, from the first pass over every doc, what the second pass finds
// again everywhere.
type learner struct {
	s        *Scanner
	known    map[string]bool
	newNames []string
	values   []string
	found    []match
	seen     map[string]bool
}

func newLearner(s *Scanner, names *nameRule) *learner {
	l := &learner{s: s, known: map[string]bool{}, seen: map[string]bool{}}
	for _, n := range names.names {
		l.known[n] = true
	}
	return l
}

// learn takes in what the first pass found in sc. The values are copied, so that
// they do not hold sc's text.
func (l *learner) learn(sc scanned) {
	for i, ms := range sc.perBatch {
		for _, m := range ms {
			v := sc.batches[i].text[m.start:m.end]
			switch {
			case m.rule == "home-dir-user":
				if n := strings.ToLower(v); !l.known[n] && !l.s.disabled[CategoryUser] {
					n = strings.Clone(n)
					l.known[n] = true
					l.newNames = append(l.newNames, n)
				}
			case len(v) >= placeholderMinLen && !l.seen[v]:
				v = strings.Clone(v)
				l.seen[v] = true
				l.values = append(l.values, v)
				l.found = append(l.found, m)
			}
		}
	}
}

// rules returns the second pass's rules for the values learnt.
func (l *learner) rules() []detector {
	var out []detector
	if len(l.newNames) > 0 {
		out = append(out, newNameRule(l.newNames))
	}
	if len(l.values) > 0 {
		out = append(out, &propagation{set: newValueSet(l.values), found: l.found})
	}
	return out
}

// each calls fn for 0..n-1 on s.workers goroutines.
func (s *Scanner) each(ctx context.Context, n int, fn func(i int)) error {
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		next int
	)
	for w := 0; w < min(s.workers, n); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= n {
					return
				}
				fn(i)
			}
		}()
	}
	wg.Wait()
	return ctx.Err()
}

// scanText runs every enabled rule on text and resolves overlaps.
func (s *Scanner) scanText(text string, names *nameRule) []match {
	if text == "" {
		return nil
	}
	lower := asciiLower(text)
	var ms []match
	for _, r := range s.rules {
		ms = r.find(text, lower, ms)
	}
	ms = names.find(text, lower, ms)
	return resolve(s.filter(text, ms))
}

// filter drops matches of disabled categories and allowed values.
func (s *Scanner) filter(text string, ms []match) []match {
	return slices.DeleteFunc(ms, func(m match) bool {
		return s.disabled[m.cat] || s.allow[text[m.start:m.end]]
	})
}

// resolve drops every match that overlaps a kept one, keeping the higher priority and
// then the longer match, and returns the rest by position.
func resolve(ms []match) []match {
	slices.SortFunc(ms, func(a, b match) int {
		if d := b.prio - a.prio; d != 0 {
			return d
		}
		if d := (b.end - b.start) - (a.end - a.start); d != 0 {
			return d
		}
		if d := a.start - b.start; d != 0 {
			return d
		}
		return strings.Compare(a.rule, b.rule)
	})
	// Kept matches never overlap, so marking their bytes makes each check cost the
	// length of the match rather than the number kept (a log dump can hold thousands).
	end := 0
	for _, m := range ms {
		end = max(end, m.end)
	}
	taken := make([]bool, end)
	kept := ms[:0]
	for _, m := range ms {
		if !slices.Contains(taken[m.start:m.end], true) {
			kept = append(kept, m)
			for i := m.start; i < m.end; i++ {
				taken[i] = true
			}
		}
	}
	slices.SortFunc(kept, func(a, b match) int { return a.start - b.start })
	return kept
}

// findings turns one doc's resolved matches into Findings.
func (s *Scanner) findings(d Doc, ms []match) []Finding {
	out := make([]Finding, 0, len(ms))
	for _, m := range ms {
		// A copy: the report outlives the text, which may be one part of many
		// (ScanParts).
		secret := strings.Clone(d.Text[m.start:m.end])
		out = append(out, Finding{
			ID:          findingID(d.ID, m),
			Doc:         d.ID,
			Category:    m.cat,
			Rule:        m.rule,
			Start:       m.start,
			End:         m.end,
			Line:        1 + strings.Count(d.Text[:m.start], "\n"),
			Masked:      mask(secret),
			Fingerprint: s.fingerprint(secret),
			secret:      secret,
		})
	}
	for i := range out {
		out[i].Preview = preview(d.Text, out, i)
	}
	return out
}

// fingerprint is a keyed hash, so a report can be shared without letting anyone confirm
// a guessed secret.
func (s *Scanner) fingerprint(secret string) string {
	h := hmac.New(sha256.New, s.key)
	h.Write([]byte(secret))
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// findingID derives a stable ID from where the finding is and which rule found it.
func findingID(doc string, m match) string {
	h := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%d\x00%d\x00%s", doc, m.start, m.end, m.rule)))
	return hex.EncodeToString(h[:6])
}
