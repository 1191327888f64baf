// Line diffs for edits and writes: an LCS line diff (after trimming the common head
// and tail, so a one-line change in a long block costs nothing), grouped into hunks
// with context lines, and paired into rows for a side-by-side view.

/** One line of a diff: kept (eq), removed (del) or added (add), with its 1-based line numbers. */
export interface DiffLine {
  kind: 'eq' | 'del' | 'add';
  text: string;
  /** Line number in the old text (eq and del). */
  a?: number;
  /** Line number in the new text (eq and add). */
  b?: number;
}

/** A run of changed lines with the context around them. */
export interface Hunk {
  lines: DiffLine[];
  aStart: number;
  aLen: number;
  bStart: number;
  bLen: number;
  /** Unchanged lines hidden before this hunk. */
  skippedBefore: number;
}

/** Splits text into lines; a final newline does not make an empty last line. */
export function splitLines(s: string): string[] {
  if (!s) return [];
  const lines = s.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
}

/** Above this many cells the LCS table is not built and the middle is shown replaced whole. */
const maxCells = 4_000_000;

/** The line diff of a → b, in order. */
export function diffLines(a: string[], b: string[]): DiffLine[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const out: DiffLine[] = [];
  for (let i = 0; i < head; i++) out.push({ kind: 'eq', text: a[i], a: i + 1, b: i + 1 });
  middle(a, b, head, a.length - tail, head, b.length - tail, out);
  for (let k = tail; k > 0; k--) {
    const i = a.length - k;
    const j = b.length - k;
    out.push({ kind: 'eq', text: a[i], a: i + 1, b: j + 1 });
  }
  return out;
}

function middle(a: string[], b: string[], a0: number, a1: number, b0: number, b1: number, out: DiffLine[]) {
  const n = a1 - a0;
  const m = b1 - b0;
  if (n === 0 || m === 0 || n * m > maxCells) {
    for (let i = a0; i < a1; i++) out.push({ kind: 'del', text: a[i], a: i + 1 });
    for (let j = b0; j < b1; j++) out.push({ kind: 'add', text: b[j], b: j + 1 });
    return;
  }
  // lcs[i*(m+1)+j] = length of the LCS of a[a0+i:a1] and b[b0+j:b1].
  const w = m + 1;
  const lcs = new Uint32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * w + j] = a[a0 + i] === b[b0 + j] ? lcs[(i + 1) * w + j + 1] + 1 : Math.max(lcs[(i + 1) * w + j], lcs[i * w + j + 1]);
    }
  }
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[a0 + i] === b[b0 + j]) {
      out.push({ kind: 'eq', text: a[a0 + i], a: a0 + i + 1, b: b0 + j + 1 });
      i++;
      j++;
    } else if (lcs[(i + 1) * w + j] >= lcs[i * w + j + 1]) {
      out.push({ kind: 'del', text: a[a0 + i], a: a0 + i + 1 });
      i++;
    } else {
      out.push({ kind: 'add', text: b[b0 + j], b: b0 + j + 1 });
      j++;
    }
  }
  for (; i < n; i++) out.push({ kind: 'del', text: a[a0 + i], a: a0 + i + 1 });
  for (; j < m; j++) out.push({ kind: 'add', text: b[b0 + j], b: b0 + j + 1 });
}

/** The line diff of two texts. */
export function diffText(oldText: string, newText: string): DiffLine[] {
  return diffLines(splitLines(oldText), splitLines(newText));
}

/** How many lines a diff adds and removes. */
export function diffCounts(lines: DiffLine[]): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const l of lines) {
    if (l.kind === 'add') added++;
    else if (l.kind === 'del') removed++;
  }
  return { added, removed };
}

/**
 * Groups a diff into hunks: each change with up to context unchanged lines around
 * it; changes closer than 2×context share a hunk. A diff with no change has no hunk.
 */
export function hunks(lines: DiffLine[], context = 3): Hunk[] {
  const changed: number[] = [];
  lines.forEach((l, i) => l.kind !== 'eq' && changed.push(i));
  if (!changed.length) return [];
  const out: Hunk[] = [];
  let start = Math.max(0, changed[0] - context);
  let end = Math.min(lines.length, changed[0] + context + 1);
  let prevEnd = 0;
  const close = () => {
    const ls = lines.slice(start, end);
    const firstA = ls.find((l) => l.a !== undefined)?.a ?? aBefore(lines, start) + 1;
    const firstB = ls.find((l) => l.b !== undefined)?.b ?? bBefore(lines, start) + 1;
    out.push({
      lines: ls,
      aStart: firstA,
      aLen: ls.filter((l) => l.kind !== 'add').length,
      bStart: firstB,
      bLen: ls.filter((l) => l.kind !== 'del').length,
      skippedBefore: start - prevEnd,
    });
    prevEnd = end;
  };
  for (const c of changed.slice(1)) {
    if (c - context <= end) end = Math.min(lines.length, c + context + 1);
    else {
      close();
      start = c - context;
      end = Math.min(lines.length, c + context + 1);
    }
  }
  close();
  return out;
}

function aBefore(lines: DiffLine[], i: number): number {
  for (let k = i - 1; k >= 0; k--) if (lines[k].a !== undefined) return lines[k].a!;
  return 0;
}

function bBefore(lines: DiffLine[], i: number): number {
  for (let k = i - 1; k >= 0; k--) if (lines[k].b !== undefined) return lines[k].b!;
  return 0;
}

/** Unchanged lines after the last hunk. */
export function skippedAfter(lines: DiffLine[], hs: Hunk[]): number {
  if (!hs.length) return 0;
  const last = hs[hs.length - 1].lines;
  return lines.length - (lines.indexOf(last[last.length - 1]) + 1);
}

/** One row of a side-by-side view: the old line on the left, the new on the right. */
export interface SideRow {
  left?: DiffLine;
  right?: DiffLine;
}

/** Pairs a hunk's lines for a side-by-side view: removed lines face the lines added in their place. */
export function sideBySide(lines: DiffLine[]): SideRow[] {
  const rows: SideRow[] = [];
  let i = 0;
  while (i < lines.length) {
    if (lines[i].kind === 'eq') {
      rows.push({ left: lines[i], right: lines[i] });
      i++;
      continue;
    }
    const dels: DiffLine[] = [];
    const adds: DiffLine[] = [];
    while (i < lines.length && lines[i].kind === 'del') dels.push(lines[i++]);
    while (i < lines.length && lines[i].kind === 'add') adds.push(lines[i++]);
    for (let k = 0; k < Math.max(dels.length, adds.length); k++) rows.push({ left: dels[k], right: adds[k] });
  }
  return rows;
}

/** The highlight.js language of a file path, by extension or name; '' when unknown. */
export function languageOf(path: string | undefined): string {
  if (!path) return '';
  const base = path.split(/[\\/]/).pop()!.toLowerCase();
  if (base === 'dockerfile') return 'dockerfile';
  if (base === 'makefile' || base === 'gnumakefile') return 'makefile';
  const ext = base.includes('.') ? base.slice(base.lastIndexOf('.') + 1) : '';
  return extLanguages[ext] ?? '';
}

const extLanguages: Record<string, string> = {
  go: 'go', py: 'python', pyi: 'python', js: 'javascript', mjs: 'javascript', cjs: 'javascript', jsx: 'javascript',
  ts: 'typescript', tsx: 'typescript', mts: 'typescript', svelte: 'xml', vue: 'xml', html: 'xml', htm: 'xml', xml: 'xml',
  svg: 'xml', css: 'css', scss: 'css', json: 'json', jsonl: 'json', yaml: 'yaml', yml: 'yaml', toml: 'ini', ini: 'ini',
  cfg: 'ini', md: 'markdown', markdown: 'markdown', sh: 'bash', bash: 'bash', zsh: 'bash', ps1: 'powershell',
  psm1: 'powershell', rs: 'rust', c: 'c', h: 'c', cc: 'cpp', cpp: 'cpp', hpp: 'cpp', java: 'java', sql: 'sql',
  diff: 'diff', patch: 'diff', mk: 'makefile',
};
