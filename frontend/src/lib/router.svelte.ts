// A small hash router: #/<view>/<arg>?k=v. Hash routes keep the same bundle working
// from the Wails asset server and from `logbook serve` without server-side routes.

export interface Route {
  view: string; // sessions | session | search | approvals | compactions | schedules | usage | import | settings
  arg: string; // e.g. the session id for "session"
  params: URLSearchParams;
}

export function parseRoute(hash: string): Route {
  const h = hash.replace(/^#\/?/, '');
  const q = h.indexOf('?');
  const path = q < 0 ? h : h.slice(0, q);
  const params = new URLSearchParams(q < 0 ? '' : h.slice(q + 1));
  const [view, ...rest] = path.split('/');
  return { view: view || 'sessions', arg: decodeURIComponent(rest.join('/')), params };
}

export function href(view: string, arg = '', params: Record<string, string | number | undefined> = {}): string {
  let s = '#/' + view + (arg ? '/' + encodeURIComponent(arg) : '');
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') p.set(k, String(v));
  const qs = p.toString();
  return qs ? s + '?' + qs : s;
}

export function navigate(view: string, arg = '', params: Record<string, string | number | undefined> = {}) {
  location.hash = href(view, arg, params);
}

class RouterState {
  route = $state<Route>(parseRoute(location.hash));
  /** The hash of the last route of another view (e.g. the search a conversation was opened from). */
  previous = '';
  constructor() {
    window.addEventListener('hashchange', (e) => {
      const next = parseRoute(location.hash);
      if (next.view !== this.route.view) this.previous = new URL(e.oldURL).hash;
      this.route = next;
    });
  }
}

export const router = new RouterState();
