// Import view logic: verdict order and wording, problem kinds in plain language,
// file filters, and progress arithmetic.

import type { FileStatus, ImportProgress, Verdict } from '../../api/types';

export const VERDICTS: Verdict[] = ['failed', 'corrupt', 'unsupported', 'recovered', 'ok'];

const SEVERITY: Record<string, number> = { failed: 0, corrupt: 1, unsupported: 2, recovered: 3, ok: 4 };

export const VERDICT_LABEL: Record<string, string> = {
  ok: 'OK', recovered: 'Recovered', corrupt: 'Corrupt', unsupported: 'Unsupported', failed: 'Failed',
};

export const VERDICT_MEANING: Record<string, string> = {
  ok: 'Every record was read.',
  recovered: 'An unfinished last line was dropped; everything before it is archived intact.',
  corrupt: 'Damaged inside committed data: only the part before the damage is archived.',
  unsupported: 'Written in a format version this Logbook does not read; nothing was archived.',
  failed: 'Not imported because of a fault of this machine (a full disk, a permission) or because it is not a regular file; nothing is said of its content, and the next import tries it again.',
};

export const VERDICT_COLOR: Record<string, string> = {
  ok: 'var(--ok)', recovered: 'var(--warn)', corrupt: 'var(--err)', unsupported: 'var(--shadowed)', failed: 'var(--err)',
};

const KINDS: Record<string, string> = {
  'empty-file': 'the file is empty',
  'bad-header': 'the header (line 1) is invalid',
  'unsupported-version': 'unsupported format version',
  'torn-tail': 'the last line was cut off mid-write',
  'bad-frame': 'a compressed frame is damaged',
  'bad-checksum': 'a compressed frame fails its checksum',
  'bad-json': 'a line is not valid JSON',
  'bad-event': 'an event is malformed',
  'malformed-packed-row': 'a row of streamed chunks is malformed',
  'bad-source-seqs': 'invalid source event numbers',
  'bad-surface-op': 'an invalid change to what the model sees',
  'seq-gap': 'event numbers skip or repeat',
  'bad-seed-length': 'invalid seed length in the header',
  'io-error': 'the file could not be read',
  'identity-mismatch': 'the session id does not match its folder',
  'unknown-event': 'unknown event type (skipped)',
  'legacy-event': 'an older event form',
  'lenient-header': 'header accepted leniently',
  surface: 'inconsistent record of what the model saw',
  'turn-nesting': 'turns or steps are not properly nested',
  'unpaired-tool': 'a tool call and its result do not pair up',
  'unpaired-approval': 'an approval request and its answer do not pair up',
  'unpaired-command': 'a command start and end do not pair up',
  'unpaired-retry': 'a retry does not pair up',
  compaction: 'a compaction is incomplete or inconsistent',
  schedule: 'a scheduled prompt is inconsistent',
  title: 'a title event is inconsistent',
  'interrupted-tail': 'the session stopped mid-activity',
  'line-too-long': 'a line is too long to read (skipped; its bytes are kept)',
  'frame-too-large': 'a compressed frame expands too far to read',
  'undecodable-event': 'part of an event could not be read for the views (the event is archived as written)',
  'damaged-upstream': 'the file was damaged after it was archived; the last good version is kept',
  'disk-full': 'the disk is full',
  'permission-denied': 'permission denied',
  'read-only': 'the archive cannot be written',
  interrupted: 'the import was stopped',
  'not-regular-file': 'not a regular file (a pipe or device): not read',
};

/** A problem kind slug in words ("bad-json" → "a line is not valid JSON"). */
export function kindText(kind: string | null | undefined): string {
  if (!kind) return 'problem';
  return KINDS[kind] ?? kind.replace(/-/g, ' ');
}

/** Where in the file: "line 12, byte 3,456". */
export function where(line?: number | null, offset?: number | null, seq?: number | null): string {
  const parts: string[] = [];
  if (line) parts.push(`line ${line.toLocaleString('en-US')}`);
  if (offset !== undefined && offset !== null && offset >= 0) parts.push(`byte ${offset.toLocaleString('en-US')}`);
  if (seq) parts.push(`event ${seq}`);
  return parts.join(', ');
}

const cap = (s: string) => (s ? s[0].toUpperCase() + s.slice(1) : s);

/** A problem message without the "line N:" it starts with when the line is shown beside it. */
export function trimLine(message: string, line?: number | null): string {
  const m = (message ?? '').trim();
  if (!line) return m;
  return m.replace(new RegExp(`^line ${line}:\\s*`), '');
}

export interface ErrorParts {
  what: string; // the kind, in words, capitalised
  at: string; // "line 12, byte 3,456" or ""
  message: string; // the decoder's message
}

/** A file's fatal problem in parts, or null for a file without one. */
export function errorParts(f: Pick<FileStatus, 'error_kind' | 'error_line' | 'error_offset' | 'error_message'>): ErrorParts | null {
  if (!f.error_kind && !f.error_message) return null;
  return { what: cap(kindText(f.error_kind)), at: where(f.error_line, f.error_offset), message: trimLine(f.error_message ?? '', f.error_line) };
}

/** A file's fatal problem in one sentence, or "" for a file without one. */
export function errorSentence(f: Pick<FileStatus, 'error_kind' | 'error_line' | 'error_offset' | 'error_message'>): string {
  const p = errorParts(f);
  if (!p) return '';
  return p.what + (p.at ? ` (${p.at})` : '') + (p.message ? ': ' + p.message : '');
}

export interface FileFilter {
  verdict: Verdict | '';
  flag: '' | 'gone' | 'duplicate' | 'warnings';
  text: string;
}

export const emptyFileFilter = (): FileFilter => ({ verdict: '', flag: '', text: '' });

export function filterFiles(files: FileStatus[], f: FileFilter, skip?: keyof FileFilter): FileStatus[] {
  const words = f.text.toLowerCase().split(/\s+/).filter(Boolean);
  return files.filter((x) => {
    if (skip !== 'verdict' && f.verdict && x.verdict !== f.verdict) return false;
    if (skip !== 'flag') {
      if (f.flag === 'gone' && !x.gone) return false;
      if (f.flag === 'duplicate' && !x.duplicate) return false;
      if (f.flag === 'warnings' && !x.warnings) return false;
    }
    if (words.length) {
      const hay = [x.path, x.session_id, x.error_kind, x.error_message, x.verdict].filter(Boolean).join('\n').toLowerCase();
      if (!words.every((w) => hay.includes(w))) return false;
    }
    return true;
  });
}

export type FileSort = 'severity' | 'path' | 'size' | 'imported' | 'events';

/** Worst first by default (failed, corrupt, unsupported, recovered, ok; then more warnings, then path). */
export function sortFiles(files: FileStatus[], by: FileSort = 'severity'): FileStatus[] {
  const sev = (x: FileStatus) => SEVERITY[x.verdict] ?? 9;
  const cmp: Record<FileSort, (a: FileStatus, b: FileStatus) => number> = {
    severity: (a, b) => sev(a) - sev(b) || Number(b.gone) - Number(a.gone) || b.warnings - a.warnings || a.path.localeCompare(b.path),
    path: (a, b) => a.path.localeCompare(b.path),
    size: (a, b) => b.size - a.size,
    imported: (a, b) => Date.parse(b.last_import) - Date.parse(a.last_import),
    events: (a, b) => b.events - a.events,
  };
  return [...files].sort(cmp[by]);
}

export function verdictCounts(files: FileStatus[]): Record<string, number> {
  const out: Record<string, number> = { ok: 0, recovered: 0, corrupt: 0, unsupported: 0, failed: 0 };
  for (const f of files) out[f.verdict] = (out[f.verdict] ?? 0) + 1;
  return out;
}

/** Splits a path into the root it lives under (if any), the middle and the file name. */
export function splitPath(path: string, roots: string[]): { root: string; dir: string; name: string } {
  let root = '';
  for (const r of roots) {
    const rr = r.replace(/[\\/]+$/, '');
    if (rr && (path.startsWith(rr + '/') || path.startsWith(rr + '\\')) && rr.length > root.length) root = rr;
  }
  const rest = root ? path.slice(root.length + 1) : path;
  const i = Math.max(rest.lastIndexOf('/'), rest.lastIndexOf('\\'));
  return { root, dir: i >= 0 ? rest.slice(0, i + 1) : '', name: i >= 0 ? rest.slice(i + 1) : rest };
}

/** Fraction done (0..1) of a progress event, or null when unknown. */
export function progressFraction(p: ImportProgress | null): number | null {
  if (!p) return null;
  if (p.total_bytes > 0) return Math.min(1, Math.max(0, p.done_bytes / p.total_bytes));
  if (p.files > 0) return Math.min(1, Math.max(0, p.file_index / p.files));
  return null;
}

/** The latest import time over the files (when no run happened in this process). */
export function lastImportOf(files: FileStatus[]): string | null {
  let best: string | null = null;
  let bt = -Infinity;
  for (const f of files) {
    const t = Date.parse(f.last_import);
    if (Number.isFinite(t) && t > bt) {
      bt = t;
      best = f.last_import;
    }
  }
  return best;
}
