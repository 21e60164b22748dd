import { describe, expect, it } from 'vitest';
import { McpdError } from '../../../shared/errors.js';
import type { JsonValue } from '../../../shared/json.js';
import { ToolCallHistory } from '../history/tool-call-history.js';
import { organizeDesktop, type DesktopWindowInput } from './organize.js';
import { callRecord as call } from '../../../../test/support/history-records.js';
import { syntheticHistory, syntheticWindows } from '../../../../test/fixtures/desktop-synthetic-windows.js';

const txt = (t: string): JsonValue => ({ uri: 'x', text: t });

/** A window with one text content naming it, so entries show which window they are. */
function win(server: string, uri: string, body: string | null = uri.split('/').pop() ?? 'x'): DesktopWindowInput {
  return { server, resource: { uri }, contents: body === null ? [] : [txt(body)] };
}

const uris = (r: { windows: { uri: string }[] }): string[] => r.windows.map((w) => w.uri);

describe('step 1: filter', () => {
  it('skips windows with empty, missing or null contents, silently', () => {
    const r = organizeDesktop(
      [
        { server: 's', resource: 'window://s/empty', contents: [] },
        { server: 's', resource: 'window://s/missing' },
        { server: 's', resource: 'window://s/null', contents: null },
        win('s', 'window://s/ok'),
      ],
      null,
      [],
    );
    expect(uris(r)).toEqual(['window://s/ok']);
    expect(r.warnings).toEqual([]);
  });
  it('skips invalid and non-window URIs with a warning naming server and position', () => {
    const r = organizeDesktop([win('s', 'http://s/a'), win('t', 'window://'), win('s', 'window://s/ok')], null, []);
    expect(uris(r)).toEqual(['window://s/ok']);
    expect(r.warnings).toEqual([
      expect.stringMatching(/^server "s", window #0 skipped: .*scheme must be 'window'/),
      expect.stringMatching(/^server "t", window #1 skipped: .*host is empty/),
    ]);
  });
  it('skips blob-only windows with a warning', () => {
    const r = organizeDesktop(
      [{ server: 's', resource: 'window://s/img', contents: [{ uri: 'window://s/img', blob: 'AAAA' }] }, win('s', 'window://s/ok')],
      null,
      [],
    );
    expect(uris(r)).toEqual(['window://s/ok']);
    expect(r.warnings).toEqual([expect.stringMatching(/"window:\/\/s\/img" skipped: only blob contents/)]);
  });
  it('renders the text of mixed text+blob windows and warns about the blob', () => {
    const r = organizeDesktop([{ server: 's', resource: 'window://s/m', contents: [txt('a'), { blob: 'AA' }] }], null, []);
    expect(r.entries).toEqual(['window://s/m\n\na']);
    expect(r.warnings).toEqual([expect.stringMatching(/1 blob content\(s\) not rendered/)]);
  });
  it('warns about content items that are neither text nor blob', () => {
    const r = organizeDesktop([{ server: 's', resource: 'window://s/m', contents: [{ uri: 'x' }] }], null, []);
    expect(r.entries).toEqual(['window://s/m']);
    expect(r.warnings).toEqual([expect.stringMatching(/neither text nor blob/)]);
  });
  it('passes on metadata warnings of the resource form', () => {
    const r = organizeDesktop(
      [{ server: 's', resource: { uri: 'window://s/a', annotations: { priority: 7 } }, contents: [txt('a')] }],
      null,
      [],
    );
    expect(r.warnings).toEqual([expect.stringMatching(/annotations.priority must be a number/)]);
  });
});

describe('step 1: grouping', () => {
  it('groups by server name, not by URI host', () => {
    const r = organizeDesktop([win('a', 'window://x/1'), win('b', 'window://x/2'), win('a', 'window://y/3')], null, []);
    expect(r.windows.map((w) => [w.server, w.uri])).toEqual([
      ['a', 'window://x/1'],
      ['a', 'window://y/3'],
      ['b', 'window://x/2'],
    ]);
  });
  it('serverOrder lists only servers with usable windows', () => {
    const r = organizeDesktop([win('a', 'window://a/1'), win('b', 'window://b/1', null), win('c', 'bad')], null, [call('b'), call('c')]);
    expect(r.serverOrder).toEqual(['a']);
  });
});

describe('step 2: server order from history', () => {
  const windows = ['alpha', 'beta', 'gamma', 'delta'].map((s) => win(s, `window://${s}/w`));
  it('without history, servers go by name', () => {
    expect(organizeDesktop(windows, null, []).serverOrder).toEqual(['alpha', 'beta', 'delta', 'gamma']);
  });
  it('most recent first, de-duplicated, the rest by name', () => {
    const h = [call('gamma', 1), call('beta', 2), call('gamma', 3), call('unknown', 4)];
    const r = organizeDesktop(windows, null, h);
    expect(r.serverOrder).toEqual(['gamma', 'beta', 'alpha', 'delta']);
    expect(r.windows.map((w) => w.server)).toEqual(['gamma', 'beta', 'alpha', 'delta']);
  });
  it('accepts a ToolCallHistory', () => {
    const h = new ToolCallHistory(2);
    h.record(call('alpha'));
    h.record(call('delta'));
    h.record(call('beta')); // evicts alpha
    expect(organizeDesktop(windows, null, h).serverOrder).toEqual(['beta', 'delta', 'alpha', 'gamma']);
  });
});

describe('step 3: priority within a server', () => {
  it('descending, default 0, only compared within a server', () => {
    const r = organizeDesktop(
      [
        win('a', 'window://a/low?priority=1'),
        win('b', 'window://b/top?priority=100'),
        win('a', 'window://a/none'),
        win('a', 'window://a/high?priority=90'),
      ],
      null,
      [],
    );
    expect(uris(r)).toEqual(['window://a/high?priority=90', 'window://a/low?priority=1', 'window://a/none', 'window://b/top?priority=100']);
  });
  it('ties keep their original order', () => {
    const r = organizeDesktop(
      [
        win('a', 'window://a/1?priority=5'),
        win('a', 'window://a/2'),
        win('a', 'window://a/3?priority=5'),
        win('a', 'window://a/4?priority=0'),
      ],
      null,
      [],
    );
    expect(uris(r)).toEqual(['window://a/1?priority=5', 'window://a/3?priority=5', 'window://a/2', 'window://a/4?priority=0']);
  });
  it('annotation priorities sort on the same 0–100 scale as URI priorities', () => {
    const r = organizeDesktop(
      [
        win('a', 'window://a/u50?priority=50'),
        { server: 'a', resource: { uri: 'window://a/ann', annotations: { priority: 0.505 } }, contents: [txt('x')] },
        win('a', 'window://a/u51?priority=51'),
      ],
      null,
      [],
    );
    expect(uris(r)).toEqual(['window://a/u51?priority=51', 'window://a/ann', 'window://a/u50?priority=50']);
  });
});

describe('step 4: fullscreen per server', () => {
  it('keeps only the first fullscreen window by original order, even if a later one has higher priority', () => {
    const r = organizeDesktop(
      [
        win('a', 'window://a/x?priority=99'),
        win('a', 'window://a/f1?fullscreen=true&priority=1'),
        win('a', 'window://a/f2?fullscreen=true&priority=100'),
      ],
      null,
      [],
    );
    expect(uris(r)).toEqual(['window://a/f1?fullscreen=true&priority=1']);
  });
  it('fullscreen in one server does not hide other servers', () => {
    const r = organizeDesktop(
      [
        win('a', 'window://a/f?fullscreen=1'),
        win('a', 'window://a/n'),
        win('b', 'window://b/f?fullscreen=on'),
        win('c', 'window://c/n1'),
        win('c', 'window://c/n2'),
      ],
      null,
      [],
    );
    expect(uris(r)).toEqual(['window://a/f?fullscreen=1', 'window://b/f?fullscreen=on', 'window://c/n1', 'window://c/n2']);
  });
  it('fullscreen=false is not fullscreen', () => {
    const r = organizeDesktop([win('a', 'window://a/1?fullscreen=false'), win('a', 'window://a/2')], null, []);
    expect(r.windows).toHaveLength(2);
  });
  it('_meta.fullscreen counts, and a skipped (empty) fullscreen window does not hide the others', () => {
    const r = organizeDesktop(
      [
        win('a', 'window://a/empty?fullscreen=1', null),
        win('a', 'window://a/n'),
        { server: 'b', resource: { uri: 'window://b/m', _meta: { fullscreen: true } }, contents: [txt('m')] },
        win('b', 'window://b/n'),
      ],
      null,
      [],
    );
    expect(uris(r)).toEqual(['window://a/n', 'window://b/m']);
  });
});

describe('step 5: size', () => {
  const windows = [win('a', 'window://a/1'), win('a', 'window://a/2'), win('b', 'window://b/1'), win('c', 'window://c/1')];
  it.each([undefined, null])('%s means unlimited', (size) => {
    expect(organizeDesktop(windows, size, []).entries).toHaveLength(4);
  });
  it('0 returns nothing', () => {
    expect(organizeDesktop(windows, 0, []).entries).toEqual([]);
  });
  it('negative returns nothing, without warnings', () => {
    const r = organizeDesktop([...windows, win('z', 'bad')], -3, []);
    expect(r).toEqual({ entries: [], windows: [], serverOrder: [], warnings: [] });
  });
  it('n caps the total across servers, in display order', () => {
    expect(uris(organizeDesktop(windows, 3, []))).toEqual(['window://a/1', 'window://a/2', 'window://b/1']);
    expect(uris(organizeDesktop(windows, 1, [call('c')]))).toEqual(['window://c/1']);
  });
  it('n larger than the window count returns all', () => {
    expect(organizeDesktop(windows, 100, []).entries).toHaveLength(4);
  });
  it.each([1.5, Number.NaN, Infinity, '3' as unknown as number])('rejects a non-integer size %s', (size) => {
    expect(() => organizeDesktop(windows, size, [])).toThrow(McpdError);
    expect(() => organizeDesktop(windows, size, [])).toThrow(/desktop size must be an integer/);
  });
});

describe('rendering', () => {
  it('URI as sent, blank line, texts joined by blank lines', () => {
    const r = organizeDesktop([{ server: 's', resource: 'window://S/a?priority=80', contents: [txt('one'), txt('two')] }], null, []);
    expect(r.entries).toEqual(['window://S/a?priority=80\n\none\n\ntwo']);
  });
  it('only the URI when no content has text', () => {
    const r = organizeDesktop([{ server: 's', resource: 'window://s/a', contents: [txt('')] }], null, []);
    expect(r.entries).toEqual(['window://s/a']);
  });
  it('entries and windows line up', () => {
    const r = organizeDesktop([win('a', 'window://a/1'), win('b', 'window://b/2')], null, []);
    expect(r.windows.map((w) => w.rendered)).toEqual(r.entries);
    expect(r.windows.map((w) => w.index)).toEqual([0, 1]);
  });
});

describe('window filter (GetDeskTopReq.window)', () => {
  const windows = [
    win('a', 'window://a/main?priority=80'),
    win('a', 'window://a/other'),
    win('b', 'window://A/main'),
    win('b', 'bad uri'),
    { server: 'c', resource: 'window://a/main', contents: [{ blob: 'AA' }] },
  ];
  it('keeps windows with the same host and path, ignoring query and host case', () => {
    const r = organizeDesktop(windows, null, [], 'window://a/main');
    expect(r.windows.map((w) => [w.server, w.uri])).toEqual([
      ['a', 'window://a/main?priority=80'],
      ['b', 'window://A/main'],
    ]);
  });
  it('warns only about matching windows', () => {
    const r = organizeDesktop(windows, null, [], 'window://a/main?fullscreen=1');
    expect(r.warnings).toEqual([expect.stringMatching(/server "c".*only blob contents/)]);
  });
  it('compares decoded paths: %2F is not a separator', () => {
    const w = [win('a', 'window://a/x%2Fy'), win('a', 'window://a/x/y')];
    expect(uris(organizeDesktop(w, null, [], 'window://a/x%2fy'))).toEqual(['window://a/x%2Fy']);
  });
  it('no match gives an empty desktop', () => {
    expect(organizeDesktop(windows, null, [], 'window://zzz').entries).toEqual([]);
  });
  it.each([undefined, null, ''])('%j means no filter', (f) => {
    expect(organizeDesktop(windows, null, [], f).windows).toHaveLength(3);
  });
  it('the filter is applied before fullscreen and size', () => {
    const w = [win('a', 'window://a/f?fullscreen=1'), win('a', 'window://a/g'), win('b', 'window://a/g')];
    expect(organizeDesktop(w, 1, [call('b')], 'window://a/g').windows.map((x) => x.server)).toEqual(['b']);
  });
  it('an invalid filter throws INVALID_ARGUMENT saying why', () => {
    expect(() => organizeDesktop(windows, null, [], 'http://a')).toThrow(/GetDeskTopReq.window: .*scheme/);
    expect(() => organizeDesktop(windows, 0, [], 'window://')).toThrow(McpdError);
  });
});

describe('resolution memo', () => {
  it('reuses a resolved window while the resource and contents objects are the same, and sees replaced contents', () => {
    const resource = { uri: 'window://m/a?priority=5' };
    const first = [{ uri: 'window://m/a', text: 'one' }];
    const input = [{ server: 's', resource, contents: first }];
    expect(organizeDesktop(input, null, []).entries).toEqual(['window://m/a?priority=5\n\none']);
    expect(organizeDesktop(input, null, []).entries).toEqual(['window://m/a?priority=5\n\none']);
    const replaced = [{ server: 's', resource, contents: [{ uri: 'window://m/a', text: 'two' }] }];
    expect(organizeDesktop(replaced, null, []).entries).toEqual(['window://m/a?priority=5\n\ntwo']);
    expect(organizeDesktop([{ server: 's', resource, contents: [] }], null, []).entries).toEqual([]);
  });
});

// The size the bench measures (bench/context.mjs organize_desktop_10k, organize_desktop_growth): here only
// what the result must be, never how long it took.
describe('10,000 windows over 100 servers', () => {
  it('orders every server, warns about nothing and is the same on a second call', () => {
    const windows = syntheticWindows(10_000, 100);
    const history = syntheticHistory(200, 100);
    const first = organizeDesktop(windows, null, history);
    expect(first.serverOrder).toHaveLength(100);
    expect(new Set(first.serverOrder).size).toBe(100);
    expect(first.warnings).toEqual([]);
    expect(organizeDesktop(windows, null, history)).toEqual(first);
  });
});
