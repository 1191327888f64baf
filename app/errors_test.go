package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/index"
)

func TestFormatError(t *testing.T) {
	var logged bytes.Buffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logged, nil)))
	t.Cleanup(func() { slog.SetDefault(prev) })

	tests := []struct {
		name   string
		err    error
		msg    string
		status int
	}{
		{"invalid", fmt.Errorf("wrapped: %w", invalid("a session id is required")), "a session id is required", http.StatusUnprocessableEntity},
		{"busy", busy("an import is already running"), "an import is already running", http.StatusConflict},
		{"QueryError", fmt.Errorf("search: %w", &index.QueryError{Pos: 3, Msg: "unclosed quote"}), "query: col 4: unclosed quote", http.StatusUnprocessableEntity},
		{"ErrBadCursor", fmt.Errorf("search: %w", index.ErrBadCursor), "This page of results is no longer valid; run the search again.", http.StatusUnprocessableEntity},
		{"ErrNotFound", fmt.Errorf("session %q: %w", "s-1", archive.ErrNotFound), `Not found: session "s-1"`, http.StatusNotFound},
		{"bare ErrNotFound", archive.ErrNotFound, "Not found", http.StatusNotFound},
		{"Cancelled", fmt.Errorf("import: %w", context.Canceled), "Cancelled", http.StatusInternalServerError},
		{"other", fmt.Errorf("open db: %w", errors.New("disk on fire")), "Something went wrong; see the log", http.StatusInternalServerError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.msg, FormatError(tt.err))
			assert.Equal(t, tt.status, errorStatus(tt.err))
		})
	}
	assert.Contains(t, logged.String(), "open db: disk on fire", "the full chain of a hidden error is logged")
	assert.Empty(t, FormatError(nil))
}
