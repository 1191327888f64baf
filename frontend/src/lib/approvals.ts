// Approvals view logic: joining approvals with their sessions, filtering, counting
// outcomes and bucketing them over local-time days or hours for the chart.

import type { Approval, Session } from '../api/types';
import { chooseUnit, floorTime, nextTime, stackByTime, timeBuckets, type StackedBucket, type TimeUnit } from './charts';
import { projectName, sessionTitle } from './search';

export const PENDING = 'pending';

export interface ApprovalRow {
  a: Approval;
  key: string;
  outcome: string; // the decided outcome, or "pending"
  asked: number | null; // epoch ms
  decided: number | null;
  waitMs: number | null; // time to decide
  title: string;
  project: string; // full path; "" when unknown
  haystack: string; // lowercased text the free-text filter searches
}

function ms(iso: string | null | undefined): number | null {
  if (!iso) return null;
  const t = Date.parse(iso);
  return Number.isFinite(t) ? t : null;
}

/** Joins approvals with their sessions. */
export function joinApprovals(list: Approval[], sessions: Map<string, Session>): ApprovalRow[] {
  return list.map((a) => {
    const s = sessions.get(a.session_id);
    const asked = ms(a.asked_at);
    const decided = ms(a.decided_at);
    const outcome = a.outcome?.trim() || PENDING;
    const title = sessionTitle(s, a.session_id);
    const project = s?.project ?? '';
    const policy = a.policy || s?.approval_policy || '';
    const sandbox = a.sandbox_mode || s?.sandbox_mode || '';
    return {
      a, key: a.session_id + '/' + a.id, outcome, asked, decided,
      waitMs: asked !== null && decided !== null ? Math.max(0, decided - asked) : null,
      title, project,
      haystack: [a.toolName, a.reason, outcome, title, project, policy, sandbox, a.permission_preset, a.id, a.session_id, a.callId]
        .filter(Boolean).join('\n').toLowerCase(),
    };
  });
}

/** The policy in force for an approval: its own, else its session's. */
export function policyOf(r: ApprovalRow, s?: Session): string {
  return r.a.policy || s?.approval_policy || '';
}

export interface ApprovalFilter {
  outcome: string | null; // null = any
  tool: string; // "" = any
  project: string; // "" = any
  from: number | null; // epoch ms, inclusive
  to: number | null; // epoch ms, exclusive
  text: string;
}

export const emptyFilter = (): ApprovalFilter => ({ outcome: null, tool: '', project: '', from: null, to: null, text: '' });

/**
 * Rows passing the filter. skip leaves one criterion out, for the counts shown on
 * that criterion's own buttons (the outcome buttons count what the other filters leave).
 * Time filters use the asked time; an approval without one only passes when no time
 * filter is set. Every word of the text must occur.
 */
export function filterApprovals(rows: ApprovalRow[], f: ApprovalFilter, skip?: keyof ApprovalFilter): ApprovalRow[] {
  const words = f.text.toLowerCase().split(/\s+/).filter(Boolean);
  return rows.filter((r) => {
    if (skip !== 'outcome' && f.outcome !== null && r.outcome !== f.outcome) return false;
    if (skip !== 'tool' && f.tool && r.a.toolName !== f.tool) return false;
    if (skip !== 'project' && f.project && r.project !== f.project) return false;
    if (skip !== 'from' && f.from !== null && (r.asked === null || r.asked < f.from)) return false;
    if (skip !== 'to' && f.to !== null && (r.asked === null || r.asked >= f.to)) return false;
    if (skip !== 'text' && words.length && !words.every((w) => r.haystack.includes(w))) return false;
    return true;
  });
}

export interface Count {
  key: string;
  count: number;
}

/** Counts rows by a key, most frequent first (ties by name). */
export function countBy<T>(rows: T[], key: (r: T) => string): Count[] {
  const m = new Map<string, number>();
  for (const r of rows) m.set(key(r), (m.get(key(r)) ?? 0) + 1);
  return [...m].map(([k, count]) => ({ key: k, count })).sort((a, b) => b.count - a.count || a.key.localeCompare(b.key));
}

export type Tone = 'ok' | 'err' | 'warn' | 'muted' | 'other';

/** The colour family of an outcome. */
export function outcomeTone(outcome: string): Tone {
  const o = outcome.toLowerCase();
  if (o === PENDING) return 'warn';
  if (/^(allow|approv|accept|grant|yes)/.test(o)) return 'ok';
  if (/^(reject|den|refus|block|no$)/.test(o)) return 'err';
  if (/^(cancel|abort|timeout|timed|unavailable|skip|expired)/.test(o)) return 'muted';
  return 'other';
}

const TONE_ORDER: Record<Tone, number> = { ok: 0, err: 1, warn: 2, muted: 3, other: 4 };

/** Outcomes in a stable display order: approvals, denials, pending, the rest. */
export function sortOutcomes(outcomes: string[]): string[] {
  return [...outcomes].sort((a, b) => TONE_ORDER[outcomeTone(a)] - TONE_ORDER[outcomeTone(b)] || a.localeCompare(b));
}

/** The CSS colour of an outcome in charts (theme variables, so both themes work). */
export function outcomeColor(outcome: string, index = 0): string {
  switch (outcomeTone(outcome)) {
    case 'ok':
      return 'var(--ok)';
    case 'err':
      return 'var(--err)';
    case 'warn':
      return 'var(--warn)';
    default:
      // Greys for the first quiet outcome, then hues that stay apart from green/red/amber.
      return ['var(--fg-faint)', 'var(--shadowed)', 'var(--human)', 'var(--accent)', 'var(--fg-muted)'][index % 5];
  }
}

/** "allowed-once" → "Allowed once". */
export function outcomeLabel(outcome: string): string {
  const s = outcome.replace(/[-_]+/g, ' ').trim();
  return s ? s[0].toUpperCase() + s.slice(1) : outcome;
}

export type RangePreset = 'all' | '24h' | '7d' | '30d' | '90d';

export const RANGE_PRESETS: { key: RangePreset; label: string }[] = [
  { key: 'all', label: 'All time' },
  { key: '24h', label: 'Last 24 hours' },
  { key: '7d', label: 'Last 7 days' },
  { key: '30d', label: 'Last 30 days' },
  { key: '90d', label: 'Last 90 days' },
];

/** The [from, to) of a preset ending now; days count back in local calendar days (DST-safe). */
export function presetRange(p: RangePreset, now: number): { from: number | null; to: number | null } {
  if (p === 'all') return { from: null, to: null };
  if (p === '24h') return { from: now - 86_400_000, to: null };
  const days = p === '7d' ? 7 : p === '30d' ? 30 : 90;
  const d = new Date(now);
  return { from: new Date(d.getFullYear(), d.getMonth(), d.getDate() - days + 1).getTime(), to: null };
}

const minOf = (xs: number[]) => xs.reduce((a, b) => (b < a ? b : a), Infinity);
const maxOf = (xs: number[]) => xs.reduce((a, b) => (b > a ? b : a), -Infinity);

export interface Timeline {
  unit: TimeUnit;
  buckets: StackedBucket[];
}

/**
 * Approvals per local hour or day (or week/month for long spans) over [from, to]
 * when given, else over the asked times of the rows; stacked by outcome.
 */
export function approvalTimeline(rows: ApprovalRow[], from: number | null, to: number | null, now = Date.now()): Timeline {
  const times = rows.map((r) => r.asked).filter((t): t is number => t !== null);
  let lo: number, hi: number;
  if (from !== null) {
    lo = from;
    hi = to !== null ? to - 1 : Math.max(now, maxOf(times));
  } else {
    if (!times.length) return { unit: 'day', buckets: [] };
    // Whole local days around the data: one day of approvals reads as 24 hours.
    lo = floorTime(minOf(times), 'day');
    hi = to !== null ? to - 1 : nextTime(floorTime(maxOf(times), 'day'), 'day') - 1;
  }
  if (hi < lo) hi = lo;
  const unit = chooseUnit(hi - lo);
  const buckets = timeBuckets(lo, hi, unit);
  return { unit, buckets: stackByTime(rows, buckets, (r) => r.asked, (r) => r.outcome) };
}

/** The [from, to) a click on a bucket narrows to. */
export function bucketRange(b: { start: number; end: number }): { from: number; to: number } {
  return { from: b.start, to: b.end };
}

/** Whether a time range is exactly one local day (for labelling a custom range). */
export function isOneDay(from: number, to: number): boolean {
  return floorTime(from, 'day') === from && nextTime(from, 'day') === to;
}

export type SortKey = 'asked' | 'wait' | 'tool' | 'outcome';

export function sortApprovals(rows: ApprovalRow[], key: SortKey, desc: boolean): ApprovalRow[] {
  const val = (r: ApprovalRow): number | string | null => {
    switch (key) {
      case 'asked':
        return r.asked;
      case 'wait':
        return r.waitMs;
      case 'tool':
        return r.a.toolName.toLowerCase();
      case 'outcome':
        return r.outcome;
    }
  };
  return [...rows].sort((x, y) => {
    const a = val(x), b = val(y);
    // Missing values sort last in either direction.
    if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1;
    const c = a < b ? -1 : a > b ? 1 : 0;
    return (desc ? -c : c) || (y.asked ?? 0) - (x.asked ?? 0);
  });
}

export { projectName };
