package archive

import (
	"context"
	"errors"

	"github.com/logbook/logbook/archive/dsh"
)

// errTODO marks archive queries whose implementation is in progress.
var errTODO = errors.New("archive: not implemented yet")

// Timeline returns one page of a session's conversation.
func (s *Store) Timeline(ctx context.Context, sessionID string, q TimelineQuery) (TimelinePage, error) {
	return TimelinePage{}, errTODO
}

// Relations returns the parent and the child sessions of a session.
func (s *Store) Relations(ctx context.Context, sessionID string) (Relations, error) {
	return Relations{}, errTODO
}

// Files returns the stored verdict of every known log file, most recently imported first.
func (s *Store) Files(ctx context.Context) ([]FileStatus, error) { return nil, errTODO }

// SessionFiles returns the log files that hold a session.
func (s *Store) SessionFiles(ctx context.Context, sessionID string) ([]FileStatus, error) {
	return nil, errTODO
}

// FileProblems returns the stored fatal problem (first) and warnings of one file.
func (s *Store) FileProblems(ctx context.Context, path string) ([]dsh.Problem, error) {
	return nil, errTODO
}
