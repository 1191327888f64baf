import { describe, expect, it } from 'vitest';
import type { TurnSummary } from '../api/types';
import { seqAtFraction, seqFraction, stepTurn, turnDuration, turnIndexAt, turnLabel } from './turns';

const turn = (n: number, start: number, end: number): TurnSummary => ({
  turn: n, start_seq: start, end_seq: end, start: '2026-08-16T10:00:00Z', end: '2026-08-16T10:02:05Z',
  prompt: n === 3 ? '' : `prompt ${n}`, tools: 2, errors: 0, approvals: 0, denied: 0, items: 5,
});
const turns = [turn(1, 3, 40), turn(2, 41, 90), turn(3, 95, 300)];

describe('turns', () => {
  it('finds the turn a seq falls in', () => {
    expect(turnIndexAt(turns, 0)).toBe(-1);
    expect(turnIndexAt(turns, 3)).toBe(0);
    expect(turnIndexAt(turns, 92)).toBe(1); // between turns: the one before
    expect(turnIndexAt(turns, 5000)).toBe(2);
    expect(turnIndexAt(turns, null)).toBe(-1);
    expect(turnIndexAt([], 5)).toBe(-1);
  });
  it('steps J/K and stops at the ends', () => {
    expect(stepTurn(turns, 0, 1)?.turn).toBe(2);
    expect(stepTurn(turns, 2, 1)).toBeNull();
    expect(stepTurn(turns, 1, -1)?.turn).toBe(1);
    expect(stepTurn(turns, 0, -1)).toBeNull();
    expect(stepTurn(turns, -1, 1)?.turn).toBe(1);
  });
  it('says how long a turn took and what it asked', () => {
    expect(turnDuration(turns[0])).toBe('2m 5s');
    expect(turnLabel(turns[2])).toBe('(no prompt)');
  });
  it('scales seqs to the overview and back', () => {
    expect(seqFraction(50, 0, 100)).toBe(0.5);
    expect(seqFraction(500, 0, 100)).toBe(1);
    expect(seqFraction(5, 5, 5)).toBe(0);
    expect(seqAtFraction(1, 0, 87000)).toBe(87000);
    expect(seqAtFraction(-3, 10, 20)).toBe(10);
  });
});
