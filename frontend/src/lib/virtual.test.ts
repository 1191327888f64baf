import { describe, expect, it } from 'vitest';
import { indexAt, prefixOffsets, scrollTopFor, visibleRange } from './virtual';

describe('virtual geometry', () => {
  const o = prefixOffsets([10, 20, 30, 40]); // tops 0,10,30,60; total 100

  it('sums heights into offsets', () => {
    expect([...o]).toEqual([0, 10, 30, 60, 100]);
    expect([...prefixOffsets([])]).toEqual([0]);
  });
  it('finds the row at a position', () => {
    expect(indexAt(o, -5)).toBe(0);
    expect(indexAt(o, 0)).toBe(0);
    expect(indexAt(o, 9.9)).toBe(0);
    expect(indexAt(o, 10)).toBe(1);
    expect(indexAt(o, 59)).toBe(2);
    expect(indexAt(o, 1000)).toBe(3);
  });
  it('computes the visible range with overscan', () => {
    expect(visibleRange(o, 0, 15)).toEqual({ start: 0, end: 2 });
    expect(visibleRange(o, 35, 10)).toEqual({ start: 2, end: 3 });
    expect(visibleRange(o, 35, 10, 30)).toEqual({ start: 0, end: 4 });
    expect(visibleRange(prefixOffsets([]), 0, 100)).toEqual({ start: 0, end: 0 });
  });
  it('finds the rows in view among 100,000 (its speed: virtual.bench.ts)', () => {
    const big = prefixOffsets(new Float64Array(100000).fill(57));
    expect(visibleRange(big, 57 * 50000, 570)).toEqual({ start: 50000, end: 50011 });
  });
  it('scrolls rows into view', () => {
    expect(scrollTopFor(o, 2, 0, 20, 'start')).toBe(30);
    expect(scrollTopFor(o, 2, 0, 50, 'center')).toBe(20);
    expect(scrollTopFor(o, 3, 0, 50, 'end')).toBe(50);
    expect(scrollTopFor(o, 1, 0, 50, 'nearest')).toBe(0); // visible: stay
    expect(scrollTopFor(o, 3, 0, 50, 'nearest')).toBe(50); // below: bottom-align
    expect(scrollTopFor(o, 0, 40, 50, 'nearest', 4)).toBe(-4); // above: top-align with margin
    expect(scrollTopFor(o, 3, 0, 20, 'nearest')).toBe(60); // taller than the viewport: its top
  });
});
