// Compactions view logic: joining with sessions, labels, the summary preview and filters.

import type { Compaction, Session } from '../../api/types';
import { sessionTitle } from '../../lib/search';
import { stripAnsi } from '../../lib/format';

export interface CompactionRow {
  c: Compaction;
  key: string;
  at: number | null; // when it started (or ended), epoch ms; null when the log has no time for it
  tookMs: number | null;
  title: string;
  project: string;
  shadowedEvents: number;
  summary: string; // without the <summary> wrapper
  haystack: string;
}

function ms(iso: string | null | undefined): number | null {
  if (!iso) return null;
  const t = Date.parse(iso);
  return Number.isFinite(t) ? t : null;
}

/** The summary text without a <summary>…</summary> wrapper the harness adds, nor terminal escapes. */
export function cleanSummary(s: string | undefined | null): string {
  if (!s) return '';
  return stripAnsi(s).replace(/^\s*<summary>\s*/i, '').replace(/\s*<\/summary>\s*$/i, '').trim();
}

/** How many events a compaction or prune took out of the model's view. */
export function shadowedEvents(c: Compaction): number {
  if (c.shadowedSeqs?.length) return c.shadowedSeqs.length;
  if (c.shadowed_start != null && c.shadowed_end != null && c.shadowed_end >= c.shadowed_start) {
    return c.shadowed_end - c.shadowed_start + 1;
  }
  return 0;
}

export function joinCompactions(list: Compaction[], sessions: Map<string, Session>): CompactionRow[] {
  return list.map((c) => {
    const s = sessions.get(c.session_id);
    const start = ms(c.started_at), end = ms(c.ended_at);
    const summary = cleanSummary(c.summary);
    const title = sessionTitle(s, c.session_id);
    const project = s?.project ?? '';
    return {
      c, key: c.session_id + '/' + c.compactionId, at: start ?? end,
      tookMs: start !== null && end !== null ? Math.max(0, end - start) : null,
      title, project, shadowedEvents: shadowedEvents(c), summary,
      haystack: [title, project, c.model, c.provider, c.kind, c.status, c.error, summary, c.compactionId, c.session_id]
        .filter(Boolean).join('\n').toLowerCase(),
    };
  });
}

/** What set the compaction off: a manual /compact between turns, or the agent inside a turn. */
export function triggerLabel(c: Compaction): string {
  if (c.kind === 'prune') return 'Tool output pruned';
  // OpenHands has no turns, so turn says nothing of what started its condenser.
  if (c.agent === 'openhands') return 'Condensation';
  return c.turn === null ? 'Manual, between turns' : `Automatic, in turn ${c.turn}`;
}

/** The first lines of a summary, and whether there is more. */
export function preview(text: string, lines = 4, chars = 420): { text: string; more: boolean } {
  const ls = text.split('\n');
  let out = ls.slice(0, lines).join('\n');
  let more = ls.length > lines;
  if (out.length > chars) {
    out = out.slice(0, chars).replace(/\s+\S*$/, '') + '…';
    more = true;
  }
  return { text: out, more };
}

export interface CompactionFilter {
  kind: '' | 'compaction' | 'prune';
  status: '' | 'ok' | 'failed' | 'open';
  project: string;
  from: number | null;
  to: number | null;
  text: string;
}

export const emptyCompactionFilter = (): CompactionFilter => ({ kind: '', status: '', project: '', from: null, to: null, text: '' });

export function filterCompactions(rows: CompactionRow[], f: CompactionFilter, skip?: keyof CompactionFilter): CompactionRow[] {
  const words = f.text.toLowerCase().split(/\s+/).filter(Boolean);
  return rows.filter((r) => {
    if (skip !== 'kind' && f.kind && r.c.kind !== f.kind) return false;
    if (skip !== 'status' && f.status && r.c.status !== f.status) return false;
    if (skip !== 'project' && f.project && r.project !== f.project) return false;
    if (skip !== 'from' && f.from !== null && (r.at === null || r.at < f.from)) return false;
    if (skip !== 'to' && f.to !== null && (r.at === null || r.at >= f.to)) return false;
    if (words.length && !words.every((w) => r.haystack.includes(w))) return false;
    return true;
  });
}

/** Newest first; rows without a time go after those of their session's age (by session order otherwise). */
export function sortCompactions(rows: CompactionRow[], sessions: Map<string, Session>): CompactionRow[] {
  const key = (r: CompactionRow) => r.at ?? Date.parse(sessions.get(r.c.session_id)?.updated_at ?? '') ?? 0;
  return [...rows].sort((a, b) => (key(b) || 0) - (key(a) || 0) || (b.c.start_seq ?? b.c.summary_seq ?? 0) - (a.c.start_seq ?? a.c.summary_seq ?? 0));
}
