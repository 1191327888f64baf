// Whether the page can reach Logbook (`logbook serve`). The api module reports what
// its calls and the event stream see; App shows a banner while the link is down, and
// the views refresh when it comes back (they may have missed live events).

/** ok: calls get answers; down: nothing answers (stopped, or restarting); signed-out: it answers, but not to this page's token (it was restarted, or the page has none). */
export type LinkState = 'ok' | 'down' | 'signed-out';

type Listener = (s: LinkState, prev: LinkState) => void;

let state: LinkState = 'ok';
const subs = new Set<Listener>();

export function linkState(): LinkState {
  return state;
}

export function setLinkState(s: LinkState): void {
  if (s === state) return;
  const prev = state;
  state = s;
  for (const f of [...subs]) f(s, prev);
}

/** Subscribes to changes; returns the unsubscribe function. */
export function onLinkState(f: Listener): () => void {
  subs.add(f);
  return () => subs.delete(f);
}

/** What an HTTP answer says about the link: any answer means Logbook is up; 401 means this page's token is stale. */
export function stateOfStatus(status: number): LinkState {
  return status === 401 ? 'signed-out' : 'ok';
}

/** The sentence a person reads when a call could not reach Logbook at all. */
export const UNREACHABLE =
  'Could not reach Logbook. If it runs in a terminal (logbook serve), check that it is still running.';

/** The banner's text for a link state ('' when all is well). */
export function linkMessage(s: LinkState): string {
  switch (s) {
    case 'down':
      return 'Lost the connection to Logbook. Is logbook serve still running? Retrying…';
    case 'signed-out':
      return 'This page is not signed in to Logbook: it was restarted, or the page was opened without its link. Open the link logbook serve printed.';
    default:
      return '';
  }
}
