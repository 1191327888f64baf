// One live-event stream per browser, shared by its tabs. A browser opens at most six
// HTTP/1.1 connections to one host; a stream per tab held them all once six tabs were
// open, and every call of every tab then waited behind them. So the tabs elect a
// leader with the Web Locks API: the tab holding the lock opens the EventSource and
// rebroadcasts what it hears over a BroadcastChannel; the others listen. When the
// leader's tab closes, the browser releases its lock and the next waiting tab takes
// over. Where either API is missing (a page that is not a secure context, such as
// `serve --allow-remote` over plain http), each tab has its own stream, as before.

/** The part of EventSource the stream uses (tests pass a fake). */
export interface StreamSource {
  readonly readyState: number;
  onopen: ((ev: Event) => unknown) | null;
  onerror: ((ev: Event) => unknown) | null;
  addEventListener(name: string, fn: (ev: MessageEvent) => void): void;
  close(): void;
}

/** The part of the Web Locks API the election uses. */
export interface Locks {
  request(name: string, options: { ifAvailable?: boolean }, cb: (lock: unknown) => Promise<unknown>): Promise<unknown>;
  request(name: string, cb: (lock: unknown) => Promise<unknown>): Promise<unknown>;
}

/** The part of BroadcastChannel the tabs talk over. */
export interface Channel {
  onmessage: ((ev: MessageEvent) => unknown) | null;
  postMessage(msg: unknown): void;
  close(): void;
}

/** What a tab learns about the stream: open (resync: events may have been missed,
 * so views refresh), retrying (the browser reconnects by itself), closed (the browser
 * gave up, e.g. on a 401; reopen() starts it again). */
export type StreamStatus = 'open' | 'retrying' | 'closed';

export interface StreamOptions {
  /** Event names to listen for (EventSource delivers only named listeners). */
  names: readonly string[];
  /** Opens the stream (new EventSource(url) in the browser). */
  open(): StreamSource;
  /** Delivers an event to this tab; data is the event's JSON text. */
  event(name: string, data: string): void;
  /** Reports the stream's state to this tab. */
  status(s: StreamStatus, resync: boolean): void;
  locks?: Locks;
  /** Makes the channel to the other tabs (new BroadcastChannel(name)). */
  channel?: (name: string) => Channel;
  /** Names the lock and the channel: tabs that share it share a stream. */
  key: string;
}

type Message = { t: 'event'; name: string; data: string } | { t: 'status'; s: StreamStatus; resync: boolean };

const CLOSED = 2; // EventSource.CLOSED, which Node (the unit tests) lacks

/** SharedStream is this tab's end of the browser's one event stream. */
export class SharedStream {
  private source: StreamSource | null = null;
  private chan: Channel | null = null;
  private release: (() => void) | null = null;
  private stopped = false;
  /** Whether this tab holds the stream. */
  leader = false;

  constructor(private readonly o: StreamOptions) {}

  /** Joins the election (or, without locks or channels, opens a stream of its own). */
  start(): void {
    const { locks, channel } = this.o;
    if (!locks || !channel) {
      this.lead(false);
      return;
    }
    const name = 'logbook-events:' + this.o.key; // the lock's and the channel's
    const chan = channel(name);
    this.chan = chan;
    chan.onmessage = (ev) => this.receive(ev.data as Message);
    const hold = (takeover: boolean) =>
      new Promise<void>((resolve) => {
        this.release = resolve;
        if (this.stopped) resolve();
        else this.lead(takeover);
      });
    // First without waiting, to tell the first tab (nothing was missed) from one taking
    // over from a leader that left (events may have been published in between).
    void locks.request(name, { ifAvailable: true }, (lock) => {
      if (lock) return hold(false);
      void locks.request(name, () => hold(true));
      return Promise.resolve();
    });
  }

  /** Opens the stream again after the browser gave up on it; only the leader can. */
  reopen(): void {
    if (this.leader && this.source?.readyState === CLOSED) this.connect(false);
  }

  /** Whether this tab's stream is closed for good (the browser gave up). */
  closed(): boolean {
    return this.leader && this.source?.readyState === CLOSED;
  }

  /** Leaves: closes the stream and hands the lock to the next tab. */
  stop(): void {
    this.stopped = true;
    this.source?.close();
    this.source = null;
    this.leader = false;
    this.release?.();
    this.chan?.close();
  }

  private lead(takeover: boolean) {
    this.leader = true;
    this.connect(takeover);
  }

  private connect(resync: boolean) {
    this.source?.close();
    const es = this.o.open();
    this.source = es;
    for (const name of this.o.names) {
      es.addEventListener(name, (ev) => {
        if (es !== this.source) return;
        this.o.event(name, ev.data);
        this.post({ t: 'event', name, data: ev.data });
      });
    }
    es.onopen = () => {
      if (es !== this.source) return;
      this.tell('open', resync);
      resync = false;
    };
    es.onerror = () => {
      if (es !== this.source) return;
      this.tell(es.readyState === CLOSED ? 'closed' : 'retrying', false);
    };
  }

  private tell(s: StreamStatus, resync: boolean) {
    this.o.status(s, resync);
    this.post({ t: 'status', s, resync });
  }

  private post(m: Message) {
    this.chan?.postMessage(m);
  }

  private receive(m: Message) {
    if (this.leader || this.stopped) return; // two leaders never coexist; ignore echoes
    if (m.t === 'event') this.o.event(m.name, m.data);
    else if (m.t === 'status') this.o.status(m.s, m.resync);
  }
}
