// Package index is Logbook's full-text index of archived sessions, kept in Bleve.
//
// The index is derived from the archive and disposable. Each searchable block of a
// session (archive.Block: a prompt, injected context, an answer, reasoning, a tool
// call or result, a compaction summary, an approval, the title) is one document.
// Sync re-derives every session whose archive revision differs from the revision
// it was indexed at, so calling Sync at startup repairs an index the archive moved
// past while the app was down. Open discards an index written by another
// indexVersion (or one Bleve cannot read), and the next Sync rebuilds it.
//
// A session's revision is recorded in the index directory's revisions log
// (revisions.go) once Bleve has written the last of its documents, and forgotten
// there before any of them are rewritten. A crash between the archive's write and
// the index's, or in the middle of a session's batches, leaves that session
// without its new revision, so the next Sync indexes it again: the two are never
// silently out of step.
//
// Documents have one explicit type and no dynamic fields. Text is analyzed for
// code and Chinese (see newMapping and codeFilter): getUserName is found by user,
// getusername and getUserName; max_tokens by tokens; --dry-run by dry;
// src/app/main.go by main.go and by the phrase; 写入权限 by itself or by 权限. Small
// fields (session, seq, kind, role, tool, project, surface, time, error flag) are
// stored, so a hit needs no archive lookup to be listed. Invalid UTF-8 in a block
// is indexed (and shown) as U+FFFD, so the words after it are found.
//
// Speed: Sync makes each block's Bleve document itself (docBuilder) and analyzes
// its text in one pass straight into term frequencies (codeAnalyzer, held to the
// chain of Bleve filters it replaces by tests; runs of ASCII are split into words
// by asciiWords and each Han ideograph is a word of its own (hanWords), both held
// to the UAX #29 segmenter by tests). It analyses each
// document as it queues it, keeping the result compact until Bleve asks for it
// (prepared), and writes one batch at a time, so the next batch is read and
// analysed while Bleve builds the segment of the one before. During an import,
// SyncAlong indexes each session once the archive has committed it (the import
// names it: AlongFeed), filling batches across the import, so the two share
// the cores; meanwhile Bleve's merge planner counts a small segment at a
// batch's size rather than twice that, so it merges less while the import
// needs the cores (mergeplan.go). Most of what is left is Bleve's own segment
// building and merging, which costs about the same for every token. CJK text
// is indexed as bigrams only (a character standing alone as a unigram): on the
// real log, where most of the text is Chinese, that
// is a third fewer tokens than unigrams beside bigrams, and a quarter less
// indexing CPU. See BenchmarkImportSearchable for the figures.
//
// Size: the text is stored too, for highlighting. The index of the real
// 87,208-event corpus log (3,548,334 bytes of JSONL, 469 blocks, 582 KB of block
// text) takes about 1.7 MB a copy (35 MB for the 20 copies of
// BenchmarkImportSearchableRealLog, 36 MB while a block's time held 16 terms,
// 46 MB while it held CJK unigrams too). Term
// vectors (positions and offsets, which phrases and highlighting need) are the
// largest part of it.
//
// Searches are planned (plan.go): the query is evaluated on the segments' posting
// bitmaps, which give the exact total and the facets at once, and Bleve ranks,
// checks phrases and highlights only a window of the matches, so a word in
// half a million blocks answers about as fast as a rare one.
//
// No Bleve type appears in this package's exported API.
package index
