package openhands_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/logbook/logbook/archive/openhands"
)

// FuzzReadJSONL feeds arbitrary bytes to the JSONL reader: it must not
// panic, must keep the bytes exactly, and every record must point at its
// own bytes.
func FuzzReadJSONL(f *testing.F) {
	f.Add([]byte(`{"id":"a","kind":"PauseEvent"}` + "\n" + `{"id": 1, "action": "run"}` + "\n"))
	f.Add([]byte("{\"id\":\"a\",\"kind\":\"MessageEvent\"}\r\n\n  \n{\"id\":\"a\""))
	f.Add([]byte(`[1,2]` + "\n" + `{"kind":"X"}` + "\n" + `{"id":"b","kind":"ActionEvent","action":"oops"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "events.jsonl")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := openhands.Read(context.Background(), openhands.Unit{Path: p, Layout: openhands.LayoutJSONL})
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Files) != 1 || !bytes.Equal(c.Files[0].Data, data) {
			t.Fatalf("kept bytes differ from the input")
		}
		for _, r := range c.Records {
			end := r.Offset + int64(len(r.Raw))
			if r.Offset < 0 || end > int64(len(data)) || !bytes.Equal(data[r.Offset:end], r.Raw) {
				t.Fatalf("record %d does not point at its bytes", r.Index)
			}
			if r.Event.ID == "" {
				t.Fatalf("record %d has no id", r.Index)
			}
		}
		_ = openhands.Project(c.Records)
	})
}
