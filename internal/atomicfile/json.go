package atomicfile

import (
	"encoding/json"
	"fmt"
	"os"
)

// WriteJSON replaces path with v as indented JSON and a final newline,
// atomically (Write).
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return Write(path, append(b, '\n'))
}

// ReadJSON decodes the JSON file at path into v. A missing file is the
// os.ReadFile error (errors.Is os.ErrNotExist); bad JSON names the file.
func ReadJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
