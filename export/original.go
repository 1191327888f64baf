package export

import (
	"archive/zip"
	"context"
	"io"

	"github.com/logbook/logbook/archive"
)

// FormatOpenHands is an OpenHands conversation's original files, as `logbook
// export --format openhands -o DIR` writes them into a folder; for a single
// file to download, WriteOriginalZip puts them in a zip under the same names.
const FormatOpenHands = "openhands"

// WriteOriginalZip writes the original files the archive keeps of a session (an
// OpenHands conversation's layout, archive.Store.EachSourceFile) into a zip on
// w, each stored as it is (byte-identical to what ExportOriginal writes into a
// folder), one file in memory at a time. A session whose files the archive
// does not keep (a dsh log: its exact log is jsonl) gets archive.ErrNotFound.
func WriteOriginalZip(ctx context.Context, s *archive.Store, sessionID string, w io.Writer) error {
	zw := zip.NewWriter(w)
	err := s.EachSourceFile(ctx, sessionID, func(name string, data []byte) error {
		f, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate})
		if err != nil {
			return err
		}
		_, err = f.Write(data)
		return err
	})
	if err != nil {
		return err
	}
	return zw.Close()
}
