// Package openhands reads OpenHands conversation logs losslessly.
//
// It knows every on-disk form described in shared/docs/openhands-events.md:
// SDK/CLI EventLog folders, bare CLI trajectory folders, the GUI app-server
// layouts A and B, agent-server/webhook JSONL, exported conversation zips,
// V0 session folders and V0 trajectory arrays. Discover finds conversations,
// Read decodes one into a Conversation that keeps every source file's exact
// bytes, ReadSince re-reads only what changed, Project turns events into a
// neutral, format-independent Projection, and Export writes a conversation
// back byte for byte.
//
// The package does pure decoding: no SQL, no network, and it imports nothing
// else from this module, so it can sit behind the archive's format seam.
// It never executes or unpickles anything (*.pkl files are listed as skipped).
package openhands
