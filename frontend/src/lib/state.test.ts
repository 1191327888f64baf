import { describe, expect, it } from 'vitest';
import { scheduleCadence, stateView, valueOf } from './state';
import type { FoldedSchedule, SessionState } from '../api/types';

const sched = (over: Partial<FoldedSchedule>): FoldedSchedule => ({
  id: 's', kind: 'at', prompt: 'p', scheduledAt: '2026-08-16T10:00:00Z', createdSeq: 1, createdAt: 0,
  status: 'active', dispatchCount: 0, lastAcceptedAt: '0001-01-01T00:00:00Z', lastOccurrenceAt: '0001-01-01T00:00:00Z', ...over,
});

describe('stateView', () => {
  it('orders rows, extracts values and splits schedules', () => {
    const st: SessionState = {
      session_id: 'x', seq: 40,
      entries: [
        { type: 'todo/write', seq: 30, time: 0, marker: { label: 'todo list (2 items)', todos: [{ content: 'a', status: 'completed' }, { content: 'b', status: 'pending' }] } },
        { type: 'sandbox/mode', seq: 3, time: 0, marker: { label: 'sandbox: workspace-write' } },
        { type: 'plan/mode', seq: 5, time: 0, marker: { label: 'plan mode on' } },
        { type: 'model/selection', seq: 2, time: 0, marker: { label: 'model: deepseek/v4', fields: [{ name: 'reasoning effort', value: 'high' }] } },
      ],
      schedules: [
        sched({ id: 'late', scheduledAt: '2026-08-17T00:00:00Z' }),
        sched({ id: 'soon', scheduledAt: '2026-08-16T00:00:00Z' }),
        sched({ id: 'gone', status: 'deleted' }),
      ],
    };
    const v = stateView(st);
    expect(v.todos?.map((t) => t.content)).toEqual(['a', 'b']);
    expect(v.todosSeq).toBe(30);
    expect(v.rows.map((r) => [r.label, r.value])).toEqual([
      ['Plan mode', 'on'],
      ['Sandbox', 'workspace-write'],
      ['Model', 'deepseek/v4 · high effort'],
    ]);
    expect(v.active.map((s) => s.id)).toEqual(['soon', 'late']);
    expect(v.ended).toBe(1);
  });

  it('is empty without a state', () => {
    expect(stateView(null)).toEqual({ todos: null, todosSeq: null, rows: [], active: [], ended: 0 });
  });

  it('keeps labels without a prefix whole', () => {
    expect(valueOf({ type: 'goal/change', seq: 1, time: 0, marker: { label: 'goal created', detail: 'ship it' } })).toBe('ship it');
    expect(valueOf({ type: 'x/y', seq: 1, time: 0, marker: { label: 'odd' } })).toBe('odd');
  });
});

describe('scheduleCadence', () => {
  it('names the interval', () => {
    expect(scheduleCadence(sched({ kind: 'every', everySeconds: 600 }))).toBe('every 10 min');
    expect(scheduleCadence(sched({ kind: 'every', everySeconds: 7200 }))).toBe('every 2 h');
    expect(scheduleCadence(sched({ kind: 'after', afterSeconds: 1800 }))).toBe('once, 30 min after it was set');
    expect(scheduleCadence(sched({}))).toBe('once');
  });
});
