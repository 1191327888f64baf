import { afterEach, describe, expect, it, vi } from 'vitest';
import { SharedStream, type Channel, type Locks, type StreamSource, type StreamStatus } from './stream';

// Locks is an in-memory Web Locks manager: one holder per name, waiters in order.
class FakeLocks implements Locks {
  private held = new Set<string>();
  private waiting = new Map<string, (() => void)[]>();
  request(name: string, a: unknown, b?: unknown): Promise<unknown> {
    const opts = (typeof a === 'function' ? {} : a) as { ifAvailable?: boolean };
    const cb = (typeof a === 'function' ? a : b) as (lock: unknown) => Promise<unknown>;
    const run = () => {
      this.held.add(name);
      return cb({ name }).finally(() => {
        this.held.delete(name);
        this.waiting.get(name)?.shift()?.();
      });
    };
    if (!this.held.has(name)) return run();
    if (opts.ifAvailable) return cb(null);
    return new Promise((resolve) => {
      const q = this.waiting.get(name) ?? [];
      q.push(() => void run().then(resolve));
      this.waiting.set(name, q);
    });
  }
}

// FakeSource is an EventSource the test drives.
class FakeSource implements StreamSource {
  readyState = 0;
  onopen: ((ev: Event) => unknown) | null = null;
  onerror: ((ev: Event) => unknown) | null = null;
  private fns = new Map<string, (ev: MessageEvent) => void>();
  closedByTab = false;
  addEventListener(name: string, fn: (ev: MessageEvent) => void) {
    this.fns.set(name, fn);
  }
  close() {
    this.closedByTab = true;
    this.readyState = 2;
  }
  open() {
    this.readyState = 1;
    this.onopen?.(new Event('open'));
  }
  emit(name: string, data: unknown) {
    this.fns.get(name)?.({ data: JSON.stringify(data) } as MessageEvent);
  }
  fail(closed: boolean) {
    this.readyState = closed ? 2 : 0;
    this.onerror?.(new Event('error'));
  }
}

interface Tab {
  s: SharedStream;
  events: [string, unknown][];
  statuses: [StreamStatus, boolean][];
}

let key = 0;
const channels: Channel[] = [];
afterEach(() => channels.splice(0).forEach((c) => c.close()));

// browser returns a function that opens tabs sharing locks, channels and a record of
// the streams they opened.
function browser(opts: { locks?: boolean } = {}) {
  const locks = opts.locks === false ? undefined : new FakeLocks();
  const sources: FakeSource[] = [];
  const k = `test-${++key}`;
  return {
    sources,
    tab(): Tab {
      const t: Tab = { events: [], statuses: [], s: null as unknown as SharedStream };
      t.s = new SharedStream({
        key: k,
        names: ['archive:changed', 'import:done'],
        open: () => {
          const s = new FakeSource();
          sources.push(s);
          return s;
        },
        locks,
        channel: (name) => {
          const c = new BroadcastChannel(name) as unknown as Channel;
          channels.push(c);
          return c;
        },
        event: (name, data) => t.events.push([name, JSON.parse(data)]),
        status: (s, resync) => t.statuses.push([s, resync]),
      });
      t.s.start();
      return t;
    },
  };
}

describe('shared event stream', () => {
  it('opens one stream for many tabs and gives every tab its events', async () => {
    const b = browser();
    const tabs = [b.tab(), b.tab(), b.tab(), b.tab(), b.tab(), b.tab(), b.tab()];
    await vi.waitFor(() => expect(b.sources).toHaveLength(1));
    expect(tabs.map((t) => t.s.leader)).toEqual([true, false, false, false, false, false, false]);
    b.sources[0].open();
    b.sources[0].emit('archive:changed', { sessions: ['s-1'] });
    await vi.waitFor(() => tabs.forEach((t) => expect(t.events).toEqual([['archive:changed', { sessions: ['s-1'] }]])));
    tabs.forEach((t) => expect(t.statuses).toEqual([['open', false]]));
  });

  it('hands the stream to a waiting tab when the leader leaves, and asks every tab to refresh', async () => {
    const b = browser();
    const [a, c, d] = [b.tab(), b.tab(), b.tab()];
    await vi.waitFor(() => expect(b.sources).toHaveLength(1));
    b.sources[0].open();
    await vi.waitFor(() => expect(c.statuses).toEqual([['open', false]]));
    a.s.stop();
    expect(b.sources[0].closedByTab).toBe(true);
    await vi.waitFor(() => expect(b.sources).toHaveLength(2));
    expect(c.s.leader).toBe(true);
    expect(d.s.leader).toBe(false);
    b.sources[1].open();
    await vi.waitFor(() => expect(d.statuses).toEqual([['open', false], ['open', true]]));
    expect(c.statuses).toEqual([['open', false], ['open', true]]);
    b.sources[1].emit('import:done', { id: 3 });
    await vi.waitFor(() => expect(d.events).toEqual([['import:done', { id: 3 }]]));
    expect(a.events, 'a tab that left hears nothing').toEqual([]);
  });

  it('tells the followers when the stream is lost, and only the leader reopens it', async () => {
    const b = browser();
    const [a, c] = [b.tab(), b.tab()];
    await vi.waitFor(() => expect(b.sources).toHaveLength(1));
    b.sources[0].open();
    b.sources[0].fail(false);
    await vi.waitFor(() => expect(c.statuses.at(-1)).toEqual(['retrying', false]));
    b.sources[0].fail(true);
    await vi.waitFor(() => expect(c.statuses.at(-1)).toEqual(['closed', false]));
    expect(a.statuses.at(-1)).toEqual(['closed', false]);
    expect(a.s.closed()).toBe(true);
    expect(c.s.closed()).toBe(false);
    c.s.reopen();
    expect(b.sources).toHaveLength(1);
    a.s.reopen();
    expect(b.sources).toHaveLength(2);
    b.sources[0].emit('archive:changed', { sessions: ['late'] });
    expect(a.events, 'the replaced stream is ignored').toEqual([]);
  });

  it('gives each tab its own stream without the Web Locks API', async () => {
    const b = browser({ locks: false });
    const [a, c] = [b.tab(), b.tab()];
    expect(b.sources).toHaveLength(2);
    expect(a.s.leader && c.s.leader).toBe(true);
  });
});
