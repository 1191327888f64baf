// The find of one conversation: runs the query within the session on the server's
// index, counted exactly (an exhaustive search), page after page until every hit is
// in, and keeps the hits in reading order with the current one. Past the first page
// a hit keeps no fragments (a session may match tens of thousands of blocks): the
// view asks for a hit's fragments when it shows it (one()). The view does the
// jumping (Conversation.svelte).
import { api, type Hit } from '../../api';
import { hitIndex, markedTerms, orderHits, queryWords, sessionQuery, termPattern } from '../../lib/find';
import { errorMessage } from '../../lib/search';

const PAGE = 500;

export class Finder {
  query = $state('');
  hits = $state.raw<Hit[]>([]);
  total = $state(0);
  exact = $state(true);
  cur = $state(-1);
  busy = $state(false);
  error = $state('');
  /** The words to mark: those the index marked in the hits, else the query's words. */
  pattern = $derived(termPattern([...new Set([...markedTerms(this.hits.slice(0, 400).flatMap((h) => h.fragments)), ...queryWords(this.query)])]));
  private req = 0;

  /** Runs q within the session; cur is then the hit at (seq, kind) when given. */
  async run(q: string, sessionId: string, at?: { seq: number; kind: string | null }): Promise<void> {
    const id = ++this.req;
    this.query = q;
    this.error = '';
    this.cur = -1;
    if (!q.trim()) {
      this.hits = [];
      this.total = 0;
      this.busy = false;
      return;
    }
    this.busy = true;
    try {
      const query = sessionQuery(q, sessionId);
      let r = await api.search({ query, sort: 'recent', limit: PAGE, exhaustive: true });
      if (id !== this.req) return;
      let got = r.hits;
      this.total = r.total;
      this.exact = r.total_exact;
      this.hits = orderHits(got);
      if (at) this.cur = hitIndex(this.hits, at.seq, at.kind);
      while (r.next_cursor) {
        r = await api.search({ query, sort: 'recent', limit: PAGE, cursor: r.next_cursor, exhaustive: true });
        if (id !== this.req) return;
        got = got.concat(r.hits.map((h) => ({ ...h, fragments: [] })));
        const keep = this.cur >= 0 ? this.hits[this.cur] : null;
        this.hits = orderHits(got);
        if (keep) this.cur = hitIndex(this.hits, keep.seq, keep.kind);
        else if (at) this.cur = hitIndex(this.hits, at.seq, at.kind);
      }
    } catch (e) {
      if (id === this.req) this.error = errorMessage(e);
    } finally {
      if (id === this.req) this.busy = false;
    }
  }

  /** The hit at seq (of that kind when given) alone: quick, for the block opened from Search. */
  async one(q: string, sessionId: string, seq: number, kind: string | null): Promise<Hit | null> {
    try {
      const r = await api.search({ query: `${sessionQuery(q, sessionId)} seq:${seq}`, limit: 10 });
      const hs = orderHits(r.hits);
      const i = hitIndex(hs, seq, kind);
      return i >= 0 ? hs[i] : null;
    } catch {
      return null;
    }
  }

  clear() {
    this.req++;
    this.query = '';
    this.hits = [];
    this.total = 0;
    this.cur = -1;
    this.busy = false;
    this.error = '';
  }
}
