import { afterEach, describe, expect, it } from 'vitest';
import { shareToken, takeToken } from './token';

function place(href: string, stored: Record<string, string> = {}) {
  const replaced: string[] = [];
  return {
    replaced,
    stored,
    href,
    storage: { getItem: (k: string) => stored[k] ?? null, setItem: (k: string, v: string) => void (stored[k] = v) },
    replace: (u: string) => void replaced.push(u),
  };
}

describe('page token', () => {
  it('takes the token out of the address bar into session storage', () => {
    const p = place('http://127.0.0.1:8765/?token=abc&x=1#/search?q=a');
    expect(takeToken(p)).toBe('abc');
    expect(p.replaced).toEqual(['/?x=1#/search?q=a']);
    expect(p.stored).toEqual({ 'logbook.token': 'abc' });
  });
  it('finds it in storage after a reload, and leaves the URL alone', () => {
    const p = place('http://127.0.0.1:8765/#/sessions', { 'logbook.token': 'abc' });
    expect(takeToken(p)).toBe('abc');
    expect(p.replaced).toEqual([]);
  });
  it('a new link replaces the stored token', () => {
    const p = place('http://127.0.0.1:8765/?token=new', { 'logbook.token': 'old' });
    expect(takeToken(p)).toBe('new');
    expect(p.stored['logbook.token']).toBe('new');
  });
  it('works without storage, and says when it has none', () => {
    expect(takeToken({ href: 'http://h/?token=t', storage: null, replace: () => {} })).toBe('t');
    expect(takeToken(place('http://h/'))).toBe('');
  });
});

const chans: BroadcastChannel[] = [];
afterEach(() => chans.splice(0).forEach((c) => c.close()));
function chan(name: string) {
  const c = new BroadcastChannel(name);
  chans.push(c);
  return c as unknown as Parameters<typeof shareToken>[1];
}

describe('token from another tab', () => {
  it('a tab opened without the link gets the token of a signed-in tab of the same origin', async () => {
    void shareToken('abc', chan('t1'), () => {});
    const saved: string[] = [];
    expect(await shareToken('', chan('t1'), (t) => saved.push(t))).toBe('abc');
    expect(saved).toEqual(['abc']);
  });
  it('gives up soon when no tab has one', async () => {
    void shareToken('', chan('t2'), () => {});
    const start = Date.now();
    expect(await shareToken('', chan('t2'), () => {})).toBe('');
    expect(Date.now() - start).toBeLessThan(2000);
  });
});
