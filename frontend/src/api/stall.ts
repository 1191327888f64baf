// Calls that take too long. A call whose answer has not come after STALL_MS is
// "stalled": the page says so (App's banner: still waiting, with a Retry button)
// instead of leaving a view on its skeletons with no word.

/** How long a call may wait before the page says it is still waiting. */
export const STALL_MS = 10_000;

interface Pending {
  method: string;
  retry: () => void;
  timer: ReturnType<typeof setTimeout>;
  stalled: boolean;
}

/** Stalls keeps the calls in flight and which of them are stalled. */
export class Stalls {
  private pending = new Set<Pending>();
  private subs = new Set<(n: number) => void>();

  constructor(private readonly after = STALL_MS) {}

  /** Registers a call in flight; retry is what Retry does for it. Returns done, to
   * call when the answer came (or the call failed). */
  track(method: string, retry: () => void): () => void {
    const p: Pending = { method, retry, stalled: false, timer: undefined as unknown as ReturnType<typeof setTimeout> };
    p.timer = setTimeout(() => {
      p.stalled = true;
      this.notify();
    }, this.after);
    this.pending.add(p);
    return () => {
      if (!this.pending.delete(p)) return;
      clearTimeout(p.timer);
      if (p.stalled) this.notify();
    };
  }

  /** The number of stalled calls. */
  count(): number {
    let n = 0;
    for (const p of this.pending) if (p.stalled) n++;
    return n;
  }

  /** Retries every stalled call (each is sent again and has STALL_MS anew). */
  retry(): void {
    for (const p of [...this.pending]) if (p.stalled) p.retry();
  }

  /** Subscribes to the count of stalled calls; returns the unsubscribe function. */
  subscribe(f: (n: number) => void): () => void {
    this.subs.add(f);
    return () => this.subs.delete(f);
  }

  private notify() {
    const n = this.count();
    for (const f of [...this.subs]) f(n);
  }
}

/** The page's calls. */
export const stalls = new Stalls();

/** The sentence for n stalled calls ('' for none). */
export function stallMessage(n: number): string {
  if (n <= 0) return '';
  const what = n === 1 ? 'an answer' : `${n} answers`;
  return `Still waiting for ${what} from Logbook (over ${STALL_MS / 1000} s). It may be busy, or the connection stuck.`;
}
