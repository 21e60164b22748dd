import { describe, expect, it } from 'vitest';
import type { ContextApi, ContextChange } from '../../contract/control/control-areas.js';
import { LatestWins } from '../domain/aggregator/newest-wins.js';
import { ContextSurface } from './context-surface.js';

/** A caller's desktop whose etag the test moves; the finder echoes the query it was given. */
function fakeContext() {
  const desktop = new LatestWins<ContextChange>();
  let etag = 'e1';
  const queries: unknown[] = [];
  const api: ContextApi = {
    desktop: (_caller, size, window) => Promise.resolve({ etag, windows: [`w size=${size} window=${window}`], warnings: [] }),
    watchDesktop: () => desktop.subscribe(),
    finder: (_caller, q) => (queries.push(q), Promise.resolve({ documents: [], totalCount: 0 })),
    watchFinder: () => new LatestWins<ContextChange>().subscribe(),
  };
  return { api, desktop, queries, setEtag: (e: string) => (etag = e) };
}

describe('ContextSurface', () => {
  it('reads the desktop as text or JSON and the finder with its query, naming bad keys', async () => {
    const { api, queries } = fakeContext();
    const s = new ContextSurface(api);
    const text = await s.read('me', 'mcpd://desktop?size=2');
    expect(text).toEqual({
      contents: [{ uri: 'mcpd://desktop?size=2', mimeType: 'text/plain', text: '----- window 1 of 1 -----\nw size=2 window=undefined' }],
      _meta: { 'mcpd/etag': 'e1', 'mcpd/warnings': [] },
    });
    const json = (await s.read('me', 'mcpd://desktop?format=json')) as { contents: { mimeType: string; text: string }[] };
    expect(json.contents[0]).toMatchObject({ mimeType: 'application/json' });
    expect(JSON.parse(json.contents[0]?.text ?? '')).toEqual({ windows: ['w size=undefined window=undefined'], warnings: [], etag: 'e1' });
    await s.read('me', 'mcpd://finder?keywords=a,b&file_type=md&limit=3');
    expect(queries).toEqual([{ keywords: ['a', 'b'], fileType: 'md', offset: undefined, limit: 3 }]);
    await expect(s.read('me', 'mcpd://desktop?colour=red')).rejects.toThrow(/unknown query key "colour"/);
  });

  it('answers mcpd_finder, with bad arguments as a tool error the model can read', async () => {
    const s = new ContextSurface(fakeContext().api);
    expect(await s.callFinder('me', { limit: 1 })).toEqual({
      content: [{ type: 'text', text: '{"documents":[],"total_count":0}' }],
      structuredContent: { documents: [], total_count: 0 },
    });
    expect(await s.callFinder('me', { keywords: 'one' })).toEqual({
      content: [{ type: 'text', text: '"keywords" must be an array of strings' }],
      isError: true,
    });
  });

  it('a subscription reports changes since the desktop the caller last read, and ends with its signal', async () => {
    const { api, desktop, setEtag } = fakeContext();
    const s = new ContextSurface(api);
    desktop.publish({ etag: 'e1', reason: 'initial' });
    await s.read('me', 'mcpd://desktop');
    const ac = new AbortController();
    const updates = s.subscribe('me', 'mcpd://desktop', ac.signal);
    const next = updates.next();
    desktop.publish({ etag: 'e2', reason: 'window updated' }); // the first view (e1) was read: skipped
    expect(await next).toEqual({ done: false, value: { uri: 'mcpd://desktop' } });
    // Another caller read an older view: its first item is reported at once.
    setEtag('e0');
    await s.read('you', 'mcpd://desktop');
    const theirs = s.subscribe('you', 'mcpd://desktop', new AbortController().signal);
    expect(await theirs.next()).toEqual({ done: false, value: { uri: 'mcpd://desktop' } });
    const pending = updates.next();
    ac.abort();
    expect(await pending).toEqual({ done: true, value: undefined });
    expect(desktop.subscriberCount).toBe(1);
    await theirs.return?.();
  });
});
