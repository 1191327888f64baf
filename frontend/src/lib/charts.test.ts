// Node re-reads TZ whenever it is assigned; vitest runs in Node.
function setTZ(zone: string) {
  (globalThis as unknown as { process: { env: Record<string, string> } }).process.env.TZ = zone;
}

// Bucketing is in local time, so these tests pin a time zone with DST.
setTZ('America/New_York');

import { afterAll, describe, expect, it } from 'vitest';
import {
  arcPath, axisNumber, bucketIndex, bucketLabel, bucketTitle, chooseUnit, floorTime, linearScale, localDateKey,
  nextTime, niceTicks, pieSlices, stackByTime, tickStep, timeBuckets, timeTicks,
} from './charts';

const H = 3_600_000;
const iso = (t: number) => new Date(t).toISOString();

afterAll(() => {
  setTZ('America/New_York');
});

describe('scales and ticks', () => {
  it('maps linearly', () => {
    const s = linearScale(0, 10, 100, 0);
    expect(s(0)).toBe(100);
    expect(s(5)).toBe(50);
    expect(s(10)).toBe(0);
    expect(linearScale(3, 3, 0, 10)(3)).toBe(0);
  });

  it('picks 1-2-5 steps', () => {
    expect(tickStep(10, 5)).toBe(2);
    expect(tickStep(100, 4)).toBe(20);
    expect(tickStep(7, 4)).toBe(2);
    expect(tickStep(1, 4)).toBe(0.2);
    expect(tickStep(0, 4)).toBe(1);
  });

  it('makes round ticks from zero', () => {
    expect(niceTicks(7)).toEqual([0, 2, 4, 6, 8]);
    expect(niceTicks(100)).toEqual([0, 50, 100]);
    expect(niceTicks(100, 5)).toEqual([0, 20, 40, 60, 80, 100]);
    expect(niceTicks(9, 4)).toEqual([0, 5, 10]);
    expect(niceTicks(1)).toEqual([0, 1]);
    expect(niceTicks(2)).toEqual([0, 1, 2]);
    expect(niceTicks(0)).toEqual([0, 1]);
    expect(niceTicks(1234567, 4)).toEqual([0, 500000, 1000000, 1500000]);
    expect(niceTicks(0.3, 3, false)).toEqual([0, 0.1, 0.2, 0.3]);
    // Counts never get fractional ticks.
    expect(niceTicks(3, 8).every(Number.isInteger)).toBe(true);
  });

  it('shortens axis numbers', () => {
    expect(axisNumber(0)).toBe('0');
    expect(axisNumber(1500)).toBe('1.5k');
    expect(axisNumber(2_000_000)).toBe('2M');
    expect(axisNumber(0.25)).toBe('0.25');
  });
});

describe('local buckets across DST (America/New_York)', () => {
  it('gives the spring-forward day 23 hours and the fall-back day 25', () => {
    const spring = new Date(2026, 2, 8).getTime(); // Sun Mar 8 2026, 02:00 is skipped
    expect(nextTime(spring, 'day') - spring).toBe(23 * H);
    expect(timeBuckets(spring, nextTime(spring, 'day') - 1, 'hour')).toHaveLength(23);
    const fall = new Date(2026, 10, 1).getTime(); // Sun Nov 1 2026, 01:00 repeats
    expect(nextTime(fall, 'day') - fall).toBe(25 * H);
    const hours = timeBuckets(fall, nextTime(fall, 'day') - 1, 'hour');
    expect(hours).toHaveLength(25);
    expect(hours.map((b) => bucketLabel(b.start, 'hour')).slice(0, 4)).toEqual(['00:00', '01:00', '01:00', '02:00']);
    for (const b of hours) expect(b.end - b.start).toBe(H);
  });

  it('floors the repeated hour to its own start, not the first 01:00', () => {
    const second = Date.parse('2026-11-01T06:30:00Z'); // 01:30 EST, the second 01:30
    expect(iso(floorTime(second, 'hour'))).toBe('2026-11-01T06:00:00.000Z');
    const first = Date.parse('2026-11-01T05:30:00Z'); // 01:30 EDT
    expect(iso(floorTime(first, 'hour'))).toBe('2026-11-01T05:00:00.000Z');
  });

  it('buckets by local date, not UTC date', () => {
    // 23:30 local on Mar 7 is 04:30 UTC on Mar 8.
    const t = Date.parse('2026-03-08T04:30:00Z');
    expect(localDateKey(t)).toBe('2026-03-07');
    expect(iso(floorTime(t, 'day'))).toBe('2026-03-07T05:00:00.000Z');
    // After the switch local midnight is 04:00 UTC.
    expect(iso(floorTime(Date.parse('2026-03-09T12:00:00Z'), 'day'))).toBe('2026-03-09T04:00:00.000Z');
  });

  it('counts each day once across DST', () => {
    const from = new Date(2026, 2, 6, 12).getTime();
    const to = new Date(2026, 2, 10, 12).getTime();
    const days = timeBuckets(from, to, 'day');
    expect(days.map((b) => localDateKey(b.start))).toEqual(['2026-03-06', '2026-03-07', '2026-03-08', '2026-03-09', '2026-03-10']);
    for (let i = 1; i < days.length; i++) expect(days[i].start).toBe(days[i - 1].end);
  });
});

describe('year boundaries', () => {
  it('continues days, weeks and months into the new year', () => {
    const from = new Date(2026, 11, 30, 22).getTime();
    const to = new Date(2027, 0, 2, 3).getTime();
    expect(timeBuckets(from, to, 'day').map((b) => localDateKey(b.start))).toEqual([
      '2026-12-30', '2026-12-31', '2027-01-01', '2027-01-02',
    ]);
    expect(timeBuckets(from, to, 'month').map((b) => localDateKey(b.start))).toEqual(['2026-12-01', '2027-01-01']);
    // Mondays: Dec 28 2026 is a Monday.
    expect(timeBuckets(from, to, 'week').map((b) => localDateKey(b.start))).toEqual(['2026-12-28']);
    expect(localDateKey(nextTime(new Date(2026, 11, 28).getTime(), 'week'))).toBe('2027-01-04');
  });

  it('puts a late New Year’s Eve event in the old year even though UTC says otherwise', () => {
    const t = Date.parse('2027-01-01T03:00:00Z'); // 22:00 on Dec 31 local
    const b = timeBuckets(Date.parse('2026-12-31T12:00:00Z'), Date.parse('2027-01-01T20:00:00Z'), 'day');
    expect(localDateKey(b[bucketIndex(b, t)].start)).toBe('2026-12-31');
  });

  it('marks the year under the first day label of the new year', () => {
    const b = timeBuckets(new Date(2026, 11, 29).getTime(), new Date(2027, 0, 3).getTime(), 'day');
    const ticks = timeTicks(b, 'day', 10);
    expect(ticks[0]).toMatchObject({ label: 'Dec 29', sub: '2026' });
    const jan1 = ticks.find((t) => t.label === 'Jan 1');
    expect(jan1?.sub).toBe('2027');
    expect(ticks.find((t) => t.label === 'Dec 30')?.sub).toBeUndefined();
  });
});

describe('other zones', () => {
  it('handles half-hour offsets (Asia/Kolkata)', () => {
    setTZ('Asia/Kolkata');
    try {
      const t = Date.parse('2026-08-16T10:10:00Z'); // 15:40 IST
      expect(bucketLabel(floorTime(t, 'hour'), 'hour')).toBe('15:00');
      expect(iso(floorTime(t, 'day'))).toBe('2026-08-15T18:30:00.000Z');
    } finally {
      setTZ('America/New_York');
    }
  });

  it('handles the southern hemisphere DST at year end (Australia/Sydney)', () => {
    setTZ('Australia/Sydney');
    try {
      // DST starts Sun Oct 4 2026 at 02:00.
      const d = new Date(2026, 9, 4).getTime();
      expect(nextTime(d, 'day') - d).toBe(23 * H);
      expect(localDateKey(Date.parse('2026-12-31T14:00:00Z'))).toBe('2027-01-01');
    } finally {
      setTZ('America/New_York');
    }
  });
});

describe('bucket helpers', () => {
  it('chooses units by span', () => {
    expect(chooseUnit(5 * H)).toBe('hour');
    expect(chooseUnit(48 * H)).toBe('hour');
    expect(chooseUnit(10 * 24 * H)).toBe('day');
    expect(chooseUnit(300 * 24 * H)).toBe('week');
    expect(chooseUnit(2000 * 24 * H)).toBe('month');
  });

  it('stacks values by series', () => {
    const b = timeBuckets(new Date(2026, 7, 16).getTime(), new Date(2026, 7, 17, 12).getTime(), 'day');
    const items = [
      { t: new Date(2026, 7, 16, 9).getTime(), k: 'a', w: 2 },
      { t: new Date(2026, 7, 16, 23, 59).getTime(), k: 'b', w: 1 },
      { t: new Date(2026, 7, 17, 0, 0).getTime(), k: 'a', w: 5 },
      { t: new Date(2026, 7, 20).getTime(), k: 'a', w: 7 }, // outside
    ];
    const s = stackByTime(items, b, (x) => x.t, (x) => x.k, (x) => x.w);
    expect(s.map((x) => x.values)).toEqual([{ a: 2, b: 1 }, { a: 5 }]);
    expect(s.map((x) => x.total)).toEqual([3, 5]);
    expect(stackByTime(items, b, () => null, (x) => x.k)[0].total).toBe(0);
  });

  it('caps the number of buckets, keeping the newest', () => {
    const b = timeBuckets(0, 100 * H, 'hour', 10);
    expect(b).toHaveLength(10);
    expect(b[9].start).toBeLessThanOrEqual(100 * H);
    expect(b[9].end).toBeGreaterThan(100 * H);
  });

  it('describes buckets', () => {
    const d = new Date(2026, 7, 16, 14).getTime();
    expect(bucketTitle({ start: d, end: d + H }, 'hour')).toBe('Sun Aug 16 2026, 14:00–15:00');
    expect(bucketTitle({ start: d, end: d + H }, 'day')).toBe('Sun Aug 16 2026');
    expect(bucketLabel(new Date(2027, 0, 1).getTime(), 'month')).toBe('2027');
    expect(bucketLabel(new Date(2027, 4, 1).getTime(), 'month')).toBe('May');
  });
});

describe('time ticks', () => {
  it('labels hours on round hours and dates where the day changes', () => {
    const b = timeBuckets(new Date(2026, 7, 16, 20).getTime(), new Date(2026, 7, 17, 8).getTime(), 'hour');
    const t = timeTicks(b, 'hour', 5);
    expect(t.map((x) => x.label)).toEqual(['21:00', '00:00', '03:00', '06:00']);
    expect(t[0].sub).toBe('Aug 16');
    expect(t[1].sub).toBe('Aug 17');
    expect(t[2].sub).toBeUndefined();
  });

  it('labels Mondays for a few weeks of days', () => {
    const b = timeBuckets(new Date(2026, 7, 1).getTime(), new Date(2026, 8, 15).getTime(), 'day');
    const t = timeTicks(b, 'day', 8);
    expect(t.length).toBeLessThanOrEqual(8);
    for (const x of t) expect(new Date(b[x.index].start).getDay()).toBe(1);
  });

  it('never returns nothing', () => {
    const b = timeBuckets(new Date(2026, 7, 16, 13, 10).getTime(), new Date(2026, 7, 16, 13, 20).getTime(), 'hour');
    expect(timeTicks(b, 'hour', 1)).toEqual([{ index: 0, label: '13:00', sub: 'Aug 16' }]);
    expect(timeTicks([], 'day', 5)).toEqual([]);
  });

  it('stays under the label budget for long spans', () => {
    const b = timeBuckets(new Date(2025, 0, 1).getTime(), new Date(2026, 11, 31).getTime(), 'week');
    expect(timeTicks(b, 'week', 8).length).toBeLessThanOrEqual(8);
    const m = timeBuckets(new Date(2015, 0, 1).getTime(), new Date(2026, 11, 31).getTime(), 'month');
    expect(timeTicks(m, 'month', 6).length).toBeLessThanOrEqual(6);
  });
});

describe('arcs', () => {
  it('splits a donut proportionally, skipping zeros', () => {
    const s = pieSlices([3, 0, 1], (x) => x);
    expect(s).toHaveLength(2);
    expect(s[0].fraction).toBe(0.75);
    expect(s[0].a1 - s[0].a0).toBeCloseTo(Math.PI * 1.5);
    expect(s[1].a1).toBeCloseTo(Math.PI * 2);
    expect(pieSlices([0, 0], (x) => x)).toEqual([]);
  });

  it('leaves gaps between slices only when there are several', () => {
    const one = pieSlices([5], (x) => x, 0.1);
    expect(one[0].a1 - one[0].a0).toBeCloseTo(Math.PI * 2);
    const two = pieSlices([1, 1], (x) => x, 0.1);
    expect(two[1].a0 - two[0].a1).toBeCloseTo(0.1);
  });

  it('draws a closed ring path', () => {
    const p = arcPath(50, 50, 30, 40, 0, Math.PI / 2);
    expect(p.startsWith('M50.000 10.000A40 40 0 0 1 90.000 50.000')).toBe(true);
    expect(p.endsWith('Z')).toBe(true);
    expect(arcPath(0, 0, 1, 2, 0, Math.PI * 2)).toContain(' 1 1 ');
  });
});
