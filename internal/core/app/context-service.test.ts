import { describe, expect, it } from 'vitest';
import type { ContextChange, Subscription } from '../../contract/control/control-areas.js';
import { ContextService } from './context-service.js';
import { contextWorld, spec } from '../../../test/support/context-fake-pools.js';
import { ResourceSubscriptions } from './resource-subscriptions.js';
import { callRecord as call } from '../../../test/support/history-records.js';

const A = spec('alpha');
const B = spec('beta');
const PLAIN = spec('plain');

/** The next change, or a failure after 3 s instead of a hung test. */
async function next(sub: Subscription<ContextChange>): Promise<ContextChange> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('no change within 3 s')), 3000)));
  try {
    const r = await Promise.race([sub.next(), timeout]);
    if (r.done) throw new Error('the stream ended');
    return r.value;
  } finally {
    clearTimeout(timer);
  }
}

function level1(host: string, ref: string, extra: Record<string, unknown> = {}) {
  const uri = `dpe://${host}/${encodeURIComponent(ref)}`;
  return {
    uri,
    text: JSON.stringify({
      doc_ref: ref,
      uri,
      file_uri: `file:///d/${ref}`,
      file_type: ref.split('.').pop(),
      title: ref,
      page_count: 1,
      ...extra,
    }),
  };
}

function desktopWorld() {
  const w = contextWorld({ default: [A, B, PLAIN] });
  const a = w.server(A);
  a.add('window://a/low?priority=10', [{ uri: 'window://a/low', text: 'a-low' }]);
  a.add('window://a/high?priority=90', [{ uri: 'window://a/high', text: 'a-high' }]);
  a.add('window://a/blob', [{ uri: 'window://a/blob', blob: 'AAAA' }]);
  a.add('window://a/empty', []);
  a.add('window://a/bad?priority=500', [{ uri: 'x', text: 'never shown' }]);
  a.add('file:///not-a-window', [{ uri: 'file:///x', text: 'ignored' }]);
  const b = w.server(B);
  b.add('window://b/main', [{ uri: 'window://b/main', text: 'b-main' }]);
  const plain = w.server(PLAIN);
  plain.caps = { resources: { listChanged: true } }; // no subscribe: not part of the desktop
  plain.add('window://p/x', [{ uri: 'window://p/x', text: 'p' }]);
  return { ...w, a, b, plain, svc: new ContextService(w.deps) };
}

describe('ContextService.desktop', () => {
  it('organizes the windows of subscribe-capable servers, starting them on demand', async () => {
    const { svc, a, plain } = desktopWorld();
    expect(a.started).toBe(false);
    const d = await svc.desktop('anyone', undefined, undefined);
    expect(d.windows).toEqual([
      'window://a/high?priority=90\n\na-high',
      'window://a/low?priority=10\n\na-low',
      'window://b/main\n\nb-main',
    ]);
    expect(a.requests[0]).toBe('ping');
    expect(plain.requests).toEqual(['ping']); // capabilities known: never listed
    expect(d.warnings.join('\n')).toMatch(/window #2 "window:\/\/a\/blob" skipped: only blob contents/);
    expect(d.warnings.join('\n')).toMatch(/window #4 skipped: .*priority/);
    expect(a.requests).not.toContain('resources/read window://a/bad?priority=500');
    expect(d.etag).toMatch(/^[0-9a-f]{16}$/);
    expect((await svc.desktop('anyone', undefined, undefined)).etag).toBe(d.etag);
  });

  it('a read alone subscribes to nothing and reads the windows afresh each time', async () => {
    const { svc, a } = desktopWorld();
    await svc.desktop('x', undefined, undefined);
    a.text('window://a/high?priority=90', 'a-high v2');
    expect((await svc.desktop('x', undefined, undefined)).windows[0]).toBe('window://a/high?priority=90\n\na-high v2');
    expect(a.requests.filter((r) => r.startsWith('resources/subscribe'))).toEqual([]);
    expect(a.requests.filter((r) => r.startsWith('resources/list'))).toHaveLength(1);
  });

  it('subscribes downstream to every window URI, once, while watched; the last watcher leaving lets go', async () => {
    const { svc, a, b, pools, fp } = desktopWorld();
    const one = svc.watchDesktop('x');
    const two = svc.watchDesktop('y');
    await next(one);
    await next(two);
    await svc.desktop('x', undefined, undefined);
    const windowsOfA = ['window://a/blob', 'window://a/empty', 'window://a/high?priority=90', 'window://a/low?priority=10'];
    await expect.poll(() => [...a.subscribed].sort()).toEqual(windowsOfA);
    expect([...b.subscribed]).toEqual(['window://b/main']);
    expect(a.requests.filter((r) => r.startsWith('resources/subscribe'))).toHaveLength(4);
    expect(a.requests.filter((r) => r.startsWith('resources/list'))).toHaveLength(1);
    await one.return?.();
    // y still watches: the subscriptions stay and its updates still arrive.
    b.text('window://b/main', 'b-main v2');
    pools.emit(fp(B), 'notifications/resources/updated', { uri: 'window://b/main' });
    expect((await next(two)).reason).toBe('window window://b/main updated');
    expect(a.requests.filter((r) => r.startsWith('resources/unsubscribe'))).toEqual([]);
    expect(b.subscribed.has('window://b/main')).toBe(true);
    await two.return?.();
    await expect.poll(() => a.subscribed.size + b.subscribed.size).toBe(0);
    expect(a.requests.filter((r) => r.startsWith('resources/unsubscribe'))).toHaveLength(4);
  });

  it('a watcher coming back takes the subscriptions again and hears what changed while nobody watched', async () => {
    const { svc, b, pools, fp } = desktopWorld();
    const first = svc.watchDesktop('x');
    const seen = await next(first);
    await first.return?.();
    await expect.poll(() => b.subscribed.size).toBe(0);
    b.text('window://b/main', 'changed while unwatched');
    const again = svc.watchDesktop('x');
    const view = await next(again);
    expect(view.etag).not.toBe(seen.etag);
    expect(view.etag).toBe((await svc.desktop('x', undefined, undefined)).etag);
    await expect.poll(() => b.subscribed.has('window://b/main')).toBe(true);
    b.text('window://b/main', 'v3');
    pools.emit(fp(B), 'notifications/resources/updated', { uri: 'window://b/main' });
    expect((await next(again)).reason).toBe('window window://b/main updated');
    await again.return?.();
  });

  it('follows nextCursor across pages', async () => {
    const { svc, b } = desktopWorld();
    for (let i = 0; i < 5; i++) b.add(`window://b/p${i}`, [{ uri: 'x', text: `p${i}` }]);
    b.pageSize = 2;
    const d = await svc.desktop('x', undefined, undefined);
    expect(d.windows.filter((w) => w.startsWith('window://b/'))).toHaveLength(6);
    expect(b.requests.filter((r) => r.startsWith('resources/list'))).toEqual(['resources/list', 'resources/list 2', 'resources/list 4']);
  });

  it('applies size and the window filter; bad arguments start nothing', async () => {
    const { svc, a } = desktopWorld();
    await expect(svc.desktop('x', 1.5, undefined)).rejects.toThrow(/integer/);
    await expect(svc.desktop('x', undefined, 'http://nope')).rejects.toThrow(/GetDeskTopReq.window/);
    expect(a.started).toBe(false);
    expect((await svc.desktop('x', 2, undefined)).windows).toHaveLength(2);
    expect((await svc.desktop('x', 0, undefined)).windows).toEqual([]);
    expect((await svc.desktop('x', undefined, 'window://B/main')).windows).toEqual(['window://b/main\n\nb-main']);
  });

  it('orders servers by the caller history', async () => {
    const { svc, history } = desktopWorld();
    history.record('me', call('beta'));
    const d = await svc.desktop('me', undefined, undefined);
    expect(d.windows[0]).toBe('window://b/main\n\nb-main');
    expect((await svc.desktop('other', undefined, undefined)).windows[0]).toMatch(/^window:\/\/a\/high/);
  });

  it('names a server that cannot start and still shows the others', async () => {
    const { svc, a } = desktopWorld();
    a.failStart = 'spawn ENOENT';
    const d = await svc.desktop('x', undefined, undefined);
    expect(d.windows).toEqual(['window://b/main\n\nb-main']);
    expect(d.warnings).toContain('server "alpha" left out of the desktop: spawn ENOENT');
    a.failStart = undefined; // a failed load is retried on the next read
    expect((await svc.desktop('x', undefined, undefined)).windows).toHaveLength(3);
  });

  it('reports a window whose read fails', async () => {
    const { svc, b } = desktopWorld();
    b.add('window://b/gone', undefined);
    const d = await svc.desktop('x', undefined, undefined);
    expect(d.warnings.join('\n')).toMatch(/server "beta": reading window "window:\/\/b\/gone" failed: unknown resource/);
  });
});

describe('ContextService.watchDesktop', () => {
  it('starts with the current view, then signals content updates with a new etag', async () => {
    const { svc, pools, fp, b } = desktopWorld();
    const sub = svc.watchDesktop('x');
    const first = await next(sub);
    expect(first.reason).toBe('initial');
    expect(first.etag).toBe((await svc.desktop('x', undefined, undefined)).etag);
    b.text('window://b/main', 'b-main v2');
    pools.emit(fp(B), 'notifications/resources/updated', { uri: 'window://b/main' });
    const upd = await next(sub);
    expect(upd.reason).toBe('window window://b/main updated');
    expect(upd.etag).not.toBe(first.etag);
    expect((await svc.desktop('x', undefined, undefined)).windows).toContain('window://b/main\n\nb-main v2');
    await sub.return?.();
  });

  it('list_changed signals only when the window set differs; other notifications are ignored', async () => {
    const { svc, pools, fp, b } = desktopWorld();
    const sub = svc.watchDesktop('x');
    await next(sub);
    pools.emit(fp(B), 'notifications/resources/list_changed'); // same set: no signal
    pools.emit(fp(B), 'notifications/resources/updated', { uri: 'dpe://b/doc' }); // not a window
    pools.emit(fp(B), 'notifications/message', { level: 'info' });
    b.add('window://b/new?priority=5', [{ uri: 'x', text: 'fresh' }]);
    pools.emit(fp(B), 'notifications/resources/list_changed');
    const c = await next(sub);
    expect(c.reason).toBe('server beta changed its resource list');
    expect((await svc.desktop('x', undefined, undefined)).windows).toContain('window://b/new?priority=5\n\nfresh');
    expect(b.subscribed.has('window://b/new?priority=5')).toBe(true);
    await sub.return?.();
  });

  it('signals after a tool call only when the server order changed', async () => {
    const { svc, history, pools, fp, b } = desktopWorld();
    const sub = svc.watchDesktop('me');
    await next(sub);
    history.record('me', call('alpha', 1)); // alpha is first already (by name): order unchanged
    history.record('someone-else', call('beta', 2)); // another caller's history
    history.record('me', call('beta', 3)); // beta moves to the front
    const c = await next(sub);
    expect(c.reason).toBe('a tool call changed the server order');
    history.record('me', call('beta', 4)); // still beta first: nothing
    b.text('window://b/main', 'later');
    pools.emit(fp(B), 'notifications/resources/updated', { uri: 'window://b/main' });
    expect((await next(sub)).reason).toBe('window window://b/main updated');
    await sub.return?.();
  });

  it('a read or a reorder after resources/updated waits for the window to be re-read', async () => {
    const { svc, history, pools, fp, b } = desktopWorld();
    const sub = svc.watchDesktop('me');
    await next(sub);
    // Hold the server's answer to the re-read, as a busy machine does.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const request = pools.request.bind(pools);
    pools.request = async (f, method, params) => {
      if (method === 'resources/read' && params.uri === 'window://b/main') await held;
      return request(f, method, params);
    };
    b.text('window://b/main', 'b-main v2');
    // The server notifies, then its tool call answers (beta moves to the front), then the client reads.
    pools.emit(fp(B), 'notifications/resources/updated', { uri: 'window://b/main' });
    history.record('me', call('beta', 1));
    const read = svc.desktop('me', undefined, undefined);
    release();
    const d = await read;
    expect(d.windows[0]).toBe('window://b/main\n\nb-main v2');
    // The watcher is not told of a view that lacks the update (latest wins: one change, the fresh view).
    expect((await next(sub)).etag).toBe(d.etag);
    await sub.return?.();
  });

  it('reloads and re-subscribes when the server gets a new instance', async () => {
    const { svc, pools, a, fp } = desktopWorld();
    const sub = svc.watchDesktop('x');
    await next(sub);
    await expect.poll(() => a.subscribed.size).toBe(4);
    pools.restart(fp(A)); // a new process knows nothing of the old subscriptions
    a.text('window://a/high?priority=90', 'after restart');
    pools.statusChanged();
    const c = await next(sub);
    expect(c.reason).toBe('server alpha restarted');
    await expect.poll(() => a.subscribed.has('window://a/high?priority=90')).toBe(true);
    await sub.return?.();
  });

  it('shares the downstream subscription with resources/subscribe callers: a client leaving does not end it', async () => {
    const w = contextWorld({ default: [A] });
    const a = w.server(A);
    a.add('window://a/w', [{ uri: 'window://a/w', text: 'v1' }]);
    const hub = new ResourceSubscriptions(w.deps.pools, w.deps.log);
    const svc = new ContextService(w.deps, hub);
    const sub = svc.watchDesktop('x');
    await next(sub);
    await expect.poll(() => a.subscribed.has('window://a/w')).toBe(true);
    const client = new AbortController();
    await hub.add(w.fp(A), 'alpha', 'window://a/w', client.signal);
    expect(hub.list()).toEqual([{ uri: 'window://a/w', server: 'alpha', subscribers: 2 }]);
    client.abort(); // the client unsubscribes
    expect(hub.list()).toEqual([{ uri: 'window://a/w', server: 'alpha', subscribers: 1 }]);
    expect(a.requests.filter((r) => r.startsWith('resources/unsubscribe'))).toEqual([]);
    expect(a.requests.filter((r) => r.startsWith('resources/subscribe'))).toHaveLength(1);
    expect(a.subscribed.has('window://a/w')).toBe(true);
    a.text('window://a/w', 'v2');
    w.pools.emit(w.fp(A), 'notifications/resources/updated', { uri: 'window://a/w' });
    expect((await next(sub)).reason).toBe('window window://a/w updated');
    expect((await svc.desktop('x', undefined, undefined)).windows).toEqual(['window://a/w\n\nv2']);
    await sub.return?.();
  });
});

function finderWorld() {
  const w = contextWorld({ default: [A, B] });
  const a = w.server(A);
  const b = w.server(B);
  const add = (s: typeof a, host: string, ref: string, extra: Record<string, unknown> = {}) => {
    const d = level1(host, ref, extra);
    s.add(d.uri, [{ uri: d.uri, mimeType: 'application/json', text: d.text }]);
  };
  add(a, 'a', 'old.md', { last_modified: '2025-01-01T00:00:00Z', keywords: ['budget'] });
  add(a, 'a', 'new.md', { last_modified: '2026-01-01T00:00:00Z' });
  add(a, 'a', 'sheet.xlsx', { last_modified: '2025-06-01T00:00:00Z', summary: 'Budget numbers' });
  add(b, 'b', 'notes.md', { last_modified: '2024-01-01T00:00:00Z' });
  a.add('dpe://a/new.md/pages/0', [{ uri: 'x', text: '{}' }]); // not Level 1: not a catalogue entry
  a.add('dpe://a', [{ uri: 'x', text: '{}' }]);
  a.add('window://a/w', [{ uri: 'x', text: 'a window' }]);
  return { ...w, a, b, add, svc: new ContextService(w.deps) };
}

describe('ContextService.finder', () => {
  it('builds summaries from Level-1 reads and organizes them', async () => {
    const { svc } = finderWorld();
    const r = await svc.finder('x', {});
    expect(r.totalCount).toBe(4);
    expect(r.documents.map((d) => d.doc_ref)).toEqual(['new.md', 'sheet.xlsx', 'old.md', 'notes.md']);
    expect(r.documents[0]).toMatchObject({ server: 'alpha', file_type: 'md', uri: 'dpe://a/new.md' });
  });

  it('filters by keyword and type, pages, and orders by the caller history', async () => {
    const { svc, history } = finderWorld();
    expect((await svc.finder('x', { keywords: ['BUDGET'] })).documents.map((d) => d.doc_ref)).toEqual(['sheet.xlsx', 'old.md']);
    expect((await svc.finder('x', { fileType: 'md' })).totalCount).toBe(3);
    const page = await svc.finder('x', { offset: 1, limit: 2 });
    expect(page.documents.map((d) => d.doc_ref)).toEqual(['sheet.xlsx', 'old.md']);
    expect(page.totalCount).toBe(4);
    history.record('me', call('beta'));
    expect((await svc.finder('me', { limit: 1 })).documents[0]?.doc_ref).toBe('notes.md');
    await expect(svc.finder('x', { limit: -1 })).rejects.toThrow(/limit must be a non-negative integer/);
  });

  it('uses each profile server name, one pool shared', async () => {
    const w = contextWorld({ default: [A], other: [{ ...A, name: 'renamed' }] });
    const d = level1('a', 'x.md');
    w.server(A).add(d.uri, [{ uri: d.uri, text: d.text }]);
    const svc = new ContextService(w.deps);
    expect((await svc.finder('default', {})).documents[0]?.server).toBe('alpha');
    expect((await svc.finder('other', {})).documents[0]?.server).toBe('renamed');
    expect(w.server(A).requests.filter((r) => r.startsWith('resources/read'))).toHaveLength(1);
  });

  it('re-reads an updated document and signals watchers; list_changed drops removed ones', async () => {
    const { svc, pools, fp, a, add } = finderWorld();
    const sub = svc.watchFinder('x');
    const first = await next(sub);
    expect(first.reason).toBe('initial');
    a.resources = a.resources.filter((r) => r.uri !== 'dpe://a/new.md');
    add(a, 'a', 'old.md', { last_modified: '2027-01-01T00:00:00Z', title: 'Old, edited' });
    a.resources.pop(); // add() listed old.md a second time
    pools.emit(fp(A), 'notifications/resources/updated', { uri: 'dpe://a/old.md' });
    const c = await next(sub);
    expect(c.reason).toBe('document dpe://a/old.md updated');
    expect((await svc.finder('x', { limit: 1 })).documents[0]?.title).toBe('Old, edited');
    pools.emit(fp(A), 'notifications/resources/list_changed');
    expect((await next(sub)).reason).toBe('server alpha changed its resource list');
    expect((await svc.finder('x', {})).documents.map((d) => d.doc_ref)).not.toContain('new.md');
    await sub.return?.();
  });

  it('leaves out a document whose Level-1 read is not a valid summary, and logs why', async () => {
    const { svc, a, logs } = finderWorld();
    a.add('dpe://a/broken.md', [{ uri: 'x', text: '{"doc_ref": 1}' }]);
    const r = await svc.finder('x', {});
    expect(r.totalCount).toBe(4);
    expect(logs.join('\n')).toMatch(/context.document_unreadable.*broken.md.*doc_ref/);
  });
});
