// Search view logic that is worth testing on its own: making Bleve's highlighted
// fragments safe to render, editing the query text when a facet is clicked, and
// grouping hits by session. Also the cached session lookup the list views share.

import { api, on, type Hit, type Session } from '../api';
import { stripAnsi } from './format';

// ---------------------------------------------------------------------------
// Fragments

export interface Segment {
  text: string;
  mark: boolean;
}

const NAMED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'", nbsp: '\u00a0' };

/** Decodes the HTML character references Bleve's escaper produces (and numeric ones). */
export function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]{2,6});/gi, (m, body: string) => {
    if (body[0] === '#') {
      const code = body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      if (!Number.isFinite(code) || code <= 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return '\ufffd';
      return String.fromCodePoint(code);
    }
    const v = NAMED[body.toLowerCase()];
    return v ?? m;
  });
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/**
 * Splits a highlighted fragment into plain and marked runs. Only the exact tags
 * <mark> and </mark> are structure; every other character is text (character
 * references are decoded once, since Bleve escapes the text it wraps). Marks do
 * not nest; a stray </mark> is dropped and an unclosed <mark> ends with the text.
 */
export function fragmentSegments(fragment: string): Segment[] {
  const out: Segment[] = [];
  let marked = false;
  const push = (raw: string) => {
    if (!raw) return;
    const text = stripAnsi(decodeEntities(raw));
    const last = out[out.length - 1];
    if (last && last.mark === marked) last.text += text;
    else out.push({ text, mark: marked });
  };
  const re = /<(\/?)mark>/gi;
  let at = 0;
  for (let m: RegExpExecArray | null; (m = re.exec(fragment)); ) {
    push(fragment.slice(at, m.index));
    at = m.index + m[0].length;
    marked = m[1] !== '/';
  }
  push(fragment.slice(at));
  return out;
}

/** The fragment as HTML in which <mark> is the only element; everything else is escaped text. */
export function sanitizeFragment(fragment: string): string {
  return fragmentSegments(fragment)
    .map((s) => (s.mark ? `<mark>${escapeHtml(s.text)}</mark>` : escapeHtml(s.text)))
    .join('');
}

// ---------------------------------------------------------------------------
// Query editing

/** Filter names of the query language (lowercase). */
export const FILTER_NAMES = new Set([
  'text', 'kind', 'role', 'tool', 'project', 'session', 'agent', 'surface', 'month', 'is', 'since', 'after',
  'before', 'seq', 'turn', 'step',
]);

const KIND_ALIASES: Record<string, string> = {
  prompt: 'human', context: 'injected', answer: 'assistant', thinking: 'reasoning', call: 'tool_call',
  result: 'tool_result', output: 'tool_result', summary: 'compaction',
};

/** One top-level clause of a query, with its span in the text. */
export interface Clause {
  start: number;
  end: number;
  raw: string;
  /** Preceded by - (or NOT). */
  neg: boolean;
  /** Lowercased filter name for name:value clauses. */
  field?: string;
  /** The filter value, unquoted. */
  value?: string;
  quoted?: boolean;
  /** The keyword OR. */
  or?: boolean;
}

function isSpace(c: string) {
  return /\s/.test(c);
}

/** Reads a quoted string starting at text[i] (the quote); returns [value, end]. \" and \\ are escapes. */
function readQuoted(text: string, i: number): [string, number] {
  let v = '';
  let j = i + 1;
  while (j < text.length) {
    const c = text[j];
    if (c === '\\' && (text[j + 1] === '"' || text[j + 1] === '\\')) {
      v += text[j + 1];
      j += 2;
    } else if (c === '"') {
      return [v, j + 1];
    } else {
      v += c;
      j++;
    }
  }
  return [v, j]; // unterminated: the server reports it
}

/**
 * Splits a query into its top-level clauses, the way the Go lexer does for what
 * matters here: groups and quoted phrases are one clause each, a -/+ directly
 * before a letter, quote or group is a sign, name:"quoted value" is one clause.
 */
export function parseClauses(text: string): Clause[] {
  const out: Clause[] = [];
  let i = 0;
  let pendingNeg = false;
  let pendingStart = -1;
  while (i < text.length) {
    if (isSpace(text[i])) {
      i++;
      continue;
    }
    const start = i;
    const c = text[i];
    if ((c === '-' || c === '+') && i + 1 < text.length && /["(\p{L}]/u.test(text[i + 1])) {
      if (pendingStart < 0) pendingStart = start;
      if (c === '-') pendingNeg = !pendingNeg;
      i++;
      continue;
    }
    let end: number;
    let field: string | undefined;
    let value: string | undefined;
    let quoted = false;
    if (c === '(') {
      let depth = 0;
      let j = i;
      while (j < text.length) {
        if (text[j] === '"') {
          j = readQuoted(text, j)[1];
          continue;
        }
        if (text[j] === '(') depth++;
        else if (text[j] === ')' && --depth === 0) {
          j++;
          break;
        }
        j++;
      }
      end = j;
    } else if (c === '"') {
      end = readQuoted(text, i)[1];
    } else {
      let j = i;
      while (j < text.length && !isSpace(text[j])) {
        if (text[j] === ':' && field === undefined) {
          const name = text.slice(i, j);
          if (FILTER_NAMES.has(name.toLowerCase())) {
            field = name.toLowerCase();
            if (text[j + 1] === '"') {
              [value, j] = readQuoted(text, j + 1);
              quoted = true;
              if (text[j] === '*') {
                value += '*';
                j++;
              }
              break;
            }
            let k = j + 1;
            while (k < text.length && !isSpace(text[k])) k++;
            value = text.slice(j + 1, k);
            j = k;
            break;
          }
          field = ''; // a colon that is not a filter (http://…): text
        }
        j++;
      }
      end = j;
      if (field === '') field = undefined;
    }
    const raw = text.slice(start, end);
    if (pendingStart < 0 && !field && (raw === 'NOT')) {
      pendingStart = start;
      pendingNeg = !pendingNeg;
      i = end;
      continue;
    }
    const from = pendingStart >= 0 ? pendingStart : start;
    const cl: Clause = { start: from, end, raw: text.slice(from, end), neg: pendingNeg };
    if (field) {
      cl.field = field;
      cl.value = value ?? '';
      cl.quoted = quoted;
    }
    if (raw === 'OR' && pendingStart < 0) cl.or = true;
    out.push(cl);
    pendingNeg = false;
    pendingStart = -1;
    i = end;
  }
  return out;
}

/** Writes a filter value, quoting it when the bare form would be read differently. */
export function quoteValue(v: string): string {
  const bare = v !== '' && !/[\s"()]/.test(v) && !v.endsWith('*') && !v.endsWith('~');
  if (bare) return v;
  let s = '';
  for (let i = 0; i < v.length; i++) {
    const c = v[i];
    if (c === '"') s += '\\"';
    else if (c === '\\' && (i + 1 === v.length || v[i + 1] === '"' || v[i + 1] === '\\')) s += '\\\\';
    else s += c;
  }
  return '"' + s + '"';
}

/** The clause text for a filter: tool:bash, project:"/tmp/my dir", -kind:title. */
export function filterClause(field: string, value: string, neg = false): string {
  return (neg ? '-' : '') + field + ':' + quoteValue(value);
}

function normValue(field: string, v: string): string {
  const f = field.toLowerCase();
  if (f === 'kind') {
    const k = v.toLowerCase().replace(/-/g, '_');
    return KIND_ALIASES[k] ?? k;
  }
  if (f === 'tool' || f === 'agent' || f === 'role' || f === 'is' || f === 'surface') return v.toLowerCase();
  return v;
}

function matches(c: Clause, field: string, value: string): boolean {
  return c.field === field.toLowerCase() && c.value !== undefined && normValue(field, c.value) === normValue(field, value);
}

/** Whether the query has the top-level filter field:value (negated when neg). */
export function hasFilter(q: string, field: string, value: string, neg = false): boolean {
  return parseClauses(q).some((c) => c.neg === neg && matches(c, field, value));
}

/** Removes spans from text and tidies the whitespace left behind. */
function cut(text: string, spans: { start: number; end: number }[]): string {
  let out = text;
  for (const s of [...spans].sort((a, b) => b.start - a.start)) out = out.slice(0, s.start) + ' ' + out.slice(s.end);
  return tidy(out);
}

function tidy(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/** Removes every top-level field:value (either sign when neg is undefined). */
export function removeFilter(q: string, field: string, value: string, neg?: boolean): string {
  const cs = parseClauses(q).filter((c) => matches(c, field, value) && (neg === undefined || c.neg === neg));
  return cs.length ? cut(q, cs) : q;
}

/** Removes every top-level filter on one of the fields. */
export function removeField(q: string, ...fields: string[]): string {
  const set = new Set(fields.map((f) => f.toLowerCase()));
  const cs = parseClauses(q).filter((c) => c.field && set.has(c.field));
  return cs.length ? cut(q, cs) : q;
}

/**
 * Appends clause to the query so that it narrows the whole query: a query with a
 * top-level OR is grouped first, since AND binds tighter than OR.
 */
export function appendClause(q: string, clause: string): string {
  const t = q.trim();
  if (!t) return clause;
  const cs = parseClauses(t);
  const base = cs.some((c) => c.or) ? `(${t})` : t;
  return base + ' ' + clause;
}

/** Adds field:value (replacing its opposite-signed twin) unless it is already there. */
export function addFilter(q: string, field: string, value: string, neg = false): string {
  if (hasFilter(q, field, value, neg)) return q;
  return appendClause(removeFilter(q, field, value, !neg), filterClause(field, value, neg));
}

/** Adds the filter, or removes it when the query already has it with the same sign. */
export function toggleFilter(q: string, field: string, value: string, neg = false): string {
  return hasFilter(q, field, value, neg) ? removeFilter(q, field, value, neg) : addFilter(q, field, value, neg);
}

/** The since:/before: dates of a "2006-01" month facet (UTC dates, like the index's month field). */
export function monthRange(month: string): { since: string; before: string } {
  const [y, m] = month.split('-').map(Number);
  const ny = m === 12 ? y + 1 : y;
  const nm = m === 12 ? 1 : m + 1;
  const p = (n: number) => String(n).padStart(2, '0');
  return { since: `${y}-${p(m)}-01`, before: `${ny}-${p(nm)}-01` };
}

/** The month whose exact since:/before: range the query holds, if any. */
export function activeMonth(q: string): string | null {
  const cs = parseClauses(q).filter((c) => !c.neg);
  const since = cs.filter((c) => c.field === 'since' || c.field === 'after').map((c) => c.value);
  const before = cs.filter((c) => c.field === 'before').map((c) => c.value);
  for (const s of since) {
    const m = /^(\d{4})-(\d{2})-01$/.exec(s ?? '');
    if (!m) continue;
    const month = `${m[1]}-${m[2]}`;
    if (before.includes(monthRange(month).before)) return month;
  }
  const mf = cs.find((c) => c.field === 'month');
  return mf?.value ?? null;
}

/** Clicking a month facet: selects that month's range (replacing any time range) or clears it. */
export function toggleMonth(q: string, month: string): string {
  const active = activeMonth(q) === month;
  const base = removeField(q, 'since', 'after', 'before', 'month');
  if (active) return base;
  const r = monthRange(month);
  return appendClause(base, `since:${r.since} before:${r.before}`);
}

/** Whether a facet value is an active filter, and with which sign. */
export function facetState(q: string, field: string, value: string): 'on' | 'off' | 'excluded' {
  if (field === 'month') return activeMonth(q) === value ? 'on' : 'off';
  if (hasFilter(q, field, value)) return 'on';
  if (hasFilter(q, field, value, true)) return 'excluded';
  return 'off';
}

/** Removes one clause (as found by parseClauses) from the query. */
export function removeClause(q: string, c: { start: number; end: number }): string {
  return cut(q, [c]);
}

/** The top-level filter clauses of a query, for showing them as removable chips. */
export function filterClauses(q: string): Clause[] {
  return parseClauses(q).filter((c) => c.field && c.field !== 'text');
}

/** Whether an error from api.search is a query the user can fix (shown under the box). */
export function isQueryError(e: unknown): boolean {
  const err = e as { status?: number; message?: string } | null;
  if (!err) return false;
  return err.status === 422 || /\bquery: col \d+/.test(err.message ?? '');
}

/** A failed call's message for a person: the Go side's own wording, or what a network failure means. */
export function errorMessage(e: unknown): string {
  const err = e as { name?: string; message?: string } | null;
  const msg = err?.message ?? String(e);
  if (err?.name === 'ApiError') return msg;
  if (err?.name === 'TypeError' || /failed to fetch|networkerror|load failed/i.test(msg)) {
    return 'Could not reach Logbook. If it runs in a terminal (logbook serve), check that it is still running.';
  }
  return msg;
}

/** The character index in q of a 1-based byte column (Go reports byte offsets). */
export function byteColumnToIndex(q: string, col: number): number {
  const want = col - 1;
  let bytes = 0;
  let i = 0;
  for (const ch of q) {
    if (bytes >= want) return i;
    bytes += new TextEncoder().encode(ch).length;
    i += ch.length;
  }
  return q.length;
}

/** The column (1-based) a query error message points at ("query: col 5: …"). */
export function errorColumn(message: string): number | null {
  const m = /\bcol (\d+)\b/.exec(message);
  return m ? Number(m[1]) : null;
}

/** The error message without the "search: query: col N:" prefix. */
export function errorText(message: string): string {
  return message.replace(/^(search:\s*)?(query:\s*)?(col \d+:\s*)?/i, '');
}

// ---------------------------------------------------------------------------
// Hits

export interface HitGroup {
  session_id: string;
  hits: Hit[];
}

/** Groups hits by session, groups in order of their first hit, hits in their given order. */
export function groupHits(hits: Hit[]): HitGroup[] {
  const by = new Map<string, HitGroup>();
  for (const h of hits) {
    let g = by.get(h.session_id);
    if (!g) by.set(h.session_id, (g = { session_id: h.session_id, hits: [] }));
    g.hits.push(h);
  }
  return [...by.values()];
}

/** Appends a page of hits, dropping any already shown (by id). */
export function mergeHits(shown: Hit[], page: Hit[]): Hit[] {
  const seen = new Set(shown.map((h) => h.id));
  return shown.concat(page.filter((h) => !seen.has(h.id)));
}

/**
 * What the summary says about how a first page was ranked and counted, with the label of the
 * action that ranks and counts every match instead (an exhaustive search); null when the page
 * is already the best of all matches and the count is exact.
 */
export function rankingNote(rankedAmong: number, exact: boolean): { text: string; action: string } | null {
  if (rankedAmong > 0) {
    const text = `Ranked among the ${rankedAmong.toLocaleString()} newest matches`;
    return { text: exact ? text : text + '; the count is an estimate', action: 'Rank all' };
  }
  if (!exact) return { text: 'The count is an estimate', action: 'Count all' };
  return null;
}

/** The "Load more" label: how many matches are left, "about" when the total is an estimate. */
export function moreLabel(total: number, shown: number, exact: boolean): string {
  const left = total - shown;
  if (left <= 0) return 'Load more'; // an estimate that fell short
  return `Load more (${exact ? '' : 'about '}${left.toLocaleString()} left)`;
}

export const KIND_LABELS: Record<string, string> = {
  human: 'Prompt', injected: 'Injected', assistant: 'Assistant', reasoning: 'Reasoning',
  tool_call: 'Tool call', tool_result: 'Tool result', compaction: 'Compaction', approval: 'Approval', title: 'Title',
};

export function kindLabel(kind: string): string {
  return KIND_LABELS[kind] ?? kind;
}

/** The last path element of a project directory (POSIX or Windows). */
export function projectName(project: string): string {
  if (!project) return '(no project)';
  const parts = project.split(/[\\/]+/).filter(Boolean);
  return parts[parts.length - 1] ?? project;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** "2026-08" → "Aug 2026". */
export function monthLabel(month: string): string {
  const [y, m] = month.split('-').map(Number);
  return m >= 1 && m <= 12 ? `${MONTHS[m - 1]} ${y}` : month;
}

// ---------------------------------------------------------------------------
// Sessions, loaded once and shared by the list views.

let sessionsPromise: Promise<Map<string, Session>> | null = null;
let subscribed = false;

/** Every session by id, fetched once and refetched after imports change the archive. */
export function sessionIndex(): Promise<Map<string, Session>> {
  if (!subscribed && typeof window !== 'undefined') {
    subscribed = true;
    const drop = () => (sessionsPromise = null);
    on('archive:changed', drop);
    on('import:done', drop);
  }
  if (!sessionsPromise) {
    sessionsPromise = api.sessions().then((ss) => new Map(ss.map((s) => [s.id, s])));
    sessionsPromise.catch(() => (sessionsPromise = null));
  }
  return sessionsPromise;
}

/** A session's display title. */
export function sessionTitle(s: Session | undefined, id: string): string {
  const t = stripAnsi(s?.title ?? '').trim();
  return t || 'Untitled session ' + id.replace(/^session-/, '').slice(0, 8);
}

// ---------------------------------------------------------------------------
// The query language, for the help popover and the empty state.

export interface SyntaxRow {
  syntax: string;
  meaning: string;
  example: string;
}

export const SYNTAX: { title: string; rows: SyntaxRow[] }[] = [
  {
    title: 'Text',
    rows: [
      { syntax: 'deploy failed', meaning: 'every word must match', example: 'deploy failed' },
      { syntax: '"exact phrase"', meaning: 'words next to each other', example: '"connection refused"' },
      { syntax: 'a OR b', meaning: 'either one (AND binds tighter)', example: 'getUserName OR get_user_name' },
      { syntax: '-word', meaning: 'exclude (also NOT word)', example: 'migration -test' },
      { syntax: '( … )', meaning: 'group', example: '(timeout OR refused) -retry' },
      { syntax: 'prefix*', meaning: 'words starting with', example: 'deploy*' },
      { syntax: 'fuzzy~', meaning: 'one typo allowed (~2 for two)', example: 'recieve~' },
    ],
  },
  {
    title: 'Filters',
    rows: [
      { syntax: 'tool:name', meaning: 'tool calls and results of a tool', example: 'tool:bash' },
      {
        syntax: 'kind:…', meaning: 'human, injected, assistant, reasoning, tool_call, tool_result, compaction, approval, title',
        example: 'kind:reasoning',
      },
      { syntax: 'project:path', meaning: 'a project directory (quote spaces)', example: 'project:"/tmp/my app"' },
      { syntax: 'session:id', meaning: 'one session (prefix with *)', example: 'session:session-4f*' },
      { syntax: 'since:7d', meaning: 'newer than (24h, 7d, 2w, 3mo, 1y or a date)', example: 'since:7d' },
      { syntax: 'before:2026-10-01', meaning: 'older than a date (UTC)', example: 'before:2026-10-01' },
      { syntax: 'is:error', meaning: 'failed tool results', example: 'is:error' },
      { syntax: 'surface:shadowed', meaning: 'what a compaction replaced (or current, log-only)', example: 'surface:shadowed' },
    ],
  },
];

export const EXAMPLES = [
  '"connection refused" tool:bash',
  'is:error since:7d',
  'kind:approval',
  'kind:compaction',
  'surface:shadowed',
  'kind:human',
];
