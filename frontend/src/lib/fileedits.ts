// The Files-changed panel's logic: per path, the +/− counts of every edit and write
// the agent made, and the file's final content where the log allows reconstructing
// it (a write or create gives the whole content; edits after it are applied on top;
// an undo_edit brings back the content before the file's last edit; an apply_patch
// arrives as writes, replaces and deletes).
import type { FileEdit } from '../api/types';
import { diffCounts, diffText, splitLines } from './diff';

/** One edit of a file as the panel lists it. */
export interface EditSummary {
  seq: number;
  turn: number | null;
  op: string;
  added: number;
  removed: number;
  /** The tool reported an error: the edit did not happen and is not counted. */
  failed: boolean;
  /** Why the final content could not follow this edit ('' when it could). */
  lost: string;
}

/** One file the agent changed. */
export interface FileSummary {
  path: string;
  added: number;
  removed: number;
  edits: EditSummary[];
  /** The reconstructed final content; null when the log does not hold enough to know it. */
  final: string | null;
  /** Why final is null. */
  unknown: string;
}

/** Whether a path is the same file as another (Windows paths compare case-insensitively). */
function pathKey(p: string): string {
  return /^[a-zA-Z]:[\\/]/.test(p) ? p.replace(/\//g, '\\').toLowerCase() : p;
}

/** Replaces the first (or every) occurrence of old in s; null when old is not there. */
export function applyReplace(s: string, old: string, repl: string, all: boolean): string | null {
  if (old === '') return null;
  const i = s.indexOf(old);
  if (i < 0) return null;
  if (all) return s.split(old).join(repl);
  return s.slice(0, i) + repl + s.slice(i + old.length);
}

/** Inserts text after line n (0 = at the top) of s; null when s has fewer lines. */
export function applyInsert(s: string, n: number, text: string): string | null {
  const lines = s === '' ? [] : s.split('\n');
  const trailing = lines.length > 0 && lines[lines.length - 1] === '';
  if (trailing) lines.pop();
  if (n < 0 || n > lines.length) return null;
  const add = text === '' ? [''] : splitLines(text);
  lines.splice(n, 0, ...add);
  return lines.join('\n') + (trailing ? '\n' : '');
}

/** How many files the edits touch (what summarizeFiles would list), without reconstructing any. */
export function countFiles(edits: FileEdit[]): number {
  return new Set(edits.filter((e) => e.path).map((e) => pathKey(e.path))).size;
}

/** Groups a session's edits by file (in first-edit order), counting lines and reconstructing content. */
export function summarizeFiles(edits: FileEdit[]): FileSummary[] {
  const byPath = new Map<string, FileSummary>();
  // Per file, the content before each edit that took effect, for undo_edit.
  const history = new Map<string, (string | null)[]>();
  for (const e of [...edits].sort((x, y) => x.seq - y.seq)) {
    if (!e.path) continue;
    const key = pathKey(e.path);
    let f = byPath.get(key);
    if (!f) {
      f = { path: e.path, added: 0, removed: 0, edits: [], final: null, unknown: 'no write of the whole file was logged' };
      byPath.set(key, f);
    }
    const s: EditSummary = { seq: e.seq, turn: e.turn ?? null, op: e.op, added: 0, removed: 0, failed: !!e.failed, lost: '' };
    f.edits.push(s);
    if (s.failed) continue;
    const before = f.final;
    let after: string | null = null;
    const past = history.get(key) ?? [];
    history.set(key, past);
    if (e.op === 'undo') {
      if (!past.length) {
        s.lost = 'no earlier edit of this file is in the log to undo';
      } else {
        after = past.pop() ?? null;
        if (before !== null && after !== null) {
          const c = diffCounts(diffText(before, after));
          s.added = c.added;
          s.removed = c.removed;
        }
        if (after === null) s.lost = 'the content before the undone edit is not known';
      }
      if (s.lost) f.unknown = `edit at seq ${e.seq}: ${s.lost}`;
      else f.unknown = after === null ? f.unknown : '';
      f.final = after;
      f.added += s.added;
      f.removed += s.removed;
      continue;
    }
    past.push(before);
    if (e.op === 'delete') {
      s.removed = before === null ? 0 : splitLines(before).length;
      f.final = null;
      f.unknown = `the patch at seq ${e.seq} deleted the file`;
      f.removed += s.removed;
      continue;
    }
    if (e.op === 'write') {
      const c = diffCounts(diffText(before ?? '', e.new ?? ''));
      s.added = c.added;
      s.removed = c.removed;
      after = e.new ?? '';
      f.unknown = '';
    } else if (e.op === 'replace') {
      const c = diffCounts(diffText(e.old ?? '', e.new ?? ''));
      s.added = c.added;
      s.removed = c.removed;
      if (before !== null) {
        after = applyReplace(before, e.old ?? '', e.new ?? '', !!e.replace_all);
        if (after === null) s.lost = 'the text this edit replaces is not in the content known so far';
      }
    } else if (e.op === 'insert') {
      s.added = splitLines(e.new ?? '').length || 1;
      if (before !== null) {
        after = applyInsert(before, e.insert_line ?? 0, e.new ?? '');
        if (after === null) s.lost = `line ${e.insert_line} is past the end of the content known so far`;
      }
    }
    if (s.lost) f.unknown = `edit at seq ${e.seq}: ${s.lost}`;
    f.final = after;
    f.added += s.added;
    f.removed += s.removed;
  }
  return [...byPath.values()];
}
