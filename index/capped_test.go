package index

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTermLocationsCapped(t *testing.T) {
	im, err := newMapping()
	require.NoError(t, err)
	b, err := newDocBuilder(im)
	require.NoError(t, err)
	text := strings.Repeat("spam ", maxTermLocations+40) + "eggs " + strings.Repeat("ham ", maxTermLocations)
	doc := b.document("x", blockDoc{Text: text, Session: "s"})
	var tf *textField
	var cf *cappedField
	for _, f := range doc.Fields {
		switch f := f.(type) {
		case *textField:
			tf = f
		case *cappedField:
			cf = f
		}
	}
	require.NotNil(t, tf)
	require.NotNil(t, cf)
	tf.Analyze()
	cf.Analyze()

	spam := tf.AnalyzedTokenFrequencies()["spam"]
	require.NotNil(t, spam)
	assert.Equal(t, maxTermLocations+40, spam.Frequency(), "the frequency stays whole")
	require.Len(t, spam.Locations, maxTermLocations)
	assert.Equal(t, 1, spam.Locations[0].Position, "the first occurrences keep their locations")
	assert.Equal(t, maxTermLocations, spam.Locations[maxTermLocations-1].Position)
	assert.Len(t, tf.AnalyzedTokenFrequencies()["ham"].Locations, maxTermLocations, "at the cap: not capped")
	assert.Equal(t, 2*maxTermLocations+41, tf.AnalyzedLength())

	capped := cf.AnalyzedTokenFrequencies()
	require.Len(t, capped, 1)
	require.NotNil(t, capped["spam"])
	assert.Empty(t, capped["spam"].Locations)
}

// A phrase past the cap is found by its block's stored text, and only where
// the words stand together.
func TestPhrasePastTheCap(t *testing.T) {
	ix := openIndex(t)
	filler := strings.Repeat("deploy the service now ", maxTermLocations+10)
	src := texts(
		filler+"deploy rollback_window closed", // b0: the phrase past the cap of "deploy"
		filler+"rollback_window deploy closed", // b1: the words, not the phrase
		"deploy rollback_window closed",        // b2: the phrase, nothing capped
		filler+"closed deploy",                 // b3: "deploy closed" nowhere
		"plain words deploy",                   // b4
	)
	_, err := ix.Sync(context.Background(), src, nil)
	require.NoError(t, err)

	for _, tc := range []struct {
		query string
		want  []string
	}{
		{`"deploy rollback_window"`, []string{"b0", "b2"}},
		{`"deploy rollback_window closed"`, []string{"b0", "b2"}},
		{`"rollback_window deploy"`, []string{"b1"}},
		{`"deploy closed"`, []string{"b1"}}, // b3 holds both words, apart
		{`"closed deploy"`, []string{"b3"}},
		{`"deploy the service"`, []string{"b0", "b1", "b3"}},
		// One typed word that analyzes to a phrase of its parts.
		{`rollback_window`, []string{"b0", "b1", "b2"}},
	} {
		got := searchAll(t, ix, Query{Text: tc.query})
		assert.ElementsMatch(t, tc.want, got, tc.query)
		res, err := ix.Search(context.Background(), Query{Text: tc.query})
		require.NoError(t, err)
		assert.Equal(t, uint64(len(tc.want)), res.Total, "total of %s", tc.query)
		// A negated phrase is evaluated exactly: it must leave the capped
		// matches out too.
		neg := searchAll(t, ix, Query{Text: "closed -" + tc.query})
		for _, id := range tc.want {
			assert.NotContains(t, neg, id, "closed -%s", tc.query)
		}
	}
}

func TestPhraseIn(t *testing.T) {
	for _, tc := range []struct {
		text      string
		positions [][]string
		want      bool
	}{
		{"a b c", [][]string{{"b"}, {"c"}}, true},
		{"a b c", [][]string{{"c"}, {"b"}}, false},
		{"a b c", [][]string{{"a"}, nil, {"c"}}, true},
		{"a x c", [][]string{{"a"}, nil, {"c"}}, true},
		{"a c", [][]string{{"a"}, nil, {"c"}}, false},
		{"a b c", [][]string{{"a"}, {"x", "b"}}, true},
		{"getUserName now", [][]string{{"name"}, {"now"}}, true},
		{"", [][]string{{"a"}}, false},
	} {
		assert.Equal(t, tc.want, phraseIn([]byte(tc.text), tc.positions), "%q in %q", tc.positions, tc.text)
	}
}
