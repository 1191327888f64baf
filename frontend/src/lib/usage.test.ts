import { describe, expect, it } from 'vitest';
import type { ModelPrice, UsageRow } from '../api/types';
import { byModel, costOf, dollars, fillDays, groupUsage, percent, priceFor, tokensShort, turnTokens } from './usage';

const prices: ModelPrice[] = [
  { match: 'claude-sonnet-4', input: 3, output: 15, cache_read: 0.3 },
  { match: 'sonnet', input: 1, output: 1, cache_read: 1 },
  { match: 'deepseek-v4-flash', input: 0.27, output: 1.1, cache_read: 0.07 },
];
const t = (input: number, output: number, cache_read = 0, reasoning = 0) => ({ input, output, cache_read, reasoning });

describe('prices', () => {
  it('picks the longest matching row, case-insensitively', () => {
    expect(priceFor('litellm_proxy/anthropic/Claude-Sonnet-4-20250514', prices)?.input).toBe(3);
    expect(priceFor('claude-3-5-sonnet', prices)?.input).toBe(1);
    expect(priceFor('gpt-4o', prices)).toBeNull();
  });
  it('costs input, cache reads and output per million', () => {
    expect(costOf(t(1_000_000, 1_000_000, 1_000_000, 500), prices[0])).toBeCloseTo(18.3);
    expect(costOf(t(1, 1), null)).toBe(0);
  });
});

describe('groupUsage', () => {
  const rows: UsageRow[] = [
    { key: '2026-01-01', model: 'deepseek-v4-flash', tokens: t(1_000_000, 0), events: 1 },
    { key: '2026-01-01', model: 'claude-sonnet-4', tokens: t(0, 1_000_000), events: 1 },
    { key: '2026-01-03', model: 'mystery', tokens: t(10, 10), events: 1 },
  ];
  it('sums models per key and prices each', () => {
    const g = groupUsage(rows, prices);
    expect(g.map((x) => x.key)).toEqual(['2026-01-01', '2026-01-03']);
    expect(g[0].cost).toBeCloseTo(15.27);
    expect(g[0].tokens).toEqual(t(1_000_000, 1_000_000));
    expect(g[1].unpriced).toEqual(['mystery']);
  });
  it('fills missing days with zeros', () => {
    expect(fillDays(groupUsage(rows, prices)).map((d) => [d.key, d.cost > 0])).toEqual([
      ['2026-01-01', true],
      ['2026-01-02', false],
      ['2026-01-03', false],
    ]);
  });
  it('keeps every day of a span too long to fill, and says it is sparse', () => {
    const far = groupUsage([...rows, { key: '2040-06-01', model: 'mystery', tokens: t(5, 5), events: 1 }], prices);
    const out = fillDays(far);
    expect(out.sparse).toBe(true);
    expect(out.map((d) => d.key)).toEqual(far.map((d) => d.key));
    expect(out[out.length - 1].key).toBe('2040-06-01');
    expect(fillDays(groupUsage(rows, prices)).sparse).toBeUndefined();
  });
  it('ranks models by cost', () => {
    expect(byModel(rows, prices).map((m) => m.key)).toEqual(['claude-sonnet-4', 'deepseek-v4-flash', 'mystery']);
  });
  it('formats', () => {
    expect(dollars(0)).toBe('$0');
    expect(dollars(0.001)).toBe('<$0.01');
    expect(dollars(12.345)).toBe('$12.35');
    expect(dollars(12345.6)).toBe('$12,346');
    expect(percent(1, 3)).toBe('33.3%');
    expect(percent(1, 0)).toBe('—');
  });
});

describe('per turn', () => {
  it('sums every model of a turn and leaves out usage outside turns', () => {
    const m = turnTokens([
      { key: '', model: 'a', tokens: t(1, 1), events: 1 },
      { key: '1', model: 'a', tokens: t(100, 10, 1000, 5), events: 2 },
      { key: '1', model: 'b', tokens: t(50, 5), events: 1 },
      { key: '3', model: 'a', tokens: t(7, 0), events: 1 },
    ]);
    expect([...m.keys()]).toEqual([1, 3]);
    expect(m.get(1)).toEqual(t(150, 15, 1000, 5));
    expect(tokensShort(m.get(1)!)).toBe('150 in · 15 out · 5 reasoning · 1.0k cache');
    expect(tokensShort(m.get(3)!)).toBe('7 in · 0 out');
  });
});
