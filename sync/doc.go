// Package sync holds the movement of data in and out of Logbook: watching
// agent session folders for new or changed logs, HTTP push from other
// machines, and remotes (a folder, later S3) that the archive syncs to,
// behind one small Remote interface with a shared conformance suite.
//
// The name shadows the standard library's sync, so importers always alias it:
//
//	import arcsync "github.com/logbook/logbook/sync"
//
// Subpackages:
//
//   - follow: follows the import roots while the app, serve or watch runs:
//     fsnotify watches, debounced imports of what changed, a torn tail of a live
//     file held as "still being written", and a slow rescan where watching is
//     not possible.
//
//   - Remote (this package) and its implementations fsremote, s3remote and
//     memremote, checked by remotetest; crypt (age encryption, opaque names);
//     repo (content-addressed pieces, per-machine manifests, conflicts).
//     The design is in DESIGN.md.
package sync
