package archive

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Relations returns the parent and the child sessions of a session (sessionID may be
// an unambiguous prefix). ParentID is the header's parentSession even when that
// session is not archived; Parent is set only when it is.
func (s *Store) Relations(ctx context.Context, sessionID string) (Relations, error) {
	rel := Relations{Children: []SessionRef{}}
	tx, err := s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return rel, err
	}
	defer tx.Rollback()
	sess, err := resolveSession(ctx, tx, sessionID)
	if err != nil {
		return rel, err
	}
	var parent sql.NullString
	if err := tx.QueryRowContext(ctx, `SELECT parent_session FROM sessions WHERE pk = ?`, sess.pk).Scan(&parent); err != nil {
		return rel, fmt.Errorf("relations of %s: %w", sess.id, err)
	}
	if parent.Valid && parent.String != "" {
		rel.ParentID = parent.String
		ref, err := scanSessionRef(tx.QueryRowContext(ctx, `SELECT `+sessionRefColumns+` FROM sessions WHERE id = ?`, parent.String))
		switch {
		case err == nil:
			rel.Parent = &ref
		case !errors.Is(err, sql.ErrNoRows):
			return rel, fmt.Errorf("parent of %s: %w", sess.id, err)
		}
	}
	rows, err := tx.QueryContext(ctx, `
		SELECT `+sessionRefColumns+` FROM sessions
		WHERE parent_session = ?
		ORDER BY created_at, id`, sess.id)
	if err != nil {
		return rel, fmt.Errorf("children of %s: %w", sess.id, err)
	}
	defer rows.Close()
	for rows.Next() {
		ref, err := scanSessionRef(rows)
		if err != nil {
			return rel, err
		}
		rel.Children = append(rel.Children, ref)
	}
	return rel, rows.Err()
}

const sessionRefColumns = `id, COALESCE(title, ''), COALESCE(origin, ''), delegation_depth, created_at, health`

func scanSessionRef(row interface{ Scan(...any) error }) (SessionRef, error) {
	var r SessionRef
	var created int64
	err := row.Scan(&r.ID, &r.Title, &r.Origin, &r.DelegationDepth, &created, &r.Health)
	r.CreatedAt = msTime(created)
	return r, err
}
