import { describe, expect, it } from 'vitest';
import { McpdError } from '../../../shared/errors.js';
import { ResourceIndex } from './resource-index.js';
import type { ResourceListing } from './resource-snapshot.js';
import { profile, spec } from '../../../../test/support/aggregator.js';

const res = (uri: string, name = uri) => ({ uri, name });
const tpl = (uriTemplate: string) => ({ uriTemplate, name: uriTemplate });
const listing = (resources: ReturnType<typeof res>[], templates: ReturnType<typeof tpl>[] = []): ResourceListing => ({
  resources,
  templates,
});
const fpOf = (s: string) => `fp-${s}`;

function index(servers = [spec('alpha'), spec('beta'), spec('docs')]): ResourceIndex {
  return new ResourceIndex({ profile: profile(servers), fingerprintOf: fpOf });
}

describe('ResourceIndex', () => {
  it('lists resources sorted by URI with templates apart, and routes exact URIs to their server', () => {
    const idx = index();
    idx.update(
      new Map([
        ['beta', listing([res('file:///b'), res('file:///a')], [tpl('file:///logs/{day}')])],
        ['alpha', listing([res('mem://x')])],
      ]),
    );
    expect(idx.listResources(undefined, 10).items.map((r) => r.uri)).toEqual(['file:///a', 'file:///b', 'mem://x']);
    expect(idx.listTemplates(undefined, 10).items.map((t) => [t.uriTemplate, t.server])).toEqual([['file:///logs/{day}', 'beta']]);
    expect(idx.route('mem://x')).toEqual({ server: 'alpha', fingerprint: 'fp-alpha', via: 'resource', match: 'mem://x' });
    expect(idx.route('file:///logs/monday')?.server).toBe('beta');
    expect(idx.route('file:///logs/mon/day')).toBeUndefined();
    expect(idx.route('nope://')).toBeUndefined();
  });

  it('keeps a URI listed by two servers with the first by name, and reports the clash whatever the input order', () => {
    const a = index();
    const b = index();
    a.update(
      new Map([
        ['beta', listing([res('x://same', 'from beta')])],
        ['alpha', listing([res('x://same', 'from alpha')])],
      ]),
    );
    b.update(
      new Map([
        ['alpha', listing([res('x://same', 'from alpha')])],
        ['beta', listing([res('x://same', 'from beta')])],
      ]),
    );
    for (const idx of [a, b]) {
      const snap = idx.snapshot();
      expect(snap.resources).toHaveLength(1);
      expect(snap.resources[0]?.server).toBe('alpha');
      expect(snap.collisions).toHaveLength(1);
      expect(snap.collisions[0]?.servers).toEqual(['alpha', 'beta']);
      expect(snap.collisions[0]?.resolution).toMatch(/served by alpha; beta left out/);
    }
    expect(a.snapshot().etag).toBe(b.snapshot().etag);
  });

  it('prefers the most specific template and routes dpe:// hosts to the server that lists them', () => {
    const idx = index();
    idx.update(
      new Map([
        ['alpha', listing([], [tpl('demo://{path}'), tpl('demo://resource/{id}')])],
        ['docs', listing([res('dpe://Library/report.pdf')], [tpl('dpe://library/{doc_ref}/pages/{n}')])],
      ]),
    );
    expect(idx.route('demo://resource/7')?.match).toBe('demo://resource/{id}');
    expect(idx.route('demo://other')?.match).toBe('demo://{path}');
    expect(idx.routeDpeHost('library')?.server).toBe('docs');
    expect(idx.routeDpeHost('elsewhere')).toBeUndefined();
    // Hosts are server names: matched exactly, case included (docs/finder.md).
    expect(idx.routeDpeHost('LIBRARY')).toBeUndefined();
    expect(idx.routeDpeHost('Library')?.server).toBe('docs');
    expect(idx.routeTemplate('demo://resource/{id}')?.server).toBe('alpha');
  });

  it('publishes only real changes and keeps a cursor on its snapshot while the list changes', async () => {
    const idx = index();
    const uris = Array.from({ length: 5 }, (_, i) => res(`r://${i}`));
    expect(idx.update(new Map([['alpha', listing(uris)]]))).toBe(true);
    expect(idx.update(new Map([['alpha', listing(uris.map((u) => ({ ...u })))]]))).toBe(false);
    const first = idx.listResources(undefined, 2);
    idx.update(new Map([['alpha', listing(uris.slice(0, 1))]]));
    const second = idx.listResources(first.nextCursor, 2);
    expect(second.etag).toBe(first.etag);
    expect(second.items.map((r) => r.uri)).toEqual(['r://2', 'r://3']);
    const w = idx.watch();
    expect((await w.next()).value?.resources).toHaveLength(1);
    void w.return?.();
  });

  it('refuses a templates cursor on the resources list', () => {
    const idx = index();
    idx.update(new Map([['alpha', listing([res('a://1'), res('a://2')], [tpl('t://{a}'), tpl('u://{b}')])]]));
    const t = idx.listTemplates(undefined, 1);
    expect(() => idx.listResources(t.nextCursor, 1)).toThrow(McpdError);
  });

  it('leaves disabled servers out', () => {
    const idx = index([spec('alpha', { disabled: true }), spec('beta')]);
    idx.update(
      new Map([
        ['alpha', listing([res('a://1')])],
        ['beta', listing([res('b://1')])],
      ]),
    );
    expect(idx.snapshot().resources.map((r) => r.server)).toEqual(['beta']);
  });
});
