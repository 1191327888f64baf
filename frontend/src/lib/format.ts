// Formatting helpers shared by the views. Instants arrive as RFC 3339 UTC strings and
// are shown in the user's local time.

export function localTime(iso: string | null | undefined, withSeconds = false): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (isNaN(d.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  const s = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
  return withSeconds ? s + ':' + pad(d.getSeconds()) : s;
}

export function relativeTime(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return '';
  const t = new Date(iso).getTime();
  const s = Math.round((now - t) / 1000);
  const a = Math.abs(s);
  const f = (n: number, u: string) => `${n} ${u}${n === 1 ? '' : 's'}`;
  let txt: string;
  if (a < 60) txt = f(a, 'second');
  else if (a < 3600) txt = f(Math.round(a / 60), 'minute');
  else if (a < 86400) txt = f(Math.round(a / 3600), 'hour');
  else if (a < 86400 * 45) txt = f(Math.round(a / 86400), 'day');
  else if (a < 86400 * 365) txt = f(Math.round(a / (86400 * 30)), 'month');
  else txt = f(Math.round(a / (86400 * 365)), 'year');
  return s >= 0 ? txt + ' ago' : 'in ' + txt;
}

export function duration(ms: number): string {
  if (!isFinite(ms) || ms < 0) return '';
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${s % 60}s`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h ${m % 60}m`;
  return `${Math.floor(h / 24)}d ${h % 24}h`;
}

export function compact(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1e6) return (n / 1e3).toFixed(n < 1e4 ? 1 : 0) + 'k';
  if (n < 1e9) return (n / 1e6).toFixed(n < 1e7 ? 1 : 0) + 'M';
  return (n / 1e9).toFixed(1) + 'G';
}

export function bytes(n: number): string {
  const u = ['B', 'KB', 'MB', 'GB', 'TB'];
  let i = 0;
  while (n >= 1024 && i < u.length - 1) {
    n /= 1024;
    i++;
  }
  return (i === 0 ? n : n.toFixed(n < 10 ? 1 : 0)) + ' ' + u[i];
}

export function shortId(id: string): string {
  return id.replace(/^session-/, '').slice(0, 8);
}

// Terminal escapes: CSI (colours, cursor moves), OSC (titles, hyperlinks) and the
// two-character ones. Tool output from test runners and shells is full of them; shown
// raw they are a box glyph followed by "[31m" noise.
const ANSI = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\|$)|\x1b[ -/]+[0-~]|\x1b[@-Z\\-_]|\x9b[0-?]*[ -/]*[@-~]/g;

/** Text without terminal escape sequences, for display (copying keeps the raw text). */
export function stripAnsi(s: string): string {
  if (!s || (s.indexOf('\x1b') < 0 && s.indexOf('\x9b') < 0)) return s;
  return s.replace(ANSI, '');
}

/** The name an agent (a session's format: "dsh", "openhands") is shown by. */
export function agentLabel(agent: string | null | undefined): string {
  switch ((agent ?? '').toLowerCase()) {
    case 'openhands':
      return 'OpenHands';
    case 'dsh':
      return 'dsh';
    default:
      return agent ?? '';
  }
}
