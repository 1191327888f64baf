package redact_test

import (
	"context"
	"fmt"

	"github.com/logbook/logbook/export/redact"
)

// Example shows the flow an export follows: scan the blocks it will write, let the
// person decide, write redacted text and record the summary.
func Example() {
	docs := []redact.Doc{
		{ID: "s1/title", Text: "Fix deploy for ann.lee@acme-corp.io"},
		{ID: "s1/seq-3/tool-args", Text: `curl -H "Authorization: Bearer 9fQ2xLk81PzVb7TqR4wYc3Nd" https://api.acme-corp.io`},
		{ID: "s1/seq-4/tool-output", Text: "401 for token 9fQ2xLk81PzVb7TqR4wYc3Nd from 10.20.0.7"},
	}
	s, err := redact.NewScanner(redact.Options{Key: []byte("per-export key")})
	if err != nil {
		panic(err)
	}
	r, err := s.Scan(context.Background(), docs)
	if err != nil {
		panic(err)
	}
	for _, f := range r.Findings {
		fmt.Printf("%s %s %s %q\n", f.Doc, f.Category, f.Rule, f.Preview)
	}

	// The token was caught in the curl command and found again where the tool output
	// echoes it. The person keeps IP addresses; everything else is redacted.
	rd := r.Redactor(redact.Decisions{Categories: map[redact.Category]bool{redact.CategoryHost: false}})
	for _, d := range docs {
		fmt.Println(rd.Redact(d))
	}
	fmt.Printf("%+v\n", rd.Summary().Redacted)
	// Output:
	// s1/title email email "Fix deploy for an…io"
	// s1/seq-3/tool-args bearer curl-auth-header "curl -H \"Authorization: Bearer 9fQ2…c3Nd\" https://api.acme-corp.io"
	// s1/seq-4/tool-output bearer curl-auth-header "401 for token 9fQ2…c3Nd from 1…"
	// s1/seq-4/tool-output host ipv4 "…for token 9fQ2…c3Nd from 1…"
	// Fix deploy for [REDACTED:email#1]
	// curl -H "Authorization: Bearer [REDACTED:curl-auth-header#1]" https://api.acme-corp.io
	// 401 for token [REDACTED:curl-auth-header#1] from 10.20.0.7
	// map[bearer:2 email:1]
}
