package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/export"
)

// cmdExport runs `logbook export`: a session as logical JSONL, or the bytes kept
// aside for it; as Markdown or HTML, whole or in part; or sessions in a bundle.
func cmdExport(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	format := fs.String("format", "jsonl", "export format: jsonl, md, html, bundle, or openhands (the conversation's original files, into -o DIR)")
	out := fs.String("o", "", "write to FILE instead of standard output (never over an existing file without --force)")
	force := fs.Bool("force", false, "with -o: replace an existing FILE (or link)")
	render := addRenderFlags(fs) // md, html, bundle: cmd_export_render.go
	sel := addSelectFlags(fs)    // bundle's sessions, md and html's turns: cmd_export_select.go
	kept := fs.String("kept", "", "instead of the archived session, the bytes the archive kept aside for it: upstream (a damaged or shorter version of the source it did not take), original (a corrupt or unsupported file), tail (a dropped torn tail)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if *format != "jsonl" && *format != "openhands" && !isRenderFormat(*format) {
		return usageError{fmt.Errorf("unknown format %q (supported: jsonl, md, html, bundle, openhands)", *format)}
	}
	if err := sel.check(*format, pos); err != nil {
		return err
	}
	if *format == export.FormatBundle && *out == "" {
		return usageError{fmt.Errorf("a bundle is a zip file: write it with -o FILE.logbook")}
	}
	if err := render.check(*format, *out); err != nil {
		return err
	}
	if *format == "openhands" && (*out == "" || *kept != "") {
		return usageError{fmt.Errorf("--format openhands writes the conversation's files into a folder: name it with -o DIR")}
	}
	if *kept != "" && *format != "jsonl" {
		return usageError{fmt.Errorf("--kept exports raw bytes: use it with --format jsonl")}
	}
	switch *kept {
	case "", "upstream", "original", "tail":
	default:
		// Checked with the other flags, before the archive is opened or -o FILE made.
		return usageError{fmt.Errorf("--kept must be upstream, original or tail, got %q", *kept)}
	}
	s, err := e.openArchive(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	if *format == export.FormatBundle {
		return exportBundle(ctx, e, s, pos, sel, render, *out, *force)
	}
	id := ""
	if len(pos) == 1 {
		id = pos[0]
	}
	if *sel.around != "" {
		if id, err = sel.hitSession(pos); err != nil {
			return err
		}
	}
	// Resolve the session before touching -o FILE: an unknown id must leave an
	// existing file alone rather than truncate it and then delete it.
	sess, err := s.Session(ctx, id)
	if err != nil {
		return err
	}
	if *format == "openhands" {
		// The files under their original names, byte for byte; an existing file
		// is never overwritten (--force does not apply to a folder's contents).
		return s.ExportOriginal(ctx, sess.ID, *out)
	}
	if isRenderFormat(*format) {
		return exportRendered(ctx, e, s, sess.ID, *format, render, sel, *out, *force)
	}
	var w io.Writer = e.stdout
	var f *outFile
	if *out != "" {
		if f, err = createOut(*out, *force); err != nil {
			return err
		}
		w = f
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	if *kept != "" {
		err = exportKept(ctx, s, sess.ID, *kept, bw)
	} else {
		err = s.ExportJSONL(ctx, sess.ID, bw)
	}
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	if f != nil {
		err = f.finish(err)
	}
	return err
}

// exportKept writes the bytes of kind the archive kept for the session's file (the
// file's own bytes, as they were on disk, not logical JSONL); cmdExport checked kind.
func exportKept(ctx context.Context, s *archive.Store, sessionID, kind string, w io.Writer) error {
	files, err := s.SessionFiles(ctx, sessionID)
	if err != nil {
		return err
	}
	for _, f := range files {
		if _, err := s.KeptBytes(ctx, f.Path, kind, w); !errors.Is(err, archive.ErrNotFound) {
			return err
		}
	}
	return fmt.Errorf("no %s bytes are kept for session %s", kind, sessionID)
}
