// Copies exact text: the async Clipboard API where allowed, else a hidden textarea
// (the desktop webview may not expose navigator.clipboard on its custom scheme).
export async function copyText(text: string): Promise<boolean> {
  try {
    if (navigator.clipboard?.writeText) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    /* fall back */
  }
  const ta = document.createElement('textarea');
  ta.value = text;
  ta.setAttribute('readonly', '');
  ta.style.position = 'fixed';
  ta.style.opacity = '0';
  ta.style.pointerEvents = 'none';
  document.body.appendChild(ta);
  ta.select();
  let ok = false;
  try {
    ok = document.execCommand('copy');
  } catch {
    ok = false;
  }
  ta.remove();
  return ok;
}

interface WailsRuntime {
  runtime?: { BrowserOpenURL?: (url: string) => void };
}

/** Opens an external link outside the app: the system browser in the desktop window. */
export function openExternal(url: string) {
  const rt = (window as unknown as WailsRuntime).runtime;
  if (rt?.BrowserOpenURL) rt.BrowserOpenURL(url);
  else window.open(url, '_blank', 'noopener,noreferrer');
}
