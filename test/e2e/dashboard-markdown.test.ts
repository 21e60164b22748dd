import { join } from 'node:path';
import { build } from 'esbuild';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectErrors, launchChromium } from '../support/browser.js';
import { REPO } from '../support/paths.js';

/**
 * The dashboard's markdown sanitizer (web/markdown.ts) in Debian's chromium, on a page without any
 * CSP: what it lets through is what a browser would act on. Our old hand-made sanitizer let the first
 * five through; the mutation-XSS payloads stay as regression checks (today's chromium escapes < and >
 * in attribute values when it serializes, which by itself defeats them, but an older engine does not).
 */
const PAYLOADS: [string, string][] = [
  ['tab in the scheme', '<a href="java\tscript:window.__pwned=\'tab\'">tab</a> [tab2](<java\tscript:window.__pwned=1>)'],
  ['entity-encoded tab', '<a href="java&#9;script:window.__pwned=\'ent\'">ent</a>'],
  ['xlink:href', '<svg><a xlink:href="javascript:window.__pwned=\'xlink\'"><text x="0" y="15">xlink</text></a></svg>'],
  ['data:text/html link', '<a href="data:text/html,<script>alert(1)</script>">data</a> [d2](data:text/html;base64,PHNjcmlwdD4=)'],
  ['base href', '<base href="https://evil.example/">\n\n[relative](guide.md)'],
  ['mutation XSS', '<math><mtext><table><mglyph><style><!--</style><img title="--&gt;&lt;img src=1 onerror=window.__pwned=1&gt;">'],
  ['mutation XSS (noscript)', '<noscript><p title="</noscript><img src=x onerror=window.__pwned=3>"></p></noscript>'],
  ['mutation XSS (form)', '<form><math><mtext></form><form><mglyph><style></math><img src onerror=window.__pwned=2>'],
  ['inline handler', 'text <img src="x" onerror="window.__pwned=4"> <svg onload="window.__pwned=5"><circle r="1"/></svg>'],
  ['inline style and stylesheet', '<p style="color:red">red</p><link rel="stylesheet" href="/evil.css"><style>p{color:red}</style>'],
  ['meta refresh', '<meta http-equiv="refresh" content="0;url=https://evil.example/">'],
];

/** web/markdown.ts bundled for the page, as `md.renderMarkdown`. */
async function markdownBundle(): Promise<string> {
  const out = await build({
    entryPoints: [join(REPO, 'web/markdown.ts')],
    bundle: true,
    format: 'iife',
    globalName: 'md',
    platform: 'browser',
    write: false,
    logLevel: 'silent',
  });
  return out.outputFiles[0]?.text ?? '';
}

interface Verdict {
  bad: string[];
  baseURI: string;
}

describe('markdown from servers is sanitized with DOMPurify (in chromium, no CSP)', () => {
  let browser: Browser;
  let page: Page;
  // A page of its own origin (served by playwright's router, no network) so relative links resolve.
  const origin = 'http://mcpd.test/page';

  beforeAll(async () => {
    const bundle = await markdownBundle();
    browser = await launchChromium();
    page = await browser.newPage();
    await page.route(origin, (r) =>
      r.fulfill({ contentType: 'text/html', body: '<!doctype html><html><body><div id="out"></div></body></html>' }),
    );
    await page.goto(origin);
    await page.addScriptTag({ content: bundle });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
  });

  /** Renders like the page does (innerHTML of the sanitized HTML) and lists what a browser would act on. */
  const render = (md: string): Promise<Verdict> =>
    page.evaluate(`(() => {
      const out = document.getElementById('out');
      out.innerHTML = md.renderMarkdown(${JSON.stringify(md)});
      const bad = [];
      for (const el of out.querySelectorAll('script, style, base, form, iframe, object, embed, link, meta')) bad.push('element ' + el.localName);
      for (const el of out.querySelectorAll('*')) {
        for (const a of el.attributes) {
          if (a.name.toLowerCase().startsWith('on')) bad.push('handler ' + a.name);
          if (/(^|:)href$|^src$|^action$|^formaction$/i.test(a.name)) {
            const url = new URL(a.value, document.baseURI);
            if (!['http:', 'https:', 'mailto:'].includes(url.protocol)) bad.push(a.name + ' ' + url.protocol);
          }
        }
      }
      return { bad, baseURI: document.baseURI };
    })()`) as Promise<Verdict>;

  it.each(PAYLOADS)('%s is neutralised', async (_name, md) => {
    const v = await render(md);
    expect(v.bad).toEqual([]);
    expect(v.baseURI).toBe(origin);
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
  });

  it('ordinary markdown survives: lists, code, links', async () => {
    await render('1. Clone the repository\n2. `make`\n\n[docs](https://example.org/docs) **bold**');
    const html = await page.evaluate(`document.getElementById('out').innerHTML`);
    expect(html).toContain('<li>Clone the repository</li>');
    expect(html).toContain('<code>make</code>');
    expect(html).toContain('<a href="https://example.org/docs">docs</a>');
    expect(html).toContain('<strong>bold</strong>');
  });

  it('links to loopback addresses (another local port) are shown as text, however the address is spelled', async () => {
    const targets = [
      'http://127.0.0.1:7399/',
      'http://localhost:7399/x',
      'http://mcpd.localhost:7399/',
      'http://127.1:7399/',
      'http://2130706433:7399/',
      'http://0x7f000001:7399/',
      'http://[::1]:7399/',
      'http://[::ffff:127.0.0.1]:7399/',
      'http://0.0.0.0:7399/',
      'HTTP://LOCALHOST.:7399/',
    ];
    const md =
      targets.map((t, i) => `[link ${i}](${t})`).join('\n\n') +
      '\n\n<a href="//127.0.0.1:7399/raw">raw</a> [away](https://example.org/) [here](#top)';
    await render(md);
    const links = (await page.evaluate(`[...document.querySelectorAll('#out [href]')].map((a) => a.getAttribute('href'))`)) as string[];
    expect(links).toEqual(['https://example.org/', '#top']);
    const text = (await page.evaluate(`document.getElementById('out').textContent`)) as string;
    expect(text).toContain('link 0 (http://127.0.0.1:7399/)');
    expect(text).toContain('raw (http://127.0.0.1:7399/raw)');
  });
});

/**
 * The same payloads on a page with the dashboard's own CSP (copied from the listener's headers): a payload
 * whose handler or script reached a live document would be refused by the CSP, and chromium says so on
 * the console. None may: the sanitizer works on an inert document (DOMParser), and what it returns
 * carries no handler when the page puts it into its live DOM.
 */
describe('hostile markdown under the dashboard CSP: nothing even tries to run', () => {
  let browser: Browser;
  let page: Page;
  let errors: string[];
  const origin = 'http://mcpd.test';

  beforeAll(async () => {
    const { SECURITY_HEADERS } = await import('../../internal/core/infra/dashboard/dashboard.js');
    const bundle = await markdownBundle();
    browser = await launchChromium();
    page = await browser.newPage();
    errors = collectErrors(page);
    const csp = SECURITY_HEADERS['content-security-policy'];
    await page.route(`${origin}/`, (r) =>
      r.fulfill({
        contentType: 'text/html',
        headers: { 'content-security-policy': csp },
        body: '<!doctype html><html><head><script src="/md.js"></script></head><body><div id="out"></div></body></html>',
      }),
    );
    await page.route(`${origin}/md.js`, (r) =>
      r.fulfill({ contentType: 'text/javascript', headers: { 'content-security-policy': csp }, body: bundle }),
    );
    await page.goto(`${origin}/`);
    await page.waitForFunction('typeof md === "object"');
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
  });

  it.each(PAYLOADS)('%s: no CSP violation, nothing ran', async (_name, payload) => {
    errors.length = 0;
    // A round trip through the page's event loop after the insert: an image's error handler fires by then.
    await page.evaluate(`(async () => {
      document.getElementById('out').innerHTML = md.renderMarkdown(${JSON.stringify(payload)});
      await new Promise((r) => setTimeout(r, 0));
      await new Promise((r) => requestAnimationFrame(() => r()));
    })()`);
    expect(errors.filter((e) => /Content Security Policy|Refused to/i.test(e))).toEqual([]);
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
  });
});
