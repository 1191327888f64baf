// Finding search hits inside one conversation: the in-session query (the person's
// query narrowed to the session, run by the server's index, so it works on sessions
// of any size), the hits in reading order with next/previous, the words to mark, and
// where in a block's text a hit's highlighted fragment lies, down to its line.
// Pure functions; components/conversation/findmarks.ts paints them in the page.
import type { Hit } from '../api/types';
import { appendClause, filterClause, fragmentSegments, parseClauses } from './search';

/** The query that finds q's matches in one session only. */
export function sessionQuery(q: string, sessionId: string): string {
  return appendClause(q.trim(), filterClause('session', sessionId));
}

/** Hits in reading order (seq, then the block kinds of one event in a fixed order); title hits (no seq) left out. */
export function orderHits(hits: Hit[]): Hit[] {
  const rank = (k: string) => ['human', 'injected', 'reasoning', 'assistant', 'tool_call', 'tool_result'].indexOf(k);
  return hits.filter((h) => h.seq >= 0).sort((a, b) => a.seq - b.seq || rank(a.kind) - rank(b.kind));
}

/** The index of the hit at seq (of that kind when given), or -1. */
export function hitIndex(hits: Hit[], seq: number, kind?: string | null): number {
  let any = -1;
  for (let i = 0; i < hits.length; i++) {
    if (hits[i].seq !== seq) continue;
    if (!kind || hits[i].kind === kind) return i;
    if (any < 0) any = i;
  }
  return any;
}

/**
 * The hit n (dir 1) or N (dir -1) goes to: the one after (before) the current hit,
 * wrapping around; with no current hit, the first at or after (the last before)
 * the reading position seq. -1 when there are no hits.
 */
export function stepHit(hits: Hit[], cur: number, dir: 1 | -1, at: number | null): number {
  const n = hits.length;
  if (!n) return -1;
  if (cur >= 0 && cur < n) return (cur + dir + n) % n;
  if (at === null) return dir === 1 ? 0 : n - 1;
  if (dir === 1) {
    const i = hits.findIndex((h) => h.seq >= at);
    return i < 0 ? 0 : i;
  }
  for (let i = n - 1; i >= 0; i--) if (hits[i].seq < at) return i;
  return n - 1;
}

/** The counter beside the find box: "3 of 53", "about 53" while none is current, "No matches". */
export function counterText(cur: number, loaded: number, total: number, exact: boolean): string {
  if (!total && !loaded) return 'No matches';
  const all = Math.max(total, loaded);
  const of = `${exact ? '' : 'about '}${all.toLocaleString()}`;
  if (cur < 0) return `${of} ${all === 1 ? 'match' : 'matches'}`;
  if (loaded < all) return `${(cur + 1).toLocaleString()} of ${loaded.toLocaleString()} loaded (${of})`;
  return `${(cur + 1).toLocaleString()} of ${of}`;
}

// ---------------------------------------------------------------------------
// What to mark

/** A fragment as plain text with the spans its <mark>s covered. */
export interface Parts {
  plain: string;
  marks: { start: number; end: number }[];
}

export function fragmentParts(fragment: string): Parts {
  let plain = '';
  const marks: Parts['marks'] = [];
  for (const s of fragmentSegments(fragment)) {
    if (s.mark) marks.push({ start: plain.length, end: plain.length + s.text.length });
    plain += s.text;
  }
  return { plain, marks };
}

/** The words the index marked in the hits' fragments, distinct (case aside), longest first. */
export function markedTerms(fragments: Iterable<string>, limit = 40): string[] {
  const seen = new Map<string, string>();
  for (const f of fragments) {
    const p = fragmentParts(f);
    for (const m of p.marks) {
      const t = p.plain.slice(m.start, m.end).trim();
      if (t && !seen.has(t.toLowerCase())) seen.set(t.toLowerCase(), t);
    }
    if (seen.size >= limit) break;
  }
  return [...seen.values()].sort((a, b) => b.length - a.length);
}

/** The words of a query that are text (not filters, operators or excluded words), for marking before any hit is known. */
export function queryWords(q: string): string[] {
  const out: string[] = [];
  for (const c of parseClauses(q)) {
    if (c.neg || c.or || (c.field && c.field !== 'text')) continue;
    const raw = (c.field === 'text' ? (c.value ?? '') : c.raw).replace(/^[(]+|[)]+$/g, '');
    for (const w of raw.replace(/^"|"$/g, '').replace(/[*~]\d*$/, '').split(/\s+/)) {
      if (w && w !== 'AND' && w !== 'OR' && w !== 'NOT') out.push(w);
    }
  }
  return [...new Set(out)].sort((a, b) => b.length - a.length);
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The pattern that finds any of the terms, case aside; null when there are none. */
export function termPattern(terms: string[]): RegExp | null {
  const ts = terms.filter(Boolean);
  if (!ts.length) return null;
  return new RegExp(ts.map(escapeRe).join('|'), 'giu');
}

/** Every occurrence of the terms in text (at most max), in order. */
export function termRanges(text: string, re: RegExp | null, max = 2000): { start: number; end: number }[] {
  const out: { start: number; end: number }[] = [];
  if (!re) return out;
  re.lastIndex = 0;
  for (let m: RegExpExecArray | null; out.length < max && (m = re.exec(text)); ) {
    if (!m[0]) {
      re.lastIndex++;
      continue;
    }
    out.push({ start: m.index, end: m.index + m[0].length });
  }
  return out;
}

/**
 * Where a hit's fragment lies in the block's shown text: the span of its first
 * marked word. The fragment is looked for whole, then by shorter and shorter
 * windows around that word (Markdown shows less than its source, a terminal's
 * escapes are not shown), then the first occurrence of any of its marked words.
 * null when none is in the text.
 */
export function locate(text: string, fragments: string[]): { start: number; end: number } | null {
  const lower = text.toLowerCase();
  const sameLength = lower.length === text.length;
  const find = (s: string): number => (sameLength ? lower.indexOf(s.toLowerCase()) : text.indexOf(s));
  for (const f of fragments) {
    const p = fragmentParts(f);
    const m = p.marks[0];
    if (!m) continue;
    for (const pad of [Infinity, 80, 40, 20, 8]) {
      const a = Math.max(0, m.start - pad);
      const b = Math.min(p.plain.length, m.end + pad);
      const window = p.plain.slice(a, b);
      if (window.trim().length < 3 && pad !== 8) continue;
      const at = find(window);
      if (at >= 0) return { start: at + (m.start - a), end: at + (m.end - a) };
    }
  }
  const terms = markedTerms(fragments);
  const first = termRanges(text, termPattern(terms), 1)[0];
  return first ?? null;
}

/** The 1-based line of text that offset falls on. */
export function lineOf(text: string, offset: number): number {
  let n = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/** The span of the line around offset (without its newline). */
export function lineSpan(text: string, offset: number): { start: number; end: number } {
  const start = text.lastIndexOf('\n', Math.max(0, offset - 1)) + 1;
  const nl = text.indexOf('\n', offset);
  return { start: offset > 0 && text[offset - 1] === '\n' ? offset : start, end: nl < 0 ? text.length : nl };
}

// ---------------------------------------------------------------------------
// Where a hit is shown

/**
 * The folds (ConvUI keys) that hide a block of this kind in the item at seq: opened
 * when the hit is, so its line is on screen. Keys a card does not use are harmless.
 */
export function foldKeysFor(kind: string, seq: number): string[] {
  switch (kind) {
    case 'tool_result':
      return [`${seq}:output`];
    case 'reasoning':
      return [`${seq}:reasoning`];
    case 'tool_call':
      return [`${seq}:args`, `${seq}:cmd`, `${seq}:argsall`, `${seq}:content`, `${seq}:diff`];
    case 'injected':
      return [`${seq}:open`, `${seq}:injall`];
    case 'compaction':
      return [`${seq}:summary`];
    default:
      return [`${seq}:open`];
  }
}

/** The part of an item's element that shows a block of this kind (the whole item when unknown). */
export function scopeSelector(kind: string): string | null {
  switch (kind) {
    case 'tool_result':
      return '[data-testid="tool-result"]';
    case 'reasoning':
      return '[data-testid="reasoning"]';
    case 'assistant':
      return '[data-find="answer"]';
    case 'human':
      return '[data-find="prompt"]';
    default:
      return null;
  }
}
