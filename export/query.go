package export

import (
	"context"
	"fmt"
	"time"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/index"
)

// MaxQuerySessions bounds the sessions of a bundle a search chooses (`logbook
// export --query`, and the Export dialog of search results).
const MaxQuerySessions = 1000

// TooManySessionsError is QuerySessions' refusal of a search that finds more
// sessions than a bundle may hold.
type TooManySessionsError struct {
	Query string
	Max   int
}

func (e *TooManySessionsError) Error() string {
	return fmt.Sprintf("the search %q finds more than %d sessions, the most a bundle made from a search takes: narrow it with a project:, agent: or since: filter", e.Query, e.Max)
}

// QuerySessions returns the ids of every session of s a search finds (the
// query language of `logbook search`, filters included), in the archive's
// order of sessions (newest first). It does not stop at the pages a result
// list has loaded, so a bundle of a search holds all its sessions: the index
// evaluates the search exactly and names the sessions of its matches in one
// pass (index.Sessions). A search finding more than max sessions
// (MaxQuerySessions for a bundle) gets a *TooManySessionsError, never a
// silently cut bundle; a query the language refuses the index's
// *index.QueryError. A session the index has but the archive no longer has is
// left out.
func QuerySessions(ctx context.Context, s *archive.Store, ix *index.Index, q string, max int) ([]string, error) {
	found, err := ix.Sessions(ctx, q, time.Time{})
	if err != nil {
		return nil, err
	}
	if len(found) == 0 {
		return nil, nil
	}
	want := make(map[string]bool, len(found))
	for _, id := range found {
		want[id] = true
	}
	list, err := s.ListSessions(ctx, archive.SessionFilter{})
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, sess := range list {
		if !want[sess.ID] {
			continue
		}
		if len(ids) == max {
			return nil, &TooManySessionsError{Query: q, Max: max}
		}
		ids = append(ids, sess.ID)
	}
	return ids, nil
}
