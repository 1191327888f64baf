// The one way the UI reaches Go: the functions the Wails generator writes from the
// bound Go methods (wailsjs/go/app/App, `make bindings`), with the generated types
// (api/types), so a Go method or field renamed without the UI following fails
// `npm run check`. Those functions call window.go.app.App: in the Wails window that
// is Wails' own object; in a browser (`logbook serve`) it is one this module puts
// there (api/bindings), which makes each call POST /api/<Method> with the arguments
// as a JSON array and the access token in a header (api/token). Live events come from
// the Wails runtime in the window and, in the browser, from one server-sent event
// stream (/api/events) its tabs share (api/stream).
import * as App from '../../wailsjs/go/app/App';
import type {
  EventMap, TimelineQuery, SearchRequest, ScheduleAction, ImportSettings, SchedulerConfig, SyncSettings, Wire, ExportOptions, RedactDecisions,
  WebhookSettings,
  UsageFilter, Prices,
} from './types';

export * from './types';
import { UNREACHABLE, linkState, setLinkState, stateOfStatus, type LinkState } from '../lib/connection';
import { browserBindings, boundObject, installBindings, type MethodName } from './bindings';
import { STALL_MS, stalls } from './stall';
import { SharedStream, type Locks } from './stream';
import { pageToken } from './token';

export { stalls, stallMessage } from './stall';

/** An error from the Go side, already phrased for a person (app.FormatError). */
export class ApiError extends Error {
  constructor(message: string, readonly status = 0) {
    super(message);
    this.name = 'ApiError';
  }
}

interface WailsWindow {
  runtime?: { EventsOn(name: string, cb: (...data: unknown[]) => void): () => void };
}

// The browser's stand-in for Wails' window.go.app.App: every generated function
// becomes an HTTP call (httpCall).
const shim = browserBindings((method, args) => httpCall(method, args));

/** True inside the Wails desktop window. */
export function isDesktop(): boolean {
  if (typeof window === 'undefined') return false;
  const b = boundObject(window);
  return b !== undefined && b !== shim;
}

// The browser's access token (api/token): taken from the link at once, so it leaves
// the address bar before anything else runs.
// (No window: a unit test importing a module that imports this one.)
const token: Promise<string> = typeof window === 'undefined' || isDesktop() ? Promise.resolve('') : pageToken();

// send is every call's request: JSON (which no HTML form can send), the token in a
// header and no cookie.
async function send(method: MethodName, body: string, signal: AbortSignal): Promise<Response> {
  return fetch('api/' + method, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Logbook-Token': await token },
    credentials: 'omit',
    body,
    signal,
  });
}

// run calls one generated binding. Wails rejects with the error's text (app.FormatError);
// httpCall already throws an ApiError. The answer is plain JSON in both: Wire<T>, the
// generated class's data without its methods.
async function run<T>(call: () => Promise<T>): Promise<Wire<T>> {
  if (typeof window !== 'undefined') installBindings(window, shim);
  try {
    return (await call()) as Wire<T>;
  } catch (e) {
    if (e instanceof ApiError) throw e;
    throw new ApiError(typeof e === 'string' ? e : String((e as Error)?.message ?? e));
  }
}

// arg passes a plain object where a generated binding takes a model class: Go reads
// a missing field as its zero value, and the class adds no data.
function arg<T>(v: Partial<Wire<T>>): T {
  return v as T;
}

// httpCall is a bound method called from a browser (app/server.go serveCall).
async function httpCall(method: MethodName, args: unknown[]): Promise<unknown> {
  let r: { status: number; ok: boolean; statusText: string; text: string };
  try {
    r = await post(method, JSON.stringify(args));
  } catch (e) {
    if (e instanceof ApiError) throw e;
    // No answer at all: the server is stopped or restarting.
    linkDown('down');
    throw new ApiError(UNREACHABLE, 0);
  }
  if (stateOfStatus(r.status) === 'signed-out') linkDown('signed-out');
  else linkUp();
  if (!r.ok) {
    let msg = r.text;
    try {
      msg = JSON.parse(msg).error ?? msg;
    } catch {
      /* plain text */
    }
    throw new ApiError(msg || r.statusText, r.status);
  }
  return JSON.parse(r.text);
}

// Methods that only read: Retry on a stalled one sends it again. A stalled change
// (an import, a schedule action) may have happened already, so Retry gives it up
// with words saying so, and the person checks before doing it again.
const readOnly = new Set<MethodName>([
  'Info', 'Sessions', 'Session', 'Timeline', 'SessionState', 'Search', 'Approvals', 'Compactions', 'ImportStatus',
  'FileProblems', 'InterruptedSessions', 'Schedules', 'ScheduleFires', 'ImportSettings', 'SchedulerConfig', 'APIKeys', 'ExportScan', 'ExportQuery',
  'WebhookSettings',
  'FileEdits', 'SessionUsage', 'Usage', 'SessionGists', 'Prices',
  'SyncStatus', 'SyncSettings', 'SessionsSync',
]);

const GAVE_UP =
  'Logbook did not answer in time, so the page stopped waiting. It may have done this anyway: check before trying again.';

// post sends one call and reads its whole answer; the stall watch may abort and
// resend it (Retry).
async function post(method: MethodName, body: string) {
  for (;;) {
    const ac = new AbortController();
    let retried = false;
    const done = stalls.track(method, () => {
      retried = true;
      ac.abort();
    });
    try {
      const r = await send(method, body, ac.signal);
      // The body can stall as well as the headers: read it under the same watch.
      return { status: r.status, ok: r.ok, statusText: r.statusText, text: await r.text() };
    } catch (e) {
      if (!retried) throw e;
      if (!readOnly.has(method)) throw new ApiError(GAVE_UP, 0);
    } finally {
      done();
    }
  }
}

type Listener = (data: unknown) => void;
const listeners = new Map<string, Set<Listener>>();
let stream: SharedStream | null = null;
let streamStarted = false;
const streamed = new Set<string>(); // event names the desktop runtime delivers

/** The events the browser stream carries (app/events.go and schedules.go publish them). */
const EVENT_NAMES: readonly (keyof EventMap)[] = [
  'import:progress', 'import:done', 'archive:changed', 'schedule:fired', 'follow:status', 'sync:progress', 'sync:done',
];

function deliver(name: string, data: unknown) {
  listeners.get(name)?.forEach((l) => l(data));
}

// tokenKey names the tabs that share a stream: those signed in with the same token
// (a tab holding a token from before a restart must not feed the others), without
// putting the token itself in lock and channel names.
function tokenKey(t: string): string {
  let h = 0x811c9dc5; // FNV-1a
  for (let i = 0; i < t.length; i++) h = Math.imul(h ^ t.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16);
}

async function openStream() {
  const t = await token;
  const nav = navigator as Navigator & { locks?: Locks };
  stream?.stop();
  stream = new SharedStream({
    names: EVENT_NAMES,
    key: tokenKey(t),
    // EventSource cannot send headers: the stream's URL carries the token. Only this
    // page's script requests it, so it shows in no address bar and no Referer.
    open: () => new EventSource('api/events?token=' + encodeURIComponent(t)),
    locks: nav.locks,
    channel: typeof BroadcastChannel === 'undefined' ? undefined : (name) => new BroadcastChannel(name),
    event: (name, data) => deliver(name, JSON.parse(data)),
    status: (s, resync) => {
      // retrying: the browser reconnects by itself; closed: it gave up (e.g. a 401 after
      // a restart), and the probe below reopens the stream once calls get answers again.
      if (s === 'open') linkUp(resync);
      else linkDown(s === 'closed' ? 'probe' : 'down');
    },
  });
  stream.start();
}

if (typeof addEventListener === 'function') {
  // Leaving hands the stream to another tab at once (closing the tab would, too); a
  // page brought back from the back-forward cache joins again.
  addEventListener('pagehide', () => stream?.stop());
  addEventListener('pageshow', (ev) => {
    if ((ev as PageTransitionEvent).persisted && streamStarted) void openStream();
  });
}

function ensureStream(name: string) {
  const rt = (window as unknown as WailsWindow).runtime;
  // One runtime listener per event name for the page's life: registering again
  // whenever the listener set was empty delivered each event twice after a view was
  // left and opened again.
  if (isDesktop() && rt) {
    if (!streamed.has(name)) {
      streamed.add(name);
      rt.EventsOn(name, (d) => deliver(name, d));
    }
    return;
  }
  if (!streamStarted) {
    streamStarted = true;
    void openStream();
  }
}

// While the link is down, ask every few seconds whether Logbook answers again.
let probeTimer: ReturnType<typeof setTimeout> | undefined;

function linkDown(s: LinkState | 'probe') {
  if (s !== 'probe') setLinkState(s);
  if (probeTimer === undefined) probeTimer = setTimeout(probe, 3000);
}

function linkUp(resync = false) {
  const reopen = stream?.closed() ?? false;
  if (linkState() === 'ok' && !reopen) {
    // A tab took the stream over from one that left: events may have been missed.
    if (resync) deliver('archive:changed', { sessions: null });
    return;
  }
  clearTimeout(probeTimer);
  probeTimer = undefined;
  setLinkState('ok');
  if (reopen) stream?.reopen();
  // Live events were missed while the link was down: every view refreshes.
  deliver('archive:changed', { sessions: null });
}

async function probe() {
  probeTimer = undefined;
  try {
    const r = await send('Info', '[]', AbortSignal.timeout(STALL_MS));
    if (stateOfStatus(r.status) === 'ok') return linkUp();
    linkDown('signed-out');
  } catch {
    linkDown('down');
  }
}

/** Subscribes to a live event; returns the unsubscribe function. */
export function on<K extends keyof EventMap>(name: K, cb: (data: EventMap[K]) => void): () => void {
  ensureStream(name);
  let set = listeners.get(name);
  if (!set) listeners.set(name, (set = new Set()));
  set.add(cb as Listener);
  return () => set!.delete(cb as Listener);
}

/** Calls cb whenever the archive changed (an import here or in another process);
 * returns the unsubscribe function. */
export function onArchiveChange(cb: () => void): () => void {
  const offs = [on('archive:changed', cb), on('import:done', cb)];
  return () => offs.forEach((off) => off());
}

/** uploadBundle sends a bundle file to `logbook serve` (POST api/upload/bundle),
 * which keeps it and imports it once; a refusal (too large, not a bundle, an
 * import running) throws an ApiError with the server's words. */
async function uploadBundle(file: File): Promise<void> {
  const r = await fetch('api/upload/bundle', {
    method: 'POST',
    headers: {
      'Content-Type': 'application/octet-stream',
      'X-Logbook-Token': await token,
      'X-Logbook-Filename': encodeURIComponent(file.name),
    },
    credentials: 'omit',
    body: file,
  });
  if (!r.ok) {
    let msg = await r.text();
    try {
      msg = JSON.parse(msg).error ?? msg;
    } catch {
      /* plain text */
    }
    throw new ApiError(msg || r.statusText, r.status);
  }
}

/** The bound Go methods, under the UI's names. */
export const api = {
  info: () => run(() => App.Info()),
  sessions: () => run(() => App.Sessions()),
  session: (id: string) => run(() => App.Session(id)),
  timeline: (id: string, q: TimelineQuery) => run(() => App.Timeline(id, arg(q))),
  sessionState: (id: string, seq: number) => run(() => App.SessionState(id, seq)),
  sessionTurns: (id: string) => run(() => App.SessionTurns(id)),
  search: (req: SearchRequest) => run(() => App.Search(arg(req))),
  approvals: () => run(() => App.Approvals()),
  compactions: () => run(() => App.Compactions()),
  importStatus: () => run(() => App.ImportStatus()),
  fileProblems: (path: string) => run(() => App.FileProblems(path)),
  /** The sessions whose log ends before its last turn ended (stopped or died mid-turn). */
  interruptedSessions: () => run(() => App.InterruptedSessions()),
  sessionsSync: () => run(() => App.SessionsSync()),
  startImport: () => run(() => App.StartImport()),
  /** Desktop: asks for a bundle file and imports it once; "" when cancelled. */
  importBundleFile: () => run(() => App.ImportBundleFile()),
  /** Browser: uploads a bundle (.logbook) to import once. */
  uploadBundle,
  createDemo: () => run(() => App.CreateDemo()),
  selfTest: (marker: string) => run(() => App.SelfTest(marker)),
  schedules: () => run(() => App.Schedules()),
  scheduleAction: (sessionId: string, scheduleId: string, action: ScheduleAction, snoozeMinutes = 0) =>
    run(() => App.ScheduleAction(sessionId, scheduleId, action, snoozeMinutes)),
  scheduleFires: (sessionId: string, scheduleId: string) => run(() => App.ScheduleFires(sessionId, scheduleId)),
  importSettings: () => run(() => App.ImportSettings()),
  followStatus: () => run(() => App.FollowStatus()),
  setImportSettings: (s: ImportSettings) => run(() => App.SetImportSettings(arg(s))),
  schedulerConfig: () => run(() => App.SchedulerConfig()),
  setSchedulerConfig: (c: SchedulerConfig) => run(() => App.SetSchedulerConfig(arg(c))),
  apiKeys: () => run(() => App.APIKeys()),
  newAPIKey: (name: string) => run(() => App.NewAPIKey(name)),
  revokeAPIKey: (name: string) => run(() => App.RevokeAPIKey(name)),
  webhookSettings: () => run(() => App.WebhookSettings()),
  setWebhookSettings: (s: WebhookSettings) => run(() => App.SetWebhookSettings(arg(s))),
  exportScan: (id: string, o: ExportOptions) => run(() => App.ExportScan(id, arg(o))),
  /** Every session a search finds (all its pages), for a bundle of them. */
  exportQuery: (query: string) => run(() => App.ExportQuery(query)),
  exportSession: (id: string, o: ExportOptions, d: RedactDecisions) => run(() => App.Export(id, arg(o), arg(d))),
  /** The file changes a session's tool calls made (Files-changed panel). */
  fileEdits: (id: string) => run(() => App.FileEdits(id)),
  /** A session's token usage per turn and model. */
  sessionUsage: (id: string) => run(() => App.SessionUsage(id)),
  /** The usage dashboard across sessions and projects. */
  usage: (f: UsageFilter) => run(() => App.Usage(arg(f))),
  /** Every session's row gist: last prompt, files changed, tool errors. */
  sessionGists: () => run(() => App.SessionGists()),
  prices: () => run(() => App.Prices()),
  setPrices: (p: Prices) => run(() => App.SetPrices(arg(p))),
  /** Sync: set up or not, the last sync's summary, pending bytes, errors and conflicts. */
  syncStatus: () => run(() => App.SyncStatus()),
  setSyncSettings: (s: SyncSettings) => run(() => App.SetSyncSettings(arg(s))),
  /** Starts one sync in the background; sync:progress and sync:done follow. */
  syncNow: () => run(() => App.SyncNow()),
  setUpSync: (remote: string, passphrase: string) => run(() => App.SetUpSync(remote, passphrase)),
};
