import { describe, expect, it } from 'vitest';
import type { Compaction, Session } from '../../api/types';
import {
  cleanSummary, emptyCompactionFilter, filterCompactions, joinCompactions, preview, shadowedEvents, sortCompactions,
  triggerLabel,
} from './compactions';

function comp(over: Partial<Compaction>): Compaction {
  return {
    session_id: 's1', compactionId: 'c' + Math.random(), kind: 'compaction', turn: 2, status: 'ok',
    started_at: '2026-11-19T20:59:48Z', ended_at: '2026-11-19T20:59:56Z', start_seq: 10, summary_seq: 11,
    replace_seq: 12, end_seq: 13, summary: '<summary>\nDid things.\n</summary>', shadowed_start: 1, shadowed_end: 9,
    shadowedSeqs: [1, 2, 3], shadowed_tokens: 1800, model: 'm', provider: 'p', error: null, ...over,
  };
}

const sessions = new Map<string, Session>([
  ['s1', { id: 's1', title: 'Refactor', project: '/p/a', updated_at: '2026-11-20T00:00:00Z' } as Session],
  ['s2', { id: 's2', title: 'Other', project: '/p/b', updated_at: '2026-11-25T00:00:00Z' } as Session],
]);

describe('compactions', () => {
  it('joins, cleans and measures', () => {
    const [r] = joinCompactions([comp({})], sessions);
    expect(r.summary).toBe('Did things.');
    expect(r.tookMs).toBe(8000);
    expect(r.title).toBe('Refactor');
    expect(r.shadowedEvents).toBe(3);
    expect(shadowedEvents(comp({ shadowedSeqs: [], shadowed_start: 4, shadowed_end: 6 }))).toBe(3);
    expect(shadowedEvents(comp({ shadowedSeqs: [], shadowed_start: null, shadowed_end: null }))).toBe(0);
    expect(cleanSummary(null)).toBe('');
    expect(cleanSummary('<summary>\n\x1b[31mFAIL\x1b[0m in a.go\n</summary>')).toBe('FAIL in a.go');
  });

  it('labels triggers', () => {
    expect(triggerLabel(comp({ turn: null }))).toMatch(/Manual/);
    expect(triggerLabel(comp({ turn: 3 }))).toBe('Automatic, in turn 3');
    expect(triggerLabel(comp({ kind: 'prune' }))).toMatch(/pruned/);
    expect(triggerLabel(comp({ turn: null, agent: 'openhands' }))).toBe('Condensation');
  });

  it('previews the first lines', () => {
    expect(preview('a\nb\nc', 2)).toEqual({ text: 'a\nb', more: true });
    expect(preview('a\nb', 2)).toEqual({ text: 'a\nb', more: false });
    const long = preview('word '.repeat(200), 4, 50);
    expect(long.more).toBe(true);
    expect(long.text.length).toBeLessThanOrEqual(51);
    expect(long.text.endsWith('…')).toBe(true);
  });

  it('filters and sorts, untimed prunes by their session', () => {
    const rows = joinCompactions(
      [
        comp({ compactionId: 'a', started_at: '2026-11-10T00:00:00Z' }),
        comp({ compactionId: 'b', kind: 'prune', started_at: null, ended_at: null, session_id: 's2' }),
        comp({ compactionId: 'c', status: 'failed', started_at: '2026-11-21T00:00:00Z', summary: '', error: 'context too long' }),
      ],
      sessions,
    );
    expect(filterCompactions(rows, { ...emptyCompactionFilter(), kind: 'prune' }).map((r) => r.c.compactionId)).toEqual(['b']);
    expect(filterCompactions(rows, { ...emptyCompactionFilter(), status: 'failed' })).toHaveLength(1);
    expect(filterCompactions(rows, { ...emptyCompactionFilter(), text: 'TOO long' })).toHaveLength(1);
    expect(filterCompactions(rows, { ...emptyCompactionFilter(), from: Date.parse('2026-11-15T00:00:00Z') }).map((r) => r.c.compactionId)).toEqual(['c']);
    expect(sortCompactions(rows, sessions).map((r) => r.c.compactionId)).toEqual(['b', 'c', 'a']);
  });
});
