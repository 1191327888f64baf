// The browser's credential for `logbook serve` (app/auth.go). It never lives in a
// cookie: cookies ignore ports, so one for 127.0.0.1 would go to every server on this
// machine. The link carries it once (?token=); the page keeps it in sessionStorage,
// which is per origin (port included) and per tab and survives a reload, and takes it
// out of the address bar. A tab opened without the link asks the other tabs of the
// same origin for it over a BroadcastChannel, which no other origin can join.

const KEY = 'logbook.token';
const ASK_MS = 400;

/** The parts of the page the token comes from (tests pass fakes). */
export interface TokenPlace {
  href: string;
  storage: Pick<Storage, 'getItem' | 'setItem'> | null;
  /** Replaces the address-bar URL without loading it (history.replaceState). */
  replace(url: string): void;
}

/** Takes ?token= out of the page's URL into storage and returns the token there
 * ('' when neither has one). */
export function takeToken(p: TokenPlace): string {
  const u = new URL(p.href);
  const fromURL = u.searchParams.get('token');
  if (fromURL !== null) {
    u.searchParams.delete('token');
    p.replace(u.pathname + u.search + u.hash);
    if (fromURL) {
      try {
        p.storage?.setItem(KEY, fromURL);
      } catch {
        /* storage disabled: the token lives in this page's memory only */
      }
      return fromURL;
    }
  }
  try {
    return p.storage?.getItem(KEY) ?? '';
  } catch {
    return '';
  }
}

type Ask = { t: 'token?' } | { t: 'token'; token: string };

/** Answers other tabs asking for the token, and, when this tab has none, asks them
 * (waiting at most ASK_MS). Resolves to the token, '' when nobody had one. */
export function shareToken(
  mine: string,
  chan: { onmessage: ((ev: MessageEvent) => unknown) | null; postMessage(m: unknown): void } | null,
  save: (t: string) => void,
): Promise<string> {
  if (!chan) return Promise.resolve(mine);
  let token = mine;
  let answer: ((t: string) => void) | null = null;
  chan.onmessage = (ev) => {
    const m = ev.data as Ask;
    if (m?.t === 'token?' && token) chan.postMessage({ t: 'token', token });
    else if (m?.t === 'token' && !token && m.token) {
      token = m.token;
      save(token);
      answer?.(token);
    }
  };
  if (token) return Promise.resolve(token);
  return new Promise((resolve) => {
    answer = resolve;
    chan.postMessage({ t: 'token?' });
    setTimeout(() => resolve(token), ASK_MS);
  });
}

/** This page's token, once known: from the link, storage, or another tab. */
export function pageToken(): Promise<string> {
  if (typeof location === 'undefined') return Promise.resolve('');
  let storage: Storage | null = null;
  try {
    storage = sessionStorage;
  } catch {
    /* blocked */
  }
  const mine = takeToken({ href: location.href, storage, replace: (u) => history.replaceState(history.state, '', u) });
  const chan = typeof BroadcastChannel === 'undefined' ? null : new BroadcastChannel('logbook-token');
  return shareToken(mine, chan, (t) => {
    try {
      storage?.setItem(KEY, t);
    } catch {
      /* memory only */
    }
  });
}
