// The Export dialog's logic: findings grouped by category, the person's choices
// turned into the decisions App.Export applies (per finding over per category over
// "redact everything"), and the browser download of a finished export (a
// navigation to its one-time URL).
import type { ExportFile, RedactDecisions, RedactFinding } from '../api/types';

/** Categories in the order export/redact lists them (redact.Categories). */
export const CATEGORIES = ['token', 'bearer', 'env', 'private-key', 'connection-string', 'email', 'user', 'host'] as const;

/** What each category holds, for the dialog. */
export const CATEGORY_LABELS: Record<string, string> = {
  token: 'API keys and tokens',
  bearer: 'Authorization headers',
  env: 'Secret-looking settings',
  'private-key': 'Private keys',
  'connection-string': 'Passwords in URLs and connection strings',
  email: 'E-mail addresses',
  user: 'User names and home directories',
  host: 'IP addresses and internal hosts',
};

export interface Group {
  category: string;
  findings: RedactFinding[];
}

/** Findings grouped by category, categories in CATEGORIES order (unknown ones last). */
export function groupFindings(findings: readonly RedactFinding[]): Group[] {
  const by = new Map<string, RedactFinding[]>();
  for (const f of findings) {
    const g = by.get(f.category);
    if (g) g.push(f);
    else by.set(f.category, [f]);
  }
  const order = (c: string) => {
    const i = (CATEGORIES as readonly string[]).indexOf(c);
    return i < 0 ? CATEGORIES.length : i;
  };
  return [...by.entries()].sort((a, b) => order(a[0]) - order(b[0]) || a[0].localeCompare(b[0])).map(([category, findings]) => ({ category, findings }));
}

/** The person's choices: a category switched, and findings switched one by one. */
export interface Choices {
  categories: Record<string, boolean>;
  findings: Record<string, boolean>;
}

/** Whether f will be redacted under c (the default is yes). */
export function accepted(c: Choices, f: RedactFinding): boolean {
  return c.findings[f.id] ?? c.categories[f.category] ?? true;
}

/** c with a whole category switched: its findings follow it again. */
export function setCategory(c: Choices, g: Group, on: boolean): Choices {
  const findings = { ...c.findings };
  for (const f of g.findings) delete findings[f.id];
  return { categories: { ...c.categories, [g.category]: on }, findings };
}

/** c with one finding switched. */
export function setFinding(c: Choices, f: RedactFinding, on: boolean): Choices {
  return { ...c, findings: { ...c.findings, [f.id]: on } };
}

/** The decisions for App.Export. */
export function decisions(c: Choices): RedactDecisions {
  return { categories: { ...c.categories }, findings: { ...c.findings } };
}

/** How many findings will be redacted. */
export function acceptedCount(c: Choices, findings: readonly RedactFinding[]): number {
  let n = 0;
  for (const f of findings) if (accepted(c, f)) n++;
  return n;
}

/**
 * Starts the browser's download of a finished export: a navigation to its one-time
 * URL (app/download.go), so the browser streams the file to disk with its own
 * progress and the page never holds it. The link names the file too, though the
 * server's Content-Disposition already does.
 */
export function download(file: ExportFile, doc: Document = document): void {
  if (!file.download) throw new Error('the export has no download URL');
  const a = doc.createElement('a');
  a.href = file.download;
  a.download = file.name;
  a.rel = 'noopener';
  doc.body.appendChild(a);
  a.click();
  a.remove();
}

/** How the Export dialog of search results titles its bundle, before and once its sessions are known. */
export function manyTitle(count: number | null): string {
  if (count === null) return 'Export the sessions of this search';
  return `Export ${count.toLocaleString()} ${count === 1 ? 'session' : 'sessions'}`;
}

/** Which part of the session the dialog exports. */
export type PartKind = 'whole' | 'turns' | 'around';

export interface PartChoice {
  kind: PartKind;
  from: string; // turn range, as typed
  to: string;
  seq: number | null; // the item the conversation was opened at (?seq=), for "around"
  context: number; // turns either side of it
}

/**
 * The ExportOptions fields for a part of the session: {} for the whole session,
 * { turns: 'A-B' } for a range (an empty end is open), { around, context } for the
 * turns around the opened item. Null when the choice cannot be exported yet.
 */
export function partOptions(p: PartChoice): { turns?: string; around?: number; context?: number } | null {
  if (p.kind === 'whole') return {};
  if (p.kind === 'around') return p.seq === null ? null : { around: p.seq, context: Math.max(0, Math.floor(p.context || 0)) };
  const from = p.from.trim();
  const to = p.to.trim();
  const num = (s: string) => s === '' || /^\d+$/.test(s);
  if ((!from && !to) || !num(from) || !num(to)) return null;
  if (from && to && Number(from) > Number(to)) return null;
  return { turns: from === to ? from : `${from}-${to}` };
}
