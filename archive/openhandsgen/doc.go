// Package openhandsgen generates OpenHands conversations for tests and
// benchmarks: deterministic for a seed, in every layout package openhands
// reads, with condensations, rejections, errors, parallel calls, reasoning
// and task lists, and with malformed variants (gaps, duplicates, unparseable
// files, unknown kinds, missing ids, unreadable or missing state files, a torn
// JSONL tail). Generate returns Facts: what it wrote, counted while writing,
// so a test can hold the reader to it without trusting the reader.
package openhandsgen
