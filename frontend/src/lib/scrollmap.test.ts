import { describe, expect, it } from 'vitest';
import { pxOf, scrollMap, seqAt } from './scrollmap';
import type { TurnSummary } from '../api/types';

const turn = (n: number, from: number, to: number, items: number) =>
  ({ turn: n, start_seq: from, end_seq: to, items, start: '', end: '', prompt: '', tools: 0, errors: 0, approvals: 0, denied: 0 }) as TurnSummary;

describe('scrollMap', () => {
  // 1,000 events: 10 items before turn 1, turn 1 (events 100-899) has 10 items,
  // turn 2 (900-999) has 80: the second turn is most of the height though it is a tenth of the events.
  const m = scrollMap([turn(1, 100, 899, 10), turn(2, 900, 999, 80)], 999, 100, 10);

  it('sizes each turn by its items, not its events', () => {
    expect(m.total).toBe(1000);
    expect(pxOf(m, 0)).toBe(0);
    expect(pxOf(m, 100)).toBe(100);
    expect(pxOf(m, 900)).toBe(200);
    expect(pxOf(m, 950)).toBe(600);
  });

  it('maps a pixel back to the event there', () => {
    expect(seqAt(m, 0)).toBe(0);
    expect(seqAt(m, 150)).toBe(500);
    expect(seqAt(m, 600)).toBe(950);
    expect(seqAt(m, 10_000)).toBe(999);
    for (const s of [0, 42, 100, 512, 900, 977]) expect(Math.abs(seqAt(m, pxOf(m, s)) - s)).toBeLessThanOrEqual(1);
  });

  it('stays under the height browsers allow', () => {
    const big = scrollMap([turn(1, 0, 999_999, 2_000_000)], 999_999, 2_000_000, 100, 20_000_000);
    expect(big.total).toBeCloseTo(20_000_000);
    expect(seqAt(big, big.total / 2)).toBe(500_000);
  });

  it('without turns spreads the items over every event', () => {
    const flat = scrollMap([], 99, 50, 20);
    expect(flat.total).toBe(1000);
    expect(pxOf(flat, 50)).toBe(500);
  });
});
