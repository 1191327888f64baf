import { bench, describe } from 'vitest';
import { prefixOffsets, visibleRange } from './virtual';

// A virtual list of 100,000 rows: `npm run bench` (vitest bench). It was held to
// 200 ms for the offsets and 1,000 lookups; timing assertions in unit tests
// failed on a loaded machine.
describe('virtual geometry, 100,000 rows', () => {
  const h = new Float64Array(100000).fill(57);
  bench('offsets and 1,000 lookups of the rows in view', () => {
    const big = prefixOffsets(h);
    for (let y = 0; y < 5_000_000; y += 5000) visibleRange(big, y, 800, 400);
  });
});
