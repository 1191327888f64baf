import { describe, expect, it } from 'vitest';
import { escapeHtml, highlightCode, knownLanguage, markdownPreview, renderMarkdown, safeUrl } from './markdown';

// vitest runs in node (no DOM), so these check the renderer layer on its own: it must
// already be safe without DOMPurify, which the app adds on top.
// Tags with their attribute names, parsed the way a browser would read quoted values.
const tags = (html: string) =>
  [...html.matchAll(/<([a-z][a-z0-9-]*)((?:\s+[^\s=>]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+))?)*)\s*\/?>/gi)].map((m) => ({
    tag: m[1].toLowerCase(),
    attrs: [...m[2].matchAll(/([^\s=>]+)(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+))?/g)].map((a) => a[1].toLowerCase()).join(' '),
  }));

describe('renderMarkdown sanitization', () => {
  it('renders ordinary Markdown', () => {
    const h = renderMarkdown('# Title\n\nSome **bold** and `code`.\n\n- a\n- b\n\n| x | y |\n|---|---|\n| 1 | 2 |');
    expect(h).toContain('<h1>Title</h1>');
    expect(h).toContain('<strong>bold</strong>');
    expect(h).toContain('<code>code</code>');
    expect(h).toContain('<li>a</li>');
    expect(h).toContain('<table>');
  });
  it('never emits a script tag', () => {
    for (const src of ['<script>alert(1)</script>', 'hi <script src="x.js"></script> there', '<div>\n<script>alert(1)</script>\n</div>']) {
      const h = renderMarkdown(src);
      expect(tags(h).some((t) => t.tag === 'script')).toBe(false);
      expect(h).toContain('&lt;script');
    }
  });
  it('drops javascript: and other unsafe links, keeping the text', () => {
    for (const src of ['[click](javascript:alert(1))', '[x](JaVaScRiPt:alert(1))', '[x]( javascript:alert(1))', '[x](java\tscript:alert(1))',
      '<a href="javascript:alert(1)">x</a>', '[x](data:text/html;base64,PHNjcmlwdD4=)', '[x](vbscript:msgbox)']) {
      const h = renderMarkdown(src);
      expect(tags(h).filter((t) => t.tag === 'a' && t.attrs.split(' ').includes('href'))).toEqual([]);
    }
    expect(renderMarkdown('[click](javascript:alert(1))')).toContain('click');
  });
  it('keeps http(s) and mailto links, opening them in a new window without an opener', () => {
    const h = renderMarkdown('[docs](https://example.com/a?b=1&c=2) and <https://x.org> and [m](mailto:a@b.c)');
    expect(h).toContain('href="https://example.com/a?b=1&amp;c=2"');
    expect(h).toContain('href="https://x.org"');
    expect(h).toContain('href="mailto:a@b.c"');
    expect(h).toContain('rel="noopener noreferrer nofollow"');
    expect(h).toContain('target="_blank"');
  });
  it('removes event handler attributes such as onerror', () => {
    expect(tags('<img src="x" onerror="y">')[0].attrs).toBe('src onerror'); // the probe itself sees them
    for (const src of ['<img src=x onerror="alert(1)">', '![a](x" onerror="alert(1))', '[a](https://x.org "t\\" onmouseover=\\"alert(1)")',
      '<svg onload=alert(1)>', '<p onclick="x()">hi</p>']) {
      const h = renderMarkdown(src);
      for (const t of tags(h)) expect(t.attrs.split(' ').filter((a) => a.startsWith('on'))).toEqual([]);
    }
  });
  it('does not load images', () => {
    const h = renderMarkdown('![logo](https://tracker.example/p.png)');
    expect(tags(h).some((t) => t.tag === 'img')).toBe(false);
    expect(h).toContain('[image: logo]');
  });
  it('does not link relative URLs into the app', () => {
    const h = renderMarkdown('[file](src/main.go) [hash](#/import)');
    expect(tags(h).filter((t) => t.tag === 'a')).toEqual([]);
    expect(h).toContain('title="src/main.go"');
  });
});

describe('code highlighting', () => {
  it('highlights fenced code in registered languages', () => {
    const h = renderMarkdown('```go\nfunc main() { return }\n```');
    expect(h).toContain('class="hljs language-go"');
    expect(h).toContain('<span class="hljs-keyword">func</span>');
    expect(h).toContain('data-copy-code');
  });
  it('knows the common aliases', () => {
    for (const l of ['js', 'ts', 'py', 'sh', 'ps1', 'pwsh', 'yml', 'html', 'toml', 'golang', 'json', 'diff', 'rust', 'sql']) expect(knownLanguage(l), l).toBe(true);
    expect(knownLanguage('brainfuck')).toBe(false);
  });
  it('escapes code in unknown languages and inside highlighted output', () => {
    const h = renderMarkdown('```nope\n<script>alert(1)</script>\n```');
    expect(h).toContain('&lt;script&gt;');
    expect(highlightCode('<b>"x"</b>', 'javascript')).not.toContain('<b>');
  });
});

describe('helpers', () => {
  it('escapes HTML', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  });
  it('accepts only absolute http(s) and mailto URLs', () => {
    expect(safeUrl('https://a.b/c d')).toBe('https://a.b/cd'); // whitespace is dropped, as browsers do
    expect(safeUrl('http://a.b')).toBe('http://a.b');
    expect(safeUrl('javascript:alert(1)')).toBeNull();
    expect(safeUrl('//evil.com')).toBeNull();
    expect(safeUrl('file:///etc/passwd')).toBeNull();
    expect(safeUrl('')).toBeNull();
  });
});

describe('CJK-friendly emphasis', () => {
  it.each([
    ['这是**“重点”**内容', '<strong>“重点”</strong>'],
    ['**「引用」**です', '<strong>「引用」</strong>'],
    ['请看**（注意）**这里', '<strong>（注意）</strong>'],
    ['完成了。**下一步：**运行测试', '<strong>下一步：</strong>'],
  ])('%s', (src, want) => {
    const html = renderMarkdown(src);
    expect(html).toContain(want);
    expect(html).not.toContain('**');
  });

  it('leaves Latin emphasis to CommonMark', () => {
    expect(renderMarkdown('a **bold** word')).toContain('<strong>bold</strong>');
    expect(renderMarkdown('2 ** 3 ** 4')).not.toContain('<strong>');
    expect(renderMarkdown('say **“hi”**there')).not.toContain('<strong>');
  });
});

describe('markdownPreview', () => {
  it.each([
    ['**Planning the fix**\n\nFirst, read the test.', 'Planning the fix'],
    ['\n## Looking at `main.go`\n', 'Looking at main.go'],
    ['- [x] check the [docs](https://x.example) *now*', 'check the docs now'],
    ['```go\nfunc x() {}\n```\nthen _this_ one', 'func x() {}'],
    ['> quoted **bold** and snake_case_name', 'quoted bold and snake_case_name'],
    ['---\n\n1. step one', 'step one'],
  ])('%j', (src, want) => {
    expect(markdownPreview(src)).toBe(want);
  });
});
