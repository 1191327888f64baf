// The session list's logic: grouping by project, instant filtering, sorting and the
// flat row model the virtualized list renders. Pure functions, no DOM, so vitest can
// drive them directly; they are written to stay fast with 10,000+ sessions.
import type { Health, Session } from '../api/types';
import { stripAnsi } from './format';

export type SortKey = 'newest' | 'oldest' | 'tools' | 'tokens' | 'longest';

export const sortLabels: Record<SortKey, string> = {
  newest: 'Newest',
  oldest: 'Oldest',
  tools: 'Most tool calls',
  tokens: 'Most tokens',
  longest: 'Longest',
};

export type HealthFilter = 'all' | Health | 'problems';

export const healthLabels: Record<HealthFilter, string> = {
  all: 'Any health',
  problems: 'Any problem',
  ok: 'OK',
  recovered: 'Recovered',
  corrupt: 'Corrupt',
  gone: 'Gone upstream',
  damaged: 'Damaged upstream',
};

/** The label of a health value as the badge shows it. */
export function healthLabel(h: Health | string): string {
  if (h === 'gone') return 'gone upstream';
  if (h === 'damaged') return 'damaged upstream';
  return h;
}

/** The short label of the health badge in a session row (the full one is its tooltip). */
export function healthBadge(h: Health | string): string {
  return h === 'damaged' ? 'damaged' : healthLabel(h);
}

/** What a session row shows as its title: the title, else the short id. */
export function sessionTitle(s: Pick<Session, 'id' | 'title'>): string {
  const t = stripAnsi(s.title ?? '').trim();
  return t ? t : shortSessionId(s.id);
}

export function shortSessionId(id: string): string {
  return id.replace(/^session-/, '').slice(0, 8);
}

/** The grouping key of a session: its working directory, else the project field. */
export function projectKey(s: Pick<Session, 'cwd' | 'project'>): string {
  return s.cwd || s.project || '';
}

/** The last segment of a path, Windows or POSIX, for a group's headline. */
export function projectName(key: string): string {
  if (!key) return 'No working directory';
  const parts = key.split(/[\\/]+/).filter(Boolean);
  return parts.length ? parts[parts.length - 1] : key;
}

const ms = (iso: string | null | undefined) => {
  const t = iso ? Date.parse(iso) : NaN;
  return isNaN(t) ? 0 : t;
};

export function durationMs(s: Pick<Session, 'created_at' | 'updated_at'>): number {
  const a = ms(s.created_at);
  const b = ms(s.updated_at);
  return a && b && b >= a ? b - a : 0;
}

/** Newest activity of a session: its last event, else its creation. */
export function activity(s: Pick<Session, 'created_at' | 'updated_at'>): number {
  return Math.max(ms(s.updated_at), ms(s.created_at));
}

export function totalTokens(s: Pick<Session, 'tokens'>): number {
  const t = s.tokens;
  return t ? (t.input || 0) + (t.output || 0) : 0;
}

/** The sort value of a session (bigger sorts first) for every key but "oldest". */
function rank(s: Session, key: SortKey): number {
  switch (key) {
    case 'newest':
      return activity(s);
    case 'oldest':
      return -ms(s.created_at);
    case 'tools':
      return s.tool_calls || 0;
    case 'tokens':
      return totalTokens(s);
    case 'longest':
      return durationMs(s);
  }
}

/** Orders sessions by key; ties fall back to newest activity, then id, so the order is stable. */
export function sortSessions(list: Session[], key: SortKey): Session[] {
  const r = new Map<Session, number>();
  for (const s of list) r.set(s, rank(s, key));
  return [...list].sort((a, b) => {
    const d = r.get(b)! - r.get(a)!;
    if (d) return d;
    const e = activity(b) - activity(a);
    if (e) return e;
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  });
}

// The lower-cased text a filter matches against, cached per session object.
const haystacks = new WeakMap<Session, string>();
export function haystack(s: Session): string {
  let h = haystacks.get(s);
  if (h === undefined) {
    h = [s.title, s.id, s.project, s.cwd, projectName(projectKey(s)), ...(s.models ?? []), s.agent, s.agent_preset]
      .filter(Boolean)
      .join('\n')
      .toLowerCase();
    haystacks.set(s, h);
  }
  return h;
}

/** Splits a filter into lower-case words; all of them must match (AND). */
export function filterTerms(q: string): string[] {
  return q.toLowerCase().split(/\s+/).filter(Boolean);
}

export function matchesHealth(s: Session, h: HealthFilter): boolean {
  if (h === 'all') return true;
  if (h === 'problems') return s.health !== 'ok';
  return s.health === h;
}

export function filterSessions(list: Session[], q: string, health: HealthFilter = 'all'): Session[] {
  const terms = filterTerms(q);
  if (!terms.length && health === 'all') return list;
  return list.filter((s) => {
    if (!matchesHealth(s, health)) return false;
    if (!terms.length) return true;
    const h = haystack(s);
    for (const t of terms) if (!h.includes(t)) return false;
    return true;
  });
}

export interface Group {
  key: string; // the project key (cwd or project)
  name: string; // its last path segment
  sessions: Session[]; // already sorted
  newest: number; // newest activity in ms
}

/**
 * Groups sorted sessions by project. Groups keep the order of their first (best)
 * session, so under "newest" the group with the most recent session comes first.
 */
export function groupSessions(sorted: Session[]): Group[] {
  const byKey = new Map<string, Group>();
  const out: Group[] = [];
  for (const s of sorted) {
    const key = projectKey(s);
    let g = byKey.get(key);
    if (!g) {
      g = { key, name: projectName(key), sessions: [], newest: 0 };
      byKey.set(key, g);
      out.push(g);
    }
    g.sessions.push(s);
    const a = activity(s);
    if (a > g.newest) g.newest = a;
  }
  return out;
}

export type Row =
  | { type: 'group'; key: string; group: Group; collapsed: boolean }
  | { type: 'session'; key: string; session: Session; group: Group };

/** Flattens groups into the rows of the list; collapsed groups show only their header. */
export function buildRows(groups: Group[], collapsed: ReadonlySet<string>): Row[] {
  const rows: Row[] = [];
  for (const g of groups) {
    const c = collapsed.has(g.key);
    rows.push({ type: 'group', key: 'g:' + g.key, group: g, collapsed: c });
    if (!c) for (const s of g.sessions) rows.push({ type: 'session', key: s.id, session: s, group: g });
  }
  return rows;
}

/** The index of the next session row from `from` in direction `dir`, or `from` when none. */
export function nextSessionRow(rows: Row[], from: number, dir: 1 | -1): number {
  for (let i = from + dir; i >= 0 && i < rows.length; i += dir) if (rows[i].type === 'session') return i;
  return from;
}

/** The session row nearest below index i, else above it; -1 when there is none (e.g. every project folded). */
export function sessionRowNear(rows: Row[], i: number): number {
  const below = nextSessionRow(rows, i, 1);
  if (below !== i) return below;
  const above = nextSessionRow(rows, i, -1);
  return above !== i ? above : -1;
}

export interface RelationHint {
  kind: 'fork' | 'subagent';
  label: string;
  parentId?: string;
  parentTitle?: string;
}

/** How a session relates to its parent, for the row's hint. */
export function relationHint(s: Session, byId?: ReadonlyMap<string, Session>): RelationHint | null {
  const sub = s.origin === 'subagent' || (s.delegation_depth ?? 0) > 0;
  if (!sub && !s.parent_session) return null;
  const parent = s.parent_session ? byId?.get(s.parent_session) : undefined;
  const parentTitle = parent ? sessionTitle(parent) : s.parent_session ? shortSessionId(s.parent_session) : undefined;
  if (sub) {
    const depth = Math.max(1, s.delegation_depth || 1);
    return { kind: 'subagent', label: `subagent · depth ${depth}`, parentId: s.parent_session ?? undefined, parentTitle };
  }
  return { kind: 'fork', label: 'fork', parentId: s.parent_session ?? undefined, parentTitle };
}

/** Counts each session's direct children (forks and subagents) by parent id. */
export function childCounts(list: Session[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const s of list) if (s.parent_session) m.set(s.parent_session, (m.get(s.parent_session) ?? 0) + 1);
  return m;
}

export interface Segment {
  text: string;
  match: boolean;
}

/** Splits text into segments marking where any of the (lower-case) terms match, for <mark>. */
export function highlight(text: string, terms: string[]): Segment[] {
  if (!text || !terms.length) return [{ text, match: false }];
  const lower = text.toLowerCase();
  const hits: [number, number][] = [];
  for (const t of terms) {
    if (!t) continue;
    for (let i = lower.indexOf(t); i >= 0; i = lower.indexOf(t, i + t.length)) hits.push([i, i + t.length]);
  }
  if (!hits.length) return [{ text, match: false }];
  hits.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const merged: [number, number][] = [];
  for (const h of hits) {
    const last = merged[merged.length - 1];
    if (last && h[0] <= last[1]) last[1] = Math.max(last[1], h[1]);
    else merged.push([...h]);
  }
  const out: Segment[] = [];
  let at = 0;
  for (const [a, b] of merged) {
    if (a > at) out.push({ text: text.slice(at, a), match: false });
    out.push({ text: text.slice(a, b), match: true });
    at = b;
  }
  if (at < text.length) out.push({ text: text.slice(at), match: false });
  return out;
}

/** Distinct models of a session, shortened for a narrow column ("deepseek-v4-flash"). */
export function modelsLabel(models: string[] | null | undefined): string {
  if (!models?.length) return '';
  const short = [...new Set(models.map((m) => m.split('/').pop() || m))];
  return short.length > 1 ? `${short[0]} +${short.length - 1}` : short[0];
}
