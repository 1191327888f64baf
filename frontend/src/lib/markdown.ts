// Markdown for untrusted session content (assistant answers, compaction summaries).
//
// Two layers keep it safe:
//  1. The renderer never passes raw HTML through: HTML in the source is shown as
//     text (an archive shows what the model wrote), links keep only http(s) and
//     mailto URLs (everything else — javascript:, data:, relative paths that would
//     hit the app's own routes — becomes plain text with the URL as a tooltip), and
//     images are not loaded (a local archive must not call out to trackers) but shown
//     as links. Every other piece of HTML comes from marked's renderers, which escape.
//  2. DOMPurify then sanitizes the result wherever a DOM exists (the app), and the
//     anchors it keeps get target=_blank rel=noopener.
// Code blocks are highlighted with highlight.js core and a fixed set of languages.
import { Marked, type Tokens } from 'marked';
import DOMPurify from 'dompurify';
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import c from 'highlight.js/lib/languages/c';
import cpp from 'highlight.js/lib/languages/cpp';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import dockerfile from 'highlight.js/lib/languages/dockerfile';
import go from 'highlight.js/lib/languages/go';
import ini from 'highlight.js/lib/languages/ini';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import makefile from 'highlight.js/lib/languages/makefile';
import markdown from 'highlight.js/lib/languages/markdown';
import plaintext from 'highlight.js/lib/languages/plaintext';
import powershell from 'highlight.js/lib/languages/powershell';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import shell from 'highlight.js/lib/languages/shell';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';
import { stripAnsi } from './format';

const languages = {
  bash, c, cpp, css, diff, dockerfile, go, ini, java, javascript, json, makefile, markdown, plaintext, powershell,
  python, rust, shell, sql, typescript, xml, yaml,
};
for (const [name, lang] of Object.entries(languages)) hljs.registerLanguage(name, lang);
hljs.registerAliases(['toml', 'cfg', 'conf'], { languageName: 'ini' });
hljs.registerAliases(['ps', 'ps1', 'pwsh'], { languageName: 'powershell' });
hljs.registerAliases(['sh', 'zsh'], { languageName: 'bash' });
hljs.registerAliases(['console', 'shell-session', 'terminal'], { languageName: 'shell' });
hljs.registerAliases(['text', 'txt', 'plain', 'log'], { languageName: 'plaintext' });
hljs.registerAliases(['golang'], { languageName: 'go' });

/** Whether a fence language is highlighted (after aliases). */
export function knownLanguage(lang: string): boolean {
  return !!lang && !!hljs.getLanguage(lang);
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);
}

/** Highlights code in a known language; anything else is escaped as is. */
export function highlightCode(code: string, lang: string): string {
  const l = (lang || '').trim().toLowerCase();
  if (knownLanguage(l) && code.length < 200_000) {
    try {
      return hljs.highlight(code, { language: l, ignoreIllegals: true }).value;
    } catch {
      /* fall through to plain */
    }
  }
  return escapeHtml(code);
}

/** A URL a link may open: absolute http(s) or mailto, with no control characters. */
export function safeUrl(href: string | null | undefined): string | null {
  if (!href) return null;
  // eslint-disable-next-line no-control-regex
  const u = href.trim().replace(/[\u0000-\u001f\u007f\s]+/g, '');
  if (!/^(https?:\/\/[^/]|mailto:)/i.test(u)) return null;
  try {
    return encodeURI(decodeURI(u));
  } catch {
    return encodeURI(u);
  }
}

// CommonMark decides whether ** opens or closes by the characters around it, and
// counts full-width punctuation as punctuation: in 这是**“重点”**内容 or
// **「引用」**です the delimiters next to “ ” 「 」 neither open nor close, and the
// reader sees the asterisks. Like markdown-it-cjk-friendly (there is no such plugin
// for marked), a ** pair is also taken as strong when the text it wraps begins or
// ends with CJK punctuation and it sits next to CJK text; everything else is left
// to marked's own rules.
const CJK_PUNCT = '[\\u3000-\\u303f\\uff01-\\uff0f\\uff1a-\\uff20\\uff3b-\\uff40\\uff5b-\\uff65\\u2018\\u2019\\u201c\\u201d\\u2026\\u00b7]';
const CJK_CHAR = '[\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}]';
const cjkStrongRe = new RegExp(`^\\*\\*(?![\\s*])([^\\n]*?[^\\s*\\\\])\\*\\*(?!\\*)`, 'u');
const cjkEdge = new RegExp(`^${CJK_PUNCT}|${CJK_PUNCT}$`, 'u');
const cjkNear = new RegExp(`${CJK_CHAR}|${CJK_PUNCT}`, 'u');
const cjkChar = new RegExp(CJK_CHAR, 'u');

const md = new Marked({ gfm: true, breaks: false, async: false });
md.use({
  extensions: [
    {
      name: 'cjkStrong',
      level: 'inline',
      start(src: string) {
        const i = src.indexOf('**');
        return i < 0 ? undefined : i;
      },
      tokenizer(src: string) {
        const m = cjkStrongRe.exec(src);
        if (!m || !cjkEdge.test(m[1])) return undefined;
        // The text after the pair, or the wrapped text itself, is CJK: otherwise
        // marked's rules stand (they are right for Latin text).
        if (!cjkNear.test(src.slice(m[0].length, m[0].length + 1)) && !cjkChar.test(m[1])) return undefined;
        return { type: 'strong', raw: m[0], text: m[1], tokens: this.lexer.inlineTokens(m[1]) };
      },
    },
  ],
});
md.use({
  renderer: {
    html(token: Tokens.HTML | Tokens.Tag): string {
      const t = escapeHtml(token.text);
      return 'block' in token && token.block ? `<pre class="md-raw">${t}</pre>\n` : t;
    },
    link(token: Tokens.Link): string {
      const text = this.parser.parseInline(token.tokens);
      const url = safeUrl(token.href);
      const title = token.title ? escapeHtml(token.title) : escapeHtml(token.href ?? '');
      if (!url) return `<span class="md-link-off" title="${escapeHtml(token.href ?? '')}">${text}</span>`;
      return `<a href="${escapeHtml(url)}" title="${title}" target="_blank" rel="noopener noreferrer nofollow">${text}</a>`;
    },
    image(token: Tokens.Image): string {
      const alt = escapeHtml(token.text || 'image');
      const url = safeUrl(token.href);
      if (!url) return `<span class="md-image" title="${escapeHtml(token.href ?? '')}">[image: ${alt}]</span>`;
      return `<a class="md-image" href="${escapeHtml(url)}" title="${escapeHtml(url)}" target="_blank" rel="noopener noreferrer nofollow">[image: ${alt}]</a>`;
    },
    code(token: Tokens.Code): string {
      const lang = (token.lang || '').trim().split(/\s+/)[0].toLowerCase();
      const body = highlightCode(token.text.replace(/\n$/, ''), lang);
      const cls = knownLanguage(lang) ? ` class="hljs language-${escapeHtml(lang)}"` : ' class="hljs"';
      const label = lang ? `<span class="md-lang">${escapeHtml(lang)}</span>` : '';
      return `<div class="md-code">${label}<button type="button" class="md-copy" data-copy-code>Copy</button><pre><code${cls}>${body}</code></pre></div>\n`;
    },
  },
});

let purifyReady = false;
function purify(html: string): string {
  const p = DOMPurify as unknown as typeof DOMPurify & { isSupported?: boolean };
  if (typeof p.sanitize !== 'function' || !p.isSupported) return html; // no DOM (unit tests): layer 1 only
  if (!purifyReady) {
    p.addHook('afterSanitizeAttributes', (node) => {
      if (node.tagName === 'A') {
        const href = node.getAttribute('href');
        if (href && !safeUrl(href)) node.removeAttribute('href');
        node.setAttribute('target', '_blank');
        node.setAttribute('rel', 'noopener noreferrer nofollow');
      }
    });
    purifyReady = true;
  }
  return p.sanitize(html, {
    USE_PROFILES: { html: true },
    ADD_ATTR: ['target'],
    FORBID_TAGS: ['style', 'form', 'img', 'svg', 'math', 'iframe', 'object', 'embed'],
    FORBID_ATTR: ['style'],
  }) as string;
}

const cache = new Map<string, string>();
const CACHE_MAX = 400;
const PLAIN_ABOVE = 400_000; // characters: past this, show preformatted text, not Markdown

/** Renders untrusted Markdown to sanitized HTML (cached by source). */
export function renderMarkdown(src: string): string {
  if (!src) return '';
  src = stripAnsi(src);
  const hit = cache.get(src);
  if (hit !== undefined) return hit;
  let html: string;
  if (src.length > PLAIN_ABOVE) html = `<pre class="md-raw">${escapeHtml(src)}</pre>`;
  else {
    try {
      html = md.parse(src, { async: false }) as string;
    } catch {
      html = `<pre class="md-raw">${escapeHtml(src)}</pre>`;
    }
  }
  html = purify(html);
  if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value as string);
  cache.set(src, html);
  return html;
}

/** Markdown's inline marks taken out of one line: emphasis, code spans, links. */
function stripInline(s: string): string {
  return s
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/(`+)(.+?)\1/g, '$2')
    .replace(/(\*\*|__)(?=\S)(.+?)(?<=\S)\1/g, '$2')
    .replace(/(?<![\w*])\*(?=[^\s*])(.+?)(?<=[^\s*])\*(?![\w*])/g, '$1')
    .replace(/(?<![\w_])_(?=[^\s_])(.+?)(?<=[^\s_])_(?![\w_])/g, '$1')
    .replace(/~~(.+?)~~/g, '$1');
}

/**
 * A one-line plain-text preview of Markdown (a folded reasoning block): the first
 * line with text, without its heading, list or quote marker and inline marks;
 * fences and rules are passed over. Cut to max characters.
 */
export function markdownPreview(src: string, max = 200): string {
  for (const raw of stripAnsi(src).split('\n')) {
    if (/^\s*(```|~~~)/.test(raw)) continue;
    const line = stripInline(raw.replace(/^\s*(#{1,6}\s+|(>\s?)+|[-*+]\s+(\[[ xX]\]\s+)?|\d+[.)]\s+)/, '')).trim();
    if (!line || /^[-*_=\s]+$/.test(line)) continue;
    return line.length > max ? line.slice(0, max - 1) + '…' : line;
  }
  return '';
}
