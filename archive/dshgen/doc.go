// Package dshgen generates deterministic, spec-valid dsh (DeepSeek Harness) Session V0
// logs for tests and benchmarks: plain session.jsonl or multi-frame session.jsonl.zstd
// bytes, forks and subagent children, a streaming multi-gigabyte corpus writer, and a
// catalogue of malformed files with the verdict a decoder must reach for each.
//
// Everything is driven by a seeded math/rand/v2 generator: the same Options always
// produce the same bytes. The package never imports the decoder beyond the shared
// layout helpers and verdict/kind constants, so decoder tests can use it as an
// independent oracle.
//
// Two levels of API are offered. Generate(Options) writes a whole scripted session
// covering every enabled event Family. The builder (New, Session.Turn, Turn.Step,
// Step.Reply, Step.ToolResult, ...) writes exactly the events a test asks for while
// keeping seqs dense, packed rows legal and the surface model consistent.
package dshgen
