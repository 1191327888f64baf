// Package index will hold Logbook's Bleve full-text index of archived
// sessions. The index is derived from the archive and disposable: it can be
// deleted and rebuilt from the SQLite archive at any time, and searches return
// IDs, scores and highlights that callers hydrate from the archive. No Bleve
// type appears in this package's exported API.
//
// Reserved: no code lives here yet.
package index
