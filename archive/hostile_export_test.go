package archive

import (
	"context"
	"database/sql"
	"io"
)

// KeptBytesOf is Store.KeptBytes for tests that hold the archive's file open
// themselves (a *sql.DB of their own).
func KeptBytesOf(ctx context.Context, d *sql.DB, path, kind string, w io.Writer) (int64, error) {
	return keptBytes(ctx, d, path, kind, w)
}
