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
	seen := make(map[string]bool, len(docs))
	var bytes int64
	for _, d := range docs {
		if seen[d.ID] {
			return nil, fmt.Errorf("scan %q: %w", d.ID, ErrDuplicateDoc)
		}
		seen[d.ID] = true
		bytes += int64(len(d.Text))
	}

	names := newNameRule(s.names)
	batches := makeBatches(docs)
	perBatch := make([][]match, len(batches))
	err := s.each(ctx, len(batches), func(i int) {
		perBatch[i] = s.scanText(batches[i].text, names)
	})
	if err != nil {
		return nil, err
	}

	// A second pass finds again, everywhere, what the first found somewhere: user
	// names seen in a home path ("alice ran …") and secrets that a rule caught in one
	// place but not where they are echoed without context.
	if second := s.secondPass(batches, perBatch, names); len(second) > 0 {
		err := s.each(ctx, len(batches), func(i int) {
			text, lower := batches[i].text, asciiLower(batches[i].text)
			ms := perBatch[i]
			for _, r := range second {
				ms = r.find(text, lower, ms)
			}
			perBatch[i] = resolve(s.filter(text, ms))
		})
		if err != nil {
			return nil, err
		}
	}

	perDoc := make([][]match, len(docs))
	for i, b := range batches {
		b.split(docs, perBatch[i], perDoc)
	}
	r := &Report{Counts: map[Category]int{}, Docs: len(docs), Bytes: bytes, Ruleset: s.Ruleset()}
	for i, ms := range perDoc {
		r.Findings = append(r.Findings, s.findings(docs[i], ms)...)
	}
	for _, f := range r.Findings {
		r.Counts[f.Category]++
	}
	return r, nil
}

// secondPass returns the rules for the values the first pass found.
func (s *Scanner) secondPass(batches []batch, perBatch [][]match, names *nameRule) []detector {
	known := map[string]bool{}
	for _, n := range names.names {
		known[n] = true
	}
	var (
		newNames []string
		values   []string
		found    []match
		seen     = map[string]bool{}
	)
	for i, ms := range perBatch {
		for _, m := range ms {
			v := batches[i].text[m.start:m.end]
			switch {
			case m.rule == "home-dir-user":
				if n := strings.ToLower(v); !known[n] && !s.disabled[CategoryUser] {
					known[n] = true
					newNames = append(newNames, n)
				}
			case len(v) >= placeholderMinLen && !seen[v]:
				seen[v] = true
				values = append(values, v)
				found = append(found, m)
			}
		}
	}
	var out []detector
	if len(newNames) > 0 {
		out = append(out, newNameRule(newNames))
	}
	if len(values) > 0 {
		out = append(out, &propagation{set: newValueSet(values), found: found})
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
		secret := d.Text[m.start:m.end]
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
