package archive

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/logbook/logbook/archive/format"
)

// KindDamagedUpstream is the warning on a file whose archived part changed upstream
// into a version that holds less than the archive (damaged lines, fewer events): the
// archive keeps serving its last good version and keeps the new bytes beside it.
const KindDamagedUpstream Kind = "damaged-upstream"

// HealthDamaged is the health of a session whose source was damaged (or shortened)
// upstream after it was archived: the archive still serves the last good version.
const HealthDamaged = "damaged"

// upstreamState is what files.upstream holds (see migration 0003).
type upstreamState struct {
	State      string   `json:"state"`            // damaged | shrunk
	Archived   Verdict  `json:"archived_verdict"` // the verdict of the version the archive keeps
	Verdict    Verdict  `json:"verdict"`
	Error      *Problem `json:"error,omitempty"`
	Events     int64    `json:"events"`
	LastSeq    int64    `json:"last_seq"`
	Size       int64    `json:"size"`
	DetectedAt int64    `json:"detected_at"`
}

// verdictRank orders verdicts by how much of a file they let the archive hold.
func verdictRank(v Verdict) int {
	switch v {
	case VerdictOK, VerdictRecovered:
		return 0
	case VerdictCorrupt:
		return 1
	}
	return 2
}

// guardRewrite decides what to do with a file whose archived bytes changed. It
// checks the new version first, without touching the archive: one that holds at
// least as much (a verdict as good, as many events) goes on to be read as a rewrite
// (nil, nil; the archived lines are kept as superseded ones). One that holds less is
// not taken: the archived session stays as it was and keeps being served, the file
// is flagged (the new verdict and its problem, a damaged-upstream warning, the
// session's health "damaged"), and its bytes are kept in the archive too. The
// returned report is then the file's.
func (s *Store) guardRewrite(ctx context.Context, fm format.Format, f *os.File, id identity, row *fileRow, opts ImportOptions) (*FileReport, error) {
	path := f.Name()
	chk := checkStream(fm, fm.(format.StreamReader), path, io.NewSectionReader(f, 0, id.size), id.size, opts)
	if chk.Verdict == VerdictFailed {
		return nil, fmt.Errorf("check the changed file: %w", &problemError{chk.Error})
	}
	archived := Verdict(row.verdict)
	if row.upstream != nil {
		archived = row.upstream.Archived // files.verdict is the upstream version's
	}
	older, newer := verdictRank(archived), verdictRank(chk.Verdict)
	if newer <= older && chk.LastSeq >= row.lastSeq {
		return nil, nil
	}
	up := upstreamState{State: "shrunk", Archived: archived, Verdict: chk.Verdict, Error: chk.Error, Events: chk.LogicalEvents,
		LastSeq: chk.LastSeq, Size: id.size, DetectedAt: s.Now().UnixMilli()}
	why := fmt.Sprintf("now holds fewer events (last seq %d; the archive has up to %d)", chk.LastSeq, row.lastSeq)
	if newer > older {
		up.State = "damaged"
		why = fmt.Sprintf("now reads as %s", chk.Verdict)
		if chk.Error != nil {
			why += fmt.Sprintf(" (%s: %s)", chk.Error.Kind, chk.Error.Message) // the message names the line
		}
	}
	warn := Problem{Kind: KindDamagedUpstream, Line: 0, Offset: -1,
		Message: fmt.Sprintf("the file changed in lines already archived and %s; the archive keeps serving its last good version (up to seq %d) and keeps the new bytes too. To take the new version anyway: logbook import --replace-damaged %s", why, row.lastSeq, path)}
	if chk.Error != nil {
		warn.Line, warn.Offset = chk.Error.Line, chk.Error.Offset
	}
	state, _ := json.Marshal(up)

	ftx, err := s.beginFile(ctx)
	if err != nil {
		return nil, err
	}
	defer ftx.rollback()
	tx := ftx.Tx
	var kind, msg, line, off any
	if p := chk.Error; p != nil {
		kind, msg, line, off = string(p.Kind), p.Message, p.Line, p.Offset
	}
	now := s.Now().UnixMilli()
	if _, err := tx.ExecContext(ctx, `
		UPDATE files SET size = ?, mtime_ns = ?, inode = ?, ctime_ns = ?, verdict = ?, error_kind = ?, error_line = ?,
			error_offset = ?, error_message = ?, upstream = ?, last_import = ?
		WHERE id = ?`, id.size, id.mtime, id.inode, id.ctime, string(chk.Verdict), kind, line, off, msg,
		string(state), now, row.id); err != nil {
		return nil, fmt.Errorf("flag damaged upstream: %w", err)
	}
	warnings := append(append([]Problem{}, chk.Warnings...), warn)
	if err := s.saveProblems(ctx, tx, row.id, chk.Error, warnings); err != nil {
		return nil, err
	}
	if err := saveBlob(ctx, tx, f, row.id, "upstream", 0, now); err != nil {
		return nil, err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE sessions SET health = ?, updated_at = ? WHERE pk = ?`,
		HealthDamaged, now, row.sessionPK.Int64); err != nil {
		return nil, err
	}
	if err := ftx.commit(); err != nil {
		return nil, err
	}
	fr, err := s.readReport(ctx, path, "kept", id.size)
	return &fr, err
}
