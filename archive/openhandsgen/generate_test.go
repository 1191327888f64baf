package openhandsgen_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive/openhands"
	"github.com/logbook/logbook/archive/openhandsgen"
)

var layouts = openhandsgen.Layouts

var malformations = []openhandsgen.Malformation{
	openhandsgen.Gap, openhandsgen.Duplicate, openhandsgen.Unparseable, openhandsgen.UnknownKind,
	openhandsgen.MissingID, openhandsgen.BadState, openhandsgen.NoState, openhandsgen.TornTail,
}

// cases is every layout clean, legacy/confirmation/wrapped variants, and
// every applicable malformation alone and all together.
func cases() []openhandsgen.Options {
	var out []openhandsgen.Options
	seed := uint64(1)
	next := func(o openhandsgen.Options) {
		o.Seed = seed
		seed++
		out = append(out, o)
	}
	for _, l := range layouts {
		next(openhandsgen.Options{Layout: l})
		next(openhandsgen.Options{Layout: l, Confirmation: true, Turns: 5})
		next(openhandsgen.Options{Layout: l, Legacy: true, Wrapped: true})
		next(openhandsgen.Options{Layout: l, Extras: true})
		var all []openhandsgen.Malformation
		for _, m := range malformations {
			if openhandsgen.Applicable(l, m) {
				next(openhandsgen.Options{Layout: l, Malformations: []openhandsgen.Malformation{m}})
				if m != openhandsgen.NoState {
					all = append(all, m)
				}
			}
		}
		next(openhandsgen.Options{Layout: l, Malformations: all, Confirmation: true})
	}
	for _, s := range []openhandsgen.Style{openhandsgen.Compact, openhandsgen.Python, openhandsgen.Pretty} {
		next(openhandsgen.Options{Layout: openhands.LayoutSDK, Style: &s})
	}
	return out
}

func name(o openhandsgen.Options) string {
	return fmt.Sprintf("%s/seed%d/legacy=%v/confirm=%v/%v", o.Layout, o.Seed, o.Legacy, o.Confirmation, o.Malformations)
}

// TestRoundTrip holds the reader to the generator: generate, discover,
// read, compare the projection with the facts, export byte for byte.
func TestRoundTrip(t *testing.T) {
	ctx := context.Background()
	for _, opt := range cases() {
		t.Run(name(opt), func(t *testing.T) {
			root := t.TempDir()
			facts, err := openhandsgen.Generate(root, opt)
			require.NoError(t, err)

			units, err := openhands.Discover(ctx, []string{root})
			require.NoError(t, err)
			require.Equal(t, []openhands.Unit{facts.Unit}, units)

			c, err := openhands.Read(ctx, units[0])
			require.NoError(t, err)
			assert.Equal(t, facts.Verdict, c.Verdict, "problems: %v", c.Problems)
			assert.Equal(t, facts.Events, len(c.Records))
			got := map[openhands.ProblemKind]int{}
			for _, p := range c.Problems {
				got[p.Kind]++
			}
			assert.Equal(t, facts.Problems, got, "problems: %v", c.Problems)

			p := openhands.Project(c.Records)
			assertFacts(t, facts, p)
			if opt.Extras && !opt.Layout.SingleFile() || opt.Extras && opt.Layout == openhands.LayoutJSONL {
				assertParentChain(t, c)
			}

			assert.Equal(t, facts.Title, c.Meta.Title)
			assert.Equal(t, facts.Model, c.Meta.Model)
			assert.InDelta(t, facts.Cost, c.Meta.Usage.Cost, 1e-9)

			out := t.TempDir()
			require.NoError(t, openhands.Export(ctx, c, out))
			for _, f := range facts.Files {
				src := filepath.Join(facts.Unit.Path, f)
				if opt.Layout.SingleFile() {
					src = facts.Unit.Path
				}
				want, err := os.ReadFile(src)
				require.NoError(t, err)
				have, err := os.ReadFile(filepath.Join(out, f))
				require.NoError(t, err, f)
				assert.True(t, bytes.Equal(want, have), "%s differs after export", f)
			}
			assert.Len(t, c.Files, len(facts.Files))
		})
	}
}

func assertFacts(t *testing.T, f openhandsgen.Facts, p openhands.Projection) {
	t.Helper()
	users, agents := 0, 0
	for _, m := range p.Messages {
		if m.Role == "user" {
			users++
		} else {
			agents++
		}
	}
	paired, errs, rejections := 0, 0, 0
	for _, c := range p.ToolCalls {
		if c.Result == nil {
			continue
		}
		paired++
		switch c.Result.Kind {
		case openhands.ResultError:
			errs++
		case openhands.ResultRejection:
			rejections++
		}
	}
	forgotten := 0
	for _, c := range p.Compactions {
		forgotten += len(c.Forgotten)
	}
	assert.Equal(t, f.System, len(p.System), "system")
	assert.Equal(t, f.UserMessages, users, "user messages")
	assert.Equal(t, f.AgentMessages, agents, "agent messages")
	assert.Equal(t, f.Reasoning, len(p.Reasoning), "reasoning")
	assert.Equal(t, f.ToolCalls, len(p.ToolCalls), "tool calls")
	assert.Equal(t, f.Paired, paired, "paired results")
	assert.Equal(t, f.Errors, errs, "error results")
	assert.Equal(t, f.Rejections, rejections, "rejections")
	assert.Empty(t, p.Orphans, "orphans")
	assert.Equal(t, f.Groups, len(p.Groups), "parallel groups")
	assert.Equal(t, f.Compactions, len(p.Compactions), "compactions")
	assert.Equal(t, f.Forgotten, forgotten, "forgotten ids")
	assert.Equal(t, f.Approvals, len(p.Approvals), "approvals")
	assert.Equal(t, f.States, len(p.States), "states")
	assert.Equal(t, f.Tasks, len(p.Tasks), "tasks")
	assert.Equal(t, f.Other, len(p.Other), "other")
	assert.Equal(t, f.ConversationErrors, len(p.Errors), "conversation errors")
}

// TestDeterministic checks that a seed gives the same bytes twice and
// another seed different ones.
func TestDeterministic(t *testing.T) {
	for _, l := range layouts {
		a, b, c := t.TempDir(), t.TempDir(), t.TempDir()
		opt := openhandsgen.Options{Layout: l, Seed: 42, Confirmation: true}
		fa, err := openhandsgen.Generate(a, opt)
		require.NoError(t, err)
		fb, err := openhandsgen.Generate(b, opt)
		require.NoError(t, err)
		opt.Seed = 43
		fc, err := openhandsgen.Generate(c, opt)
		require.NoError(t, err)
		assert.Equal(t, fa.Files, fb.Files, l)
		assert.NotEqual(t, fa.Unit.SessionID, fc.Unit.SessionID, l)
		for _, f := range fa.Files {
			pa, pb := filepath.Join(fa.Unit.Path, f), filepath.Join(fb.Unit.Path, f)
			if l.SingleFile() {
				pa, pb = fa.Unit.Path, fb.Unit.Path
			}
			da, err := os.ReadFile(pa)
			require.NoError(t, err)
			db, err := os.ReadFile(pb)
			require.NoError(t, err)
			assert.Equal(t, da, db, "%s %s", l, f)
		}
	}
}

func TestNotApplicable(t *testing.T) {
	_, err := openhandsgen.Generate(t.TempDir(), openhandsgen.Options{Layout: openhands.LayoutAppB, Malformations: []openhandsgen.Malformation{openhandsgen.Gap}})
	require.Error(t, err)
}

// TestTree mixes every layout under one root: Discover must find each
// conversation once, with its layout and id, and nothing else.
func TestTree(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	facts, err := openhandsgen.Tree(root, 500, 40)
	require.NoError(t, err)
	units, err := openhands.Discover(ctx, []string{root})
	require.NoError(t, err)
	want := map[string]openhands.Unit{}
	for _, f := range facts {
		want[f.Unit.Path] = f.Unit
	}
	got := map[string]openhands.Unit{}
	for _, u := range units {
		got[u.Path] = u
	}
	assert.Equal(t, want, got)
	for _, f := range facts {
		c, err := openhands.Read(ctx, f.Unit)
		require.NoError(t, err)
		assert.Equal(t, f.Verdict, c.Verdict, "%s: %v", f.Unit.Path, c.Problems)
		assert.Equal(t, f.Events, len(c.Records), f.Unit.Path)
	}
}

// assertParentChain checks that parent_id is kept and, in file order, names
// the event before.
func assertParentChain(t *testing.T, c *openhands.Conversation) {
	t.Helper()
	if len(c.Records) == 0 || c.Records[0].Event.Dialect != openhands.DialectV1 {
		return
	}
	byID := map[string]int{}
	for i, r := range c.Records {
		byID[r.Event.ID] = i
	}
	for i, r := range c.Records[1:] {
		if c.Unit.Layout == openhands.LayoutAppA || c.Unit.Layout == openhands.LayoutAppB {
			// Ordered by time, so only check that the parent exists.
			_, ok := byID[r.Event.ParentID]
			assert.True(t, ok, "parent of %s", r.Event.ID)
			continue
		}
		assert.Equal(t, c.Records[i].Event.ID, r.Event.ParentID)
	}
}
