package app

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/index"
)

// inputError is a mistake in what the UI sent (or asked for at the wrong time).
// Its message is written for a person and shown as is.
type inputError struct {
	msg      string
	conflict bool // the request is valid but clashes with work in progress (HTTP 409)
}

func (e *inputError) Error() string { return e.msg }

// invalid returns an error for bad input from the UI; FormatError shows msg as is.
func invalid(msg string) error { return &inputError{msg: msg} }

// busy returns an error for a request that clashes with work already running.
func busy(msg string) error { return &inputError{msg: msg, conflict: true} }

// FormatError turns an error from an App method into the text the UI shows: known
// sentinels and input mistakes in words, everything else as a generic message with
// the full chain in the log. It is Wails' ErrorFormatter, and the HTTP server uses
// it for its error bodies.
func FormatError(err error) string {
	if err == nil {
		return ""
	}
	var ie *inputError
	var qe *index.QueryError
	switch {
	case errors.As(err, &ie):
		return ie.msg
	case errors.As(err, &qe):
		return qe.Error()
	case errors.Is(err, index.ErrBadCursor):
		return "This page of results is no longer valid; run the search again."
	case errors.Is(err, archive.ErrNotFound):
		// "session \"x\": archive: not found" reads as "Not found: session \"x\"".
		what := strings.TrimSuffix(strings.TrimSuffix(err.Error(), archive.ErrNotFound.Error()), ": ")
		if what == "" {
			return "Not found"
		}
		return "Not found: " + what
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return "Cancelled"
	}
	// Wails calls the formatter as a plain function, so it cannot reach an App's
	// logger; main makes the default logger the app's.
	slog.Default().Error("request failed", "component", "app", "err", err.Error())
	return "Something went wrong; see the log"
}

// errorStatus is the HTTP status for an error from an App method, matching the
// classes FormatError distinguishes.
func errorStatus(err error) int {
	var ie *inputError
	var qe *index.QueryError
	switch {
	case errors.As(err, &ie) && ie.conflict:
		return http.StatusConflict
	case errors.As(err, &ie), errors.As(err, &qe), errors.Is(err, index.ErrBadCursor):
		return http.StatusUnprocessableEntity
	case errors.Is(err, archive.ErrNotFound):
		return http.StatusNotFound
	}
	return http.StatusInternalServerError
}
