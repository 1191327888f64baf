// What a list view leaves behind when the reader opens a conversation from it, so the
// back button finds the same filters, sort and scroll position (views are unmounted
// while another is shown). Kept for the page's lifetime only.

const store = new Map<string, unknown>();

export function remember<T>(view: string, state: T): void {
  store.set(view, state);
}

export function recall<T>(view: string): T | undefined {
  return store.get(view) as T | undefined;
}

export function forget(view: string): void {
  store.delete(view);
}

/** The scroll container the list views scroll in (App's main area). */
export function contentScroller(): HTMLElement | null {
  return document.querySelector<HTMLElement>('main.content');
}

/**
 * Follows the main area's scroll position while a view is mounted; returns the
 * current position and a stop function. restoreTo is applied once, when ready() is
 * first called with true (after the data that makes the page tall has arrived).
 */
export function trackScroll(restoreTo = 0): { position: () => number; ready: () => void; stop: () => void } {
  const el = contentScroller();
  let pos = el?.scrollTop ?? 0;
  let restored = restoreTo <= 0;
  const onScroll = () => (pos = el?.scrollTop ?? 0);
  el?.addEventListener('scroll', onScroll, { passive: true });
  return {
    position: () => pos,
    ready: () => {
      if (restored || !el) return;
      restored = true;
      requestAnimationFrame(() => {
        el.scrollTop = restoreTo;
        pos = el.scrollTop;
      });
    },
    stop: () => el?.removeEventListener('scroll', onScroll),
  };
}
