// Small chart helpers for the inline SVG charts: linear scales, "nice" value
// ticks, calendar buckets in local time (DST-safe), time-axis labels and arcs.
// No chart library: the charts are a few rects and paths.

// ---------------------------------------------------------------------------
// Value scales

/** A linear map from domain [d0, d1] to range [r0, r1]. */
export function linearScale(d0: number, d1: number, r0: number, r1: number): (v: number) => number {
  const k = d1 === d0 ? 0 : (r1 - r0) / (d1 - d0);
  return (v: number) => r0 + (v - d0) * k;
}

/** A round step (1, 2 or 5 × 10^k) that splits span into about count parts. */
export function tickStep(span: number, count: number): number {
  if (!(span > 0) || !(count > 0)) return 1;
  const raw = span / count;
  let step = Math.pow(10, Math.floor(Math.log10(raw)));
  const err = raw / step;
  if (err >= Math.sqrt(50)) step *= 10;
  else if (err >= Math.sqrt(10)) step *= 5;
  else if (err >= Math.sqrt(2)) step *= 2;
  return step;
}

/** The next round step after step: 1 → 2 → 5 → 10. */
function nextStep(step: number): number {
  const p = Math.pow(10, Math.floor(Math.log10(step) + 1e-9));
  const m = Math.round(step / p);
  return (m < 2 ? 2 : m < 5 ? 5 : 10) * p;
}

/**
 * Ticks from 0 up to a round maximum at least max, about count intervals;
 * integer steps when integer (counts never get a 0.5 tick).
 */
export function niceTicks(max: number, count = 4, integer = true): number[] {
  if (!(max > 0)) return [0, 1];
  let step = tickStep(max, count);
  if (integer) step = Math.max(1, Math.round(step));
  // tickStep takes count as a hint; a small chart wants at most count intervals.
  while (Math.ceil(max / step - 1e-9) > count) step = nextStep(step);
  const top = Math.ceil(max / step - 1e-9) * step;
  const out: number[] = [];
  for (let v = 0; v <= top + step / 2; v += step) out.push(Number(v.toPrecision(12)));
  return out;
}

// ---------------------------------------------------------------------------
// Calendar buckets, in the user's local time zone

export type TimeUnit = 'hour' | 'day' | 'week' | 'month';

const HOUR = 3_600_000;
const DAY = 86_400_000;

/** The start of the local hour, day, week (Monday) or month holding t (epoch ms). */
export function floorTime(t: number, unit: TimeUnit): number {
  const d = new Date(t);
  switch (unit) {
    case 'hour':
      // Arithmetic, not setMinutes(0): in the repeated hour after a DST fall-back,
      // setting local fields picks the first occurrence, one hour too early.
      return t - ((d.getMinutes() * 60 + d.getSeconds()) * 1000 + d.getMilliseconds());
    case 'day':
      return new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
    case 'week':
      return new Date(d.getFullYear(), d.getMonth(), d.getDate() - ((d.getDay() + 6) % 7)).getTime();
    case 'month':
      return new Date(d.getFullYear(), d.getMonth(), 1).getTime();
  }
}

/** The start of the bucket after the one starting at start. */
export function nextTime(start: number, unit: TimeUnit): number {
  if (unit === 'hour') return floorTime(start + HOUR, 'hour');
  const d = new Date(start);
  const y = d.getFullYear(), m = d.getMonth(), day = d.getDate();
  switch (unit) {
    case 'day':
      return new Date(y, m, day + 1).getTime();
    case 'week':
      return new Date(y, m, day + 7).getTime();
    default:
      return new Date(y, m + 1, 1).getTime();
  }
}

export interface TimeBucket {
  start: number; // epoch ms, inclusive
  end: number; // epoch ms, exclusive
}

/** Consecutive buckets covering [from, to]; at most max of them (the newest kept). */
export function timeBuckets(from: number, to: number, unit: TimeUnit, max = 2000): TimeBucket[] {
  const out: TimeBucket[] = [];
  if (!(to >= from)) return out;
  for (let s = floorTime(from, unit); s <= to; ) {
    const e = nextTime(s, unit);
    out.push({ start: s, end: e });
    s = e;
    if (out.length > max) out.shift();
  }
  return out;
}

/** A bucket size that gives a readable number of bars for a span of ms. */
export function chooseUnit(spanMs: number): TimeUnit {
  if (spanMs <= 2 * DAY) return 'hour';
  if (spanMs <= 120 * DAY) return 'day';
  if (spanMs <= 3 * 365 * DAY) return 'week';
  return 'month';
}

/** The local calendar date of t as YYYY-MM-DD. */
export function localDateKey(t: number): string {
  const d = new Date(t);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
}

/** Index of the bucket holding t (buckets sorted and contiguous), or -1. */
export function bucketIndex(buckets: TimeBucket[], t: number): number {
  let lo = 0, hi = buckets.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (t < buckets[mid].start) hi = mid - 1;
    else if (t >= buckets[mid].end) lo = mid + 1;
    else return mid;
  }
  return -1;
}

export interface StackedBucket extends TimeBucket {
  values: Record<string, number>;
  total: number;
}

/**
 * Sums items into buckets by series key. weight defaults to 1 (a count); items
 * without a time or outside the buckets are skipped.
 */
export function stackByTime<T>(
  items: T[], buckets: TimeBucket[], time: (x: T) => number | null, key: (x: T) => string,
  weight: (x: T) => number = () => 1,
): StackedBucket[] {
  const out: StackedBucket[] = buckets.map((b) => ({ ...b, values: {}, total: 0 }));
  for (const x of items) {
    const t = time(x);
    if (t === null || !Number.isFinite(t)) continue;
    const i = bucketIndex(out, t);
    if (i < 0) continue;
    const k = key(x), w = weight(x);
    out[i].values[k] = (out[i].values[k] ?? 0) + w;
    out[i].total += w;
  }
  return out;
}

// ---------------------------------------------------------------------------
// Labels

export const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad = (n: number) => String(n).padStart(2, '0');

/** A short label for the bucket starting at t. */
export function bucketLabel(t: number, unit: TimeUnit): string {
  const d = new Date(t);
  switch (unit) {
    case 'hour':
      return `${pad(d.getHours())}:${pad(d.getMinutes())}`;
    case 'day':
    case 'week':
      return `${MONTHS[d.getMonth()]} ${d.getDate()}`;
    case 'month':
      return d.getMonth() === 0 ? String(d.getFullYear()) : MONTHS[d.getMonth()];
  }
}

/** A full description of a bucket for tooltips: "Sun Aug 16 2026, 14:00–15:00". */
export function bucketTitle(b: TimeBucket, unit: TimeUnit): string {
  const d = new Date(b.start);
  const days = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
  const date = `${days[d.getDay()]} ${MONTHS[d.getMonth()]} ${d.getDate()} ${d.getFullYear()}`;
  switch (unit) {
    case 'hour': {
      const e = new Date(b.end);
      return `${date}, ${pad(d.getHours())}:${pad(d.getMinutes())}–${pad(e.getHours())}:${pad(e.getMinutes())}`;
    }
    case 'day':
      return date;
    case 'week': {
      const e = new Date(b.end - 1);
      return `Week of ${MONTHS[d.getMonth()]} ${d.getDate()} – ${MONTHS[e.getMonth()]} ${e.getDate()} ${e.getFullYear()}`;
    }
    case 'month':
      return `${MONTHS[d.getMonth()]} ${d.getFullYear()}`;
  }
}

export interface Tick {
  index: number;
  label: string;
  /** A secondary line: the date under the first hour of a day, the year under January. */
  sub?: string;
}

/**
 * Which buckets get an x-axis label, at most about maxLabels of them, at calendar-
 * aligned places: every 1/2/3/6/12 hours on the hour, every 1/2 days, Mondays,
 * first days of months, and so on. A date or year is added where it changes.
 */
export function timeTicks(buckets: TimeBucket[], unit: TimeUnit, maxLabels: number): Tick[] {
  const n = buckets.length;
  if (!n) return [];
  const max = Math.max(1, maxLabels);
  const ds = buckets.map((b) => new Date(b.start));
  let pick: (d: Date, i: number) => boolean;
  const steps = (list: number[]) => list.find((s) => Math.ceil(n / s) <= max) ?? list[list.length - 1];
  switch (unit) {
    case 'hour': {
      const s = steps([1, 2, 3, 6, 12, 24]);
      pick = (d) => d.getMinutes() === 0 && d.getHours() % s === 0;
      break;
    }
    case 'day': {
      const s = steps([1, 2, 7, 14, 31, 62, 92]);
      if (s <= 2) pick = (d) => (d.getDate() - 1) % s === 0;
      else if (s === 7) pick = (d) => d.getDay() === 1;
      else if (s === 14) pick = (d) => d.getDate() === 1 || d.getDate() === 15;
      else pick = (d) => d.getDate() === 1 && d.getMonth() % Math.round(s / 31) === 0;
      break;
    }
    case 'week': {
      const s = steps([1, 2, 4, 8, 13, 26, 52]);
      pick = (_d, i) => i % s === 0;
      break;
    }
    default: {
      const s = steps([1, 2, 3, 6, 12, 24, 60]);
      pick = (d) => d.getMonth() % Math.min(s, 12) === 0 && (s <= 12 || d.getFullYear() % (s / 12) === 0);
    }
  }
  let ticks: Tick[] = [];
  let lastDay = '', lastYear = -1;
  ds.forEach((d, i) => {
    if (!pick(d, i)) return;
    const t: Tick = { index: i, label: bucketLabel(buckets[i].start, unit) };
    const day = localDateKey(buckets[i].start);
    if (unit === 'hour' && day !== lastDay) t.sub = `${MONTHS[d.getMonth()]} ${d.getDate()}`;
    if ((unit === 'day' || unit === 'week') && d.getFullYear() !== lastYear) t.sub = String(d.getFullYear());
    lastDay = day;
    lastYear = d.getFullYear();
    ticks.push(t);
  });
  // A calendar rule can pick nothing (a 5-hour span at 12-hour steps): label the first bucket.
  if (!ticks.length) {
    const d = ds[0];
    ticks = [{ index: 0, label: bucketLabel(buckets[0].start, unit), sub: unit === 'hour' ? `${MONTHS[d.getMonth()]} ${d.getDate()}` : undefined }];
  }
  return ticks;
}

// ---------------------------------------------------------------------------
// Arcs

/** An SVG path for a ring segment from angle a0 to a1 (radians, 0 = 12 o'clock, clockwise). */
export function arcPath(cx: number, cy: number, r0: number, r1: number, a0: number, a1: number): string {
  const full = a1 - a0 >= Math.PI * 2 - 1e-9;
  if (full) a1 = a0 + Math.PI * 2 - 1e-4;
  const pt = (r: number, a: number) => `${(cx + r * Math.sin(a)).toFixed(3)} ${(cy - r * Math.cos(a)).toFixed(3)}`;
  const large = a1 - a0 > Math.PI ? 1 : 0;
  return (
    `M${pt(r1, a0)}A${r1} ${r1} 0 ${large} 1 ${pt(r1, a1)}` +
    `L${pt(r0, a1)}A${r0} ${r0} 0 ${large} 0 ${pt(r0, a0)}Z`
  );
}

export interface ArcSlice<T> {
  item: T;
  a0: number;
  a1: number;
  fraction: number;
}

/** Angles for a donut of values (zero values get no slice); pad is the gap in radians. */
export function pieSlices<T>(items: T[], value: (x: T) => number, pad = 0): ArcSlice<T>[] {
  const vals = items.map((x) => Math.max(0, value(x)));
  const total = vals.reduce((a, b) => a + b, 0);
  if (!total) return [];
  const nonzero = vals.filter((v) => v > 0).length;
  const gap = nonzero > 1 ? pad : 0;
  const avail = Math.PI * 2 - gap * nonzero;
  const out: ArcSlice<T>[] = [];
  let a = 0;
  items.forEach((x, i) => {
    if (!vals[i]) return;
    const span = (vals[i] / total) * avail;
    out.push({ item: x, a0: a + gap / 2, a1: a + gap / 2 + span, fraction: vals[i] / total });
    a += span + gap;
  });
  return out;
}

/** Shortens a number for an axis: 1200 → 1.2k. */
export function axisNumber(v: number): string {
  const a = Math.abs(v);
  if (a >= 1e9) return +(v / 1e9).toFixed(1) + 'G';
  if (a >= 1e6) return +(v / 1e6).toFixed(1) + 'M';
  if (a >= 1e3) return +(v / 1e3).toFixed(1) + 'k';
  return String(+v.toFixed(2));
}
