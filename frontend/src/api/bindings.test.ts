import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as App from '../../wailsjs/go/app/App';
import { METHODS, browserBindings, installBindings } from './bindings';
import declarations from '../../wailsjs/go/app/App.d.ts?raw';

// A page of `logbook serve`: the link carried token t0k, and fetch answers what the
// test says. The api module is loaded afresh into it, as the bundle is.
type Fetch = (url: string, init: RequestInit) => Promise<Response>;

function page(answer: Fetch, w: Record<string, unknown> = {}) {
  const fetch = vi.fn(answer);
  const store = new Map<string, string>();
  vi.stubGlobal('window', w);
  vi.stubGlobal('location', { href: 'http://127.0.0.1:8765/?token=t0k' });
  vi.stubGlobal('history', { state: null, replaceState: () => {} });
  vi.stubGlobal('sessionStorage', { getItem: (k: string) => store.get(k) ?? null, setItem: (k: string, v: string) => store.set(k, v) });
  vi.stubGlobal('BroadcastChannel', undefined);
  vi.stubGlobal('fetch', fetch);
  return fetch;
}

const json = (status: number, v: unknown) =>
  Promise.resolve(new Response(JSON.stringify(v), { status, headers: { 'Content-Type': 'application/json' } }));

beforeEach(() => vi.resetModules());
afterEach(() => vi.unstubAllGlobals());

describe('the browser bindings', () => {
  it('send a generated binding call to POST api/<Method> with the token', async () => {
    const fetch = page(() => json(200, { session_id: 's1', items: [], has_before: false, has_after: false, total: 0 }));
    const { api, isDesktop } = await import('./index');
    expect(await api.timeline('s1', { around: 7, limit: 50 })).toEqual({
      session_id: 's1', items: [], has_before: false, has_after: false, total: 0,
    });
    expect(isDesktop()).toBe(false);
    // The generated function itself, as the api module calls it, goes the same way.
    await App.Sessions();
    expect(fetch.mock.calls.map((c) => c[0])).toEqual(['api/Timeline', 'api/Sessions']);
    const [, init] = fetch.mock.calls[0];
    expect(init.method).toBe('POST');
    expect(init.credentials).toBe('omit');
    expect(init.headers).toEqual({ 'Content-Type': 'application/json', 'X-Logbook-Token': 't0k' });
    expect(JSON.parse(init.body as string)).toEqual(['s1', { around: 7, limit: 50 }]);
    expect(fetch.mock.calls[1][1].body).toBe('[]');
  });

  it('turn the server error shape into an ApiError with its status', async () => {
    page(() => json(404, { error: 'That session is not in the archive.' }));
    const { api, ApiError } = await import('./index');
    const err = await api.session('nope').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ message: 'That session is not in the archive.', status: 404 });
  });

  it('leave the Wails window its own bindings', async () => {
    const wails = { Info: vi.fn(() => Promise.resolve({ mode: 'desktop' })), Search: vi.fn(() => Promise.reject('index is not open')) };
    const fetch = page(() => json(500, {}), { go: { app: { App: wails } } });
    const { api, isDesktop, ApiError } = await import('./index');
    expect(isDesktop()).toBe(true);
    expect(await api.info()).toEqual({ mode: 'desktop' });
    const err = await api.search({ query: 'x' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ message: 'index is not open' });
    expect(wails.Search).toHaveBeenCalledWith({ query: 'x' });
    expect(fetch).not.toHaveBeenCalled();
  });

  it('have a method for every function the generator wrote, and no other', () => {
    const declared = [...declarations.matchAll(/^export function (\w+)\(/gm)].map((m) => m[1]);
    expect([...METHODS].sort()).toEqual(declared.sort());
    const sent: string[] = [];
    const o = browserBindings((m) => (sent.push(m), Promise.resolve(null)));
    for (const m of declared) void (o as Record<string, () => Promise<unknown>>)[m]();
    expect(sent).toEqual(declared);
    // Nothing replaces bindings already there (the Wails window's).
    const w = { go: { app: { App: o } } };
    expect(installBindings(w, browserBindings(() => Promise.resolve(null)))).toBe(o);
  });
});
