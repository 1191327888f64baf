// Package exporttest builds sessions for export tests: a dsh log whose messages,
// reasoning, tool arguments, tool output and titles carry the secrets
// export/redact/secretgen plants, so a test can export it and look for them.
package exporttest

import (
	"strings"

	"github.com/logbook/logbook/archive/dshgen"
	"github.com/logbook/logbook/export/redact/secretgen"
)

// Planted returns a generated session carrying every doc of secretgen.Generate(seed,
// 0) in the kind of block the doc names, and the corpus (its Secrets and
// Occurrences are what an export must not contain after redaction).
func Planted(seed uint64, id string) (*dshgen.Log, secretgen.Corpus) {
	return PlantedSize(seed, id, 0)
}

// PlantedSize is Planted with about size bytes of text: secretgen.Generate(seed,
// size)'s docs, its secrets and clean filler between them.
func PlantedSize(seed uint64, id string, size int) (*dshgen.Log, secretgen.Corpus) {
	c := secretgen.Generate(seed, size)
	s := dshgen.New(dshgen.Options{Seed: seed, ID: id, Cwd: "/work/planted", ASCII: true, BatchLines: 16})
	s.Preamble()
	docs := c.Docs
	for len(docs) > 0 {
		s.Turn(func(tb *dshgen.Turn) {
			h := tb.User("Please look at the failing deploy.")
			// Up to four docs per turn, each in a step of its own.
			for n := 0; n < 4 && len(docs) > 0; n++ {
				d := docs[0]
				docs = docs[1:]
				switch kind := d.ID[strings.LastIndex(d.ID, "/")+1:]; kind {
				case "title":
					s.Title(d.Text, "user", []int64{h})
				case "message":
					tb.Step(func(st *dshgen.Step) { st.Reply(dshgen.Text(d.Text)) })
				case "reasoning":
					tb.Step(func(st *dshgen.Step) { st.Reply(dshgen.Reasoning(d.Text), dshgen.Text("Looking.")) })
				case "tool-args":
					tb.Step(func(st *dshgen.Step) {
						calls := st.Reply(dshgen.ToolCall("bash", d.Text))
						st.RunTool(calls[0], dshgen.Result{Text: "done"})
					})
				case "tool-output":
					tb.Step(func(st *dshgen.Step) {
						calls := st.Reply(dshgen.ToolCall("bash", `{"command":"cat notes.txt"}`))
						st.RunTool(calls[0], dshgen.Result{Text: d.Text})
					})
				}
			}
			tb.Step(func(st *dshgen.Step) { st.Reply(dshgen.Text("Done.")) })
		})
	}
	return s.Log(), c
}

// Hostile is a session whose texts try to break out of every container an export
// puts them in: fences, <details>, HTML comments, script and image payloads. A
// payload that ran would set window.pwned.
func Hostile(id string) *dshgen.Log {
	s := dshgen.New(dshgen.Options{Seed: 99, ID: id, Cwd: "/work/a|b\\c", BatchLines: 4})
	s.Preamble()
	s.Turn(func(tb *dshgen.Turn) {
		h := tb.User("look: <script>window.pwned=1</script> and <img src=x onerror=\"window.pwned=2\">\n```\nunclosed fence from the user")
		s.Title("<script>window.pwned=4</script> title --> `x`", "user", []int64{h})
		tb.Step(func(st *dshgen.Step) {
			calls := st.Reply(dshgen.Reasoning("thinking ```` four ticks\n</details>\n<!-- comment"),
				dshgen.Text("answer with </details> and </summary>\n<div>\n\n~~~\nopen tilde"),
				dshgen.ToolCall("bash", "{\"command\":\"echo '```' && cat <<EOF\\n</script>\\nEOF\"}"))
			st.RunTool(calls[0], dshgen.Result{Text: "``````\n</details>\n<img src=x onerror=\"window.pwned=3\">\n```text"})
		})
		tb.Step(func(st *dshgen.Step) {
			calls := st.Reply(dshgen.ToolCall("read", `{"file_path":"main.go"}`))
			st.RunTool(calls[0], dshgen.Result{Text: "package main\n\nfunc main() {}\n", Approval: dshgen.ApprovalAllowedOnce})
		})
		tb.Compact(false)
	})
	return s.Log()
}
