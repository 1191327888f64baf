package openhands

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/logbook/logbook/archive/internal/newfile"
)

// Export writes c's files into dir in their original layout, byte for byte:
// a folder layout's files at their relative paths, a single-file layout's
// one file under its own name. It never overwrites an existing file.
func Export(ctx context.Context, c *Conversation, dir string) error {
	for _, f := range c.Files {
		if err := ctx.Err(); err != nil {
			return err
		}
		clean := path.Clean(f.Name)
		if clean == "." || strings.HasPrefix(clean, "../") || clean == ".." || path.IsAbs(clean) {
			return fmt.Errorf("export %s: unsafe file name %q", c.Unit.Path, f.Name)
		}
		dst := filepath.Join(dir, filepath.FromSlash(clean))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return fmt.Errorf("export %s: %w", f.Name, err)
		}
		if err := newfile.Write(dst, f.Data); err != nil {
			return fmt.Errorf("export %s: %w", f.Name, err)
		}
	}
	return nil
}
