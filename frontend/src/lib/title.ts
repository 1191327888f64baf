// The browser tab's and the desktop window's title: the open session's title, then
// the app's name; the app's name alone elsewhere.

export const APP_NAME = 'Logbook';

interface WailsWindow {
  runtime?: { WindowSetTitle?: (title: string) => void };
}

/** The title shown for a session titled t (none: the app's name alone). */
export function windowTitle(t?: string | null): string {
  const s = (t ?? '').replace(/\s+/g, ' ').trim();
  return s ? `${s.length > 80 ? s.slice(0, 79) + '…' : s} — ${APP_NAME}` : APP_NAME;
}

/** Sets the tab's title and, in the desktop window, the window's. */
export function setWindowTitle(t?: string | null) {
  const title = windowTitle(t);
  if (typeof document !== 'undefined') document.title = title;
  const rt = typeof window !== 'undefined' ? (window as unknown as WailsWindow).runtime : undefined;
  try {
    rt?.WindowSetTitle?.(title);
  } catch {
    /* the window is closing */
  }
}
