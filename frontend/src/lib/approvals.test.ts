// Node re-reads TZ whenever it is assigned; vitest runs in Node.
function setTZ(zone: string) {
  (globalThis as unknown as { process: { env: Record<string, string> } }).process.env.TZ = zone;
}

// Day buckets are local calendar days: pin a zone with DST.
setTZ('Europe/Berlin');

import { describe, expect, it } from 'vitest';
import type { Approval, Session } from '../api/types';
import {
  approvalTimeline, countBy, emptyFilter, filterApprovals, isOneDay, joinApprovals, outcomeColor, outcomeLabel,
  outcomeTone, presetRange, sortApprovals, sortOutcomes,
} from './approvals';
import { localDateKey } from './charts';

function approval(over: Partial<Approval>): Approval {
  return {
    session_id: 's1', id: 'a' + Math.random().toString(36).slice(2), toolName: 'bash', reason: 'escalate sandbox',
    turn: 1, asked_seq: 10, asked_at: '2026-08-16T10:00:00Z', decided_seq: 11, decided_at: '2026-08-16T10:00:05Z',
    outcome: 'allowed-once', ...over,
  };
}

function session(id: string, title: string, project: string): Session {
  return {
    id, agent: 'dsh', title, project, seed_length: null, delegation_depth: 0, created_at: '', updated_at: '',
    models: [], records: 0, events: 0, last_seq: 0, turns: 0, messages: 0, tool_calls: 0,
    tokens: { input: 0, output: 0, reasoning: 0, cache_read: 0 }, health: 'ok', approval_policy: 'on-request',
  };
}

const sessions = new Map([
  ['s1', session('s1', 'Fix the deploy', '/home/dev/app')],
  ['s2', session('s2', '', '/srv/other')],
]);

describe('joining', () => {
  it('fills in session title, project, outcome and wait', () => {
    const [r, p, u] = joinApprovals(
      [
        approval({}),
        approval({ session_id: 's2', outcome: null, decided_at: null, decided_seq: null }),
        approval({ session_id: 'gone', asked_at: null }),
      ],
      sessions,
    );
    expect(r).toMatchObject({ outcome: 'allowed-once', title: 'Fix the deploy', project: '/home/dev/app', waitMs: 5000 });
    expect(p.outcome).toBe('pending');
    expect(p.waitMs).toBeNull();
    expect(p.title).toMatch(/^Untitled session/);
    expect(u.project).toBe('');
    expect(u.asked).toBeNull();
    expect(r.haystack).toContain('on-request'); // the session's policy is searchable
  });
});

describe('filtering', () => {
  const rows = joinApprovals(
    [
      approval({ toolName: 'bash', outcome: 'allowed-once', asked_at: '2026-08-16T10:00:00Z' }),
      approval({ toolName: 'write', outcome: 'rejected', asked_at: '2026-08-17T10:00:00Z', reason: 'write outside workspace' }),
      approval({ toolName: 'bash', outcome: null, session_id: 's2', asked_at: '2026-08-18T10:00:00Z' }),
      approval({ toolName: 'bash', outcome: 'rejected', asked_at: null }),
    ],
    sessions,
  );

  it('filters by outcome, tool, project and text', () => {
    expect(filterApprovals(rows, { ...emptyFilter(), outcome: 'rejected' })).toHaveLength(2);
    expect(filterApprovals(rows, { ...emptyFilter(), outcome: 'pending' })).toHaveLength(1);
    expect(filterApprovals(rows, { ...emptyFilter(), tool: 'bash' })).toHaveLength(3);
    expect(filterApprovals(rows, { ...emptyFilter(), project: '/srv/other' })).toHaveLength(1);
    expect(filterApprovals(rows, { ...emptyFilter(), text: 'WORKSPACE outside' })).toHaveLength(1);
    expect(filterApprovals(rows, { ...emptyFilter(), text: 'deploy bash' })).toHaveLength(2);
    expect(filterApprovals(rows, emptyFilter())).toHaveLength(4);
  });

  it('filters by asked time, [from, to)', () => {
    const from = Date.parse('2026-08-17T10:00:00Z');
    const to = Date.parse('2026-08-18T10:00:00Z');
    const got = filterApprovals(rows, { ...emptyFilter(), from, to });
    expect(got.map((r) => r.a.toolName)).toEqual(['write']);
    // Without a time, a row only shows when no time filter is set.
    expect(filterApprovals(rows, { ...emptyFilter(), from: 0 })).toHaveLength(3);
  });

  it('counts outcomes with the other filters applied', () => {
    const f = { ...emptyFilter(), tool: 'bash', outcome: 'rejected' };
    const counts = countBy(filterApprovals(rows, f, 'outcome'), (r) => r.outcome);
    expect(counts).toEqual([
      { key: 'allowed-once', count: 1 },
      { key: 'pending', count: 1 },
      { key: 'rejected', count: 1 },
    ]);
  });

  it('sorts with missing values last', () => {
    const byAsked = sortApprovals(rows, 'asked', true).map((r) => r.a.asked_at);
    expect(byAsked).toEqual(['2026-08-18T10:00:00Z', '2026-08-17T10:00:00Z', '2026-08-16T10:00:00Z', null]);
    const asc = sortApprovals(rows, 'asked', false).map((r) => r.a.asked_at);
    expect(asc[asc.length - 1]).toBeNull();
    expect(sortApprovals(rows, 'wait', true)[3].waitMs).toBeNull();
  });
});

describe('outcomes', () => {
  it('gives tones, colours, labels and an order', () => {
    expect(outcomeTone('allowed-once')).toBe('ok');
    expect(outcomeTone('approved')).toBe('ok');
    expect(outcomeTone('rejected')).toBe('err');
    expect(outcomeTone('denied')).toBe('err');
    expect(outcomeTone('pending')).toBe('warn');
    expect(outcomeTone('cancelled')).toBe('muted');
    expect(outcomeTone('something-new')).toBe('other');
    expect(outcomeColor('rejected')).toBe('var(--err)');
    expect(outcomeColor('cancelled', 0)).not.toBe(outcomeColor('unavailable', 1));
    expect(outcomeLabel('allowed-once')).toBe('Allowed once');
    expect(sortOutcomes(['unavailable', 'pending', 'rejected', 'allowed-once', 'cancelled'])).toEqual([
      'allowed-once', 'rejected', 'pending', 'cancelled', 'unavailable',
    ]);
  });
});

describe('timeline buckets (Europe/Berlin)', () => {
  it('buckets by local day across the spring DST switch', () => {
    // DST starts Sun Mar 29 2026 at 02:00 local.
    const rows = joinApprovals(
      [
        approval({ asked_at: '2026-03-28T22:30:00Z' }), // 23:30 Mar 28 local (CET)
        approval({ asked_at: '2026-03-28T23:30:00Z' }), // 00:30 Mar 29 local
        approval({ asked_at: '2026-03-29T21:59:00Z', outcome: 'rejected' }), // 23:59 Mar 29 local (CEST)
        approval({ asked_at: '2026-03-29T22:00:00Z' }), // 00:00 Mar 30 local
        approval({ asked_at: '2026-03-31T08:00:00Z', outcome: null }),
      ],
      sessions,
    );
    const t = approvalTimeline(rows, null, null);
    expect(t.unit).toBe('day');
    expect(t.buckets.map((b) => localDateKey(b.start))).toEqual(['2026-03-28', '2026-03-29', '2026-03-30', '2026-03-31']);
    expect(t.buckets.map((b) => b.total)).toEqual([1, 2, 1, 1]);
    expect(t.buckets[1].values).toEqual({ 'allowed-once': 1, rejected: 1 });
    expect(t.buckets[1].end - t.buckets[1].start).toBe(23 * 3_600_000);
    expect(t.buckets[3].values).toEqual({ pending: 1 });
  });

  it('buckets by local day across the year boundary', () => {
    const rows = joinApprovals(
      [
        approval({ asked_at: '2026-12-31T22:30:00Z' }), // 23:30 Dec 31 local
        approval({ asked_at: '2026-12-31T23:30:00Z' }), // 00:30 Jan 1 2027 local
        approval({ asked_at: '2027-01-03T12:00:00Z' }),
      ],
      sessions,
    );
    const t = approvalTimeline(rows, null, null);
    expect(t.buckets.map((b) => [localDateKey(b.start), b.total])).toEqual([
      ['2026-12-31', 1], ['2027-01-01', 1], ['2027-01-02', 0], ['2027-01-03', 1],
    ]);
  });

  it('uses hours for one day of data, over whole local days', () => {
    const rows = joinApprovals(
      [approval({ asked_at: '2026-10-25T00:30:00Z' }), approval({ asked_at: '2026-10-25T01:30:00Z' })],
      sessions,
    );
    // Oct 25 2026 is the fall-back day in Berlin: 25 hours.
    const t = approvalTimeline(rows, null, null);
    expect(t.unit).toBe('hour');
    expect(t.buckets).toHaveLength(25);
    // 02:30 CEST and 02:30 CET fall into the two distinct 02:00 hours.
    const nonEmpty = t.buckets.filter((b) => b.total).map((b) => new Date(b.start).toISOString());
    expect(nonEmpty).toEqual(['2026-10-25T00:00:00.000Z', '2026-10-25T01:00:00.000Z']);
  });

  it('follows an explicit range, and narrows to hours for a clicked day', () => {
    const rows = joinApprovals([approval({ asked_at: '2026-08-16T10:00:00Z' })], sessions);
    const from = new Date(2026, 7, 16).getTime();
    const to = new Date(2026, 7, 17).getTime();
    expect(isOneDay(from, to)).toBe(true);
    const t = approvalTimeline(rows, from, to);
    expect(t.unit).toBe('hour');
    expect(t.buckets).toHaveLength(24);
    expect(t.buckets[12].total).toBe(1); // 12:00 CEST = 10:00Z
    const week = approvalTimeline(rows, from, new Date(2026, 7, 23).getTime());
    expect(week.unit).toBe('day');
    expect(week.buckets).toHaveLength(7);
  });

  it('extends an open range to now and handles no data', () => {
    const now = new Date(2026, 7, 20, 15).getTime();
    const rows = joinApprovals([approval({ asked_at: '2026-08-16T10:00:00Z' })], sessions);
    const t = approvalTimeline(rows, presetRange('7d', now).from, null, now);
    expect(localDateKey(t.buckets[0].start)).toBe('2026-08-14');
    expect(localDateKey(t.buckets[t.buckets.length - 1].start)).toBe('2026-08-20');
    expect(approvalTimeline([], null, null).buckets).toEqual([]);
  });
});

describe('presets', () => {
  it('counts back whole local days', () => {
    const now = new Date(2026, 2, 30, 9).getTime(); // the day after the DST switch
    const r = presetRange('7d', now);
    expect(localDateKey(r.from!)).toBe('2026-03-24');
    expect(new Date(r.from!).getHours()).toBe(0);
    expect(presetRange('24h', now).from).toBe(now - 86_400_000);
    expect(presetRange('all', now)).toEqual({ from: null, to: null });
  });
});
