// Package format is the seam between the archive and the log formats it reads. It
// holds the types a format produces and the store consumes: the verdict on a session
// source, the problems found in it, and the schedules a session keeps. It imports
// nothing of this module, so a format package (archive/dsh, archive/openhands) and the
// store (archive) can both import it without a cycle.
package format
