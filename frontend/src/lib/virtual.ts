// Geometry of a virtualized list with variable row heights: prefix offsets from
// measured (or estimated) heights, the rows a viewport shows, and where to scroll to
// bring a row into view. Pure functions; components/VirtualList.svelte measures.

/** offsets[i] = top of row i; offsets[n] = total height. */
export function prefixOffsets(heights: ArrayLike<number>): Float64Array {
  const o = new Float64Array(heights.length + 1);
  for (let i = 0; i < heights.length; i++) o[i + 1] = o[i] + Math.max(0, heights[i] || 0);
  return o;
}

/** The row at y: the largest i with offsets[i] <= y, clamped to [0, n-1] (0 when empty). */
export function indexAt(offsets: Float64Array, y: number): number {
  const n = offsets.length - 1;
  if (n <= 0) return 0;
  if (y <= 0) return 0;
  let lo = 0;
  let hi = n - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (offsets[mid] <= y) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

export interface Range {
  start: number; // first row, inclusive
  end: number; // last row, exclusive
}

/**
 * Rows intersecting [top - overscan, top + height + overscan), where top is the
 * scroll position relative to the first row.
 */
export function visibleRange(offsets: Float64Array, top: number, height: number, overscan = 0): Range {
  const n = offsets.length - 1;
  if (n <= 0) return { start: 0, end: 0 };
  const a = Math.max(0, top - overscan);
  const b = Math.max(a, top + height + overscan);
  const start = indexAt(offsets, a);
  let end = indexAt(offsets, b) + 1;
  if (end > n) end = n;
  return { start, end };
}

/**
 * The scroll position (relative to the first row) that shows row i aligned as asked;
 * "nearest" moves as little as possible and returns top unchanged when i is fully
 * visible. margin keeps a little room around the row.
 */
export function scrollTopFor(
  offsets: Float64Array,
  i: number,
  top: number,
  height: number,
  align: 'start' | 'center' | 'end' | 'nearest',
  margin = 0,
): number {
  const n = offsets.length - 1;
  if (n <= 0) return 0;
  const k = Math.max(0, Math.min(n - 1, i));
  const a = offsets[k];
  const b = offsets[k + 1];
  const h = b - a;
  switch (align) {
    case 'start':
      return a - margin;
    case 'end':
      return b - height + margin;
    case 'center':
      return a - Math.max(0, (height - h) / 2);
    case 'nearest':
      if (a - margin < top) return a - margin;
      if (b + margin > top + height) return h + 2 * margin > height ? a - margin : b - height + margin;
      return top;
  }
}
