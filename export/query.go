package export

import (
	"context"
	"fmt"
	"strings"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/index"
)

// MaxQuerySessions bounds the sessions of a bundle a search chooses (`logbook
// export --query`, and the Export dialog of search results).
const MaxQuerySessions = 1000

// queryPages is how many pages of hits (index.MaxLimit each) QuerySessions
// reads before it asks session by session instead. A page costs what its hits
// cost (their stored fields and highlights): measured on 200 generated
// sessions (15,475 blocks), a page took about 40 ms and asking one session
// under 1 ms, so reading all 31 pages of agent:dsh took 1.25 s and one page
// then 199 sessions asked 0.12 s; a search matching most of a large archive
// would read thousands of pages.
const queryPages = 2

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
// query language of `logbook search`, filters included), those of its newest
// hits first. It does not stop at the pages a result list has loaded, so a
// bundle of a search holds all its sessions: it reads the hits page by page
// and, for a search with more hits than a few pages hold, asks of each session
// not found yet whether the search has a hit in it, so the cost grows with the
// archive's sessions, not with the hits. A search finding more than max
// sessions (MaxQuerySessions for a bundle) gets a *TooManySessionsError, never
// a silently cut bundle; a query the language refuses the index's
// *index.QueryError.
func QuerySessions(ctx context.Context, s *archive.Store, ix *index.Index, q string, max int) ([]string, error) {
	return querySessions(ctx, s, ix, q, max, queryPages)
}

func querySessions(ctx context.Context, s *archive.Store, ix *index.Index, q string, max, pages int) ([]string, error) {
	var ids []string
	seen := map[string]bool{}
	add := func(id string) error {
		if seen[id] {
			return nil
		}
		if len(ids) == max {
			return &TooManySessionsError{Query: q, Max: max}
		}
		seen[id] = true
		ids = append(ids, id)
		return nil
	}
	// A query too long to narrow (index.MaxQueryBytes) is read to its last page.
	probe := len(inSession(q, strings.Repeat("x", 128))) <= index.MaxQueryBytes
	cursor := ""
	for page := 0; !probe || page < pages; page++ {
		res, err := ix.Search(ctx, index.Query{Text: q, Sort: index.SortRecent, Limit: index.MaxLimit, Cursor: cursor})
		if err != nil {
			return nil, err
		}
		for _, h := range res.Hits {
			if err := add(h.SessionID); err != nil {
				return nil, err
			}
		}
		if res.NextCursor == "" || len(res.Hits) == 0 {
			return ids, nil
		}
		cursor = res.NextCursor
	}
	// More hits than the pages held: ask each session not found yet, most
	// recently active first.
	list, err := s.ListSessions(ctx, archive.SessionFilter{})
	if err != nil {
		return nil, err
	}
	for _, sess := range list {
		if seen[sess.ID] {
			continue
		}
		res, err := ix.Search(ctx, index.Query{Text: inSession(q, sess.ID), Limit: 1})
		if err != nil {
			return nil, err
		}
		if len(res.Hits) > 0 {
			if err := add(sess.ID); err != nil {
				return nil, err
			}
		}
	}
	return ids, nil
}

// inSession is search q narrowed to one session: q as a group, and a session:
// filter with the id quoted (as the query language quotes a phrase).
func inSession(q, id string) string {
	id = strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(id)
	return "(" + q + `) session:"` + id + `"`
}
