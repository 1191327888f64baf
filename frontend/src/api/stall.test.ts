import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { STALL_MS, Stalls, stallMessage } from './stall';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('stalled calls', () => {
  it('counts a call as stalled after STALL_MS, and not once it is answered', () => {
    const s = new Stalls();
    const seen: number[] = [];
    s.subscribe((n) => seen.push(n));
    const done1 = s.track('Search', () => {});
    const done2 = s.track('Session', () => {});
    vi.advanceTimersByTime(STALL_MS - 1);
    expect(s.count()).toBe(0);
    vi.advanceTimersByTime(1);
    expect(s.count()).toBe(2);
    done1();
    done1(); // twice is once
    expect(s.count()).toBe(1);
    done2();
    expect(seen).toEqual([1, 2, 1, 0]);
  });

  it('a call answered in time never shows', () => {
    const s = new Stalls();
    const seen: number[] = [];
    s.subscribe((n) => seen.push(n));
    s.track('Info', () => {})();
    vi.advanceTimersByTime(STALL_MS * 2);
    expect(seen).toEqual([]);
  });

  it('Retry retries the stalled calls only', () => {
    const s = new Stalls();
    const retried: string[] = [];
    s.track('Search', () => retried.push('Search'));
    vi.advanceTimersByTime(STALL_MS / 2);
    s.track('Session', () => retried.push('Session'));
    vi.advanceTimersByTime(STALL_MS / 2);
    s.retry();
    expect(retried).toEqual(['Search']);
  });

  it('has words for stalled calls', () => {
    expect(stallMessage(0)).toBe('');
    expect(stallMessage(1)).toMatch(/Still waiting for an answer/);
    expect(stallMessage(3)).toMatch(/3 answers/);
  });
});
