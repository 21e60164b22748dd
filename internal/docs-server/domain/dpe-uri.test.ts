import { describe, expect, it } from 'vitest';
import { DpeError } from '../../contract/finder/dpe-error.js';
import { buildDpeUri } from './dpe-uri-build.js';
import { isValidDpeUri, parseDpeUri } from '../../contract/finder/dpe-uri.js';

function ruleOf(uri: string): unknown {
  try {
    parseDpeUri(uri);
  } catch (e) {
    expect(e).toBeInstanceOf(DpeError);
    const err = e as DpeError;
    expect(err.code).toBe(4204);
    expect(err.data?.uri).toBe(uri);
    expect(err.message).toMatch(/violated: .+; .+/); // says what was wrong and what to do
    return err.data?.rule;
  }
  throw new Error(`expected ${uri} to be rejected`);
}

describe('levels', () => {
  it('level 0: catalogue', () => {
    const p = parseDpeUri('dpe://docs');
    expect(p).toMatchObject({ scheme: 'dpe', host: 'docs', level: 0 });
    expect(p.docRef).toBeUndefined();
  });
  it('level 1: document', () => {
    expect(parseDpeUri('dpe://docs/report.md')).toMatchObject({ level: 1, docRef: 'report.md' });
    expect(parseDpeUri('dpe://docs/report.md').subPath).toBeUndefined();
  });
  it('level 2: page', () => {
    expect(parseDpeUri('dpe://docs/report.md/pages/12')).toMatchObject({
      level: 2,
      docRef: 'report.md',
      subPath: 'pages/12',
      pageIndex: 12,
    });
  });
  it('level 3: element', () => {
    expect(parseDpeUri('dpe://docs/report.md/elements/text-abc')).toMatchObject({
      level: 3,
      subPath: 'elements/text-abc',
      elementId: 'text-abc',
    });
  });
  it('applies the defaults of spec/README.md', () => {
    expect(parseDpeUri('dpe://docs/r').query).toEqual({ format: 'json', depth: 'metadata', offset: 0, limit: 20 });
  });
  it('parses every query parameter together', () => {
    const p = parseDpeUri('dpe://docs/r?format=markdown&depth=pages&offset=40&limit=100&categories=table,text,table');
    expect(p.query).toEqual({ format: 'markdown', depth: 'pages', offset: 40, limit: 100, categories: ['table', 'text'] });
  });
});

describe('the 8 rules', () => {
  it('rule 1: scheme must be dpe', () => {
    expect(ruleOf('window://docs/x')).toBe(1);
    expect(ruleOf('dpe:/docs')).toBe(1);
    expect(ruleOf('')).toBe(1);
    expect(ruleOf('dpe')).toBe(1);
    expect(parseDpeUri('DPE://docs').scheme).toBe('dpe'); // schemes are case-insensitive (RFC 3986)
  });
  it('rule 2: host not empty, no port/user/escapes', () => {
    expect(ruleOf('dpe://')).toBe(2);
    expect(ruleOf('dpe:///doc')).toBe(2);
    expect(ruleOf('dpe://?format=json')).toBe(2);
    expect(ruleOf('dpe://host:80/doc')).toBe(2);
    expect(ruleOf('dpe://a%20b/doc')).toBe(2);
    expect(parseDpeUri('dpe://my-server_1.x~/d').host).toBe('my-server_1.x~');
  });
  it('rule 3: sub-path pages/{N} or elements/{ID}', () => {
    expect(parseDpeUri('dpe://h/d/pages/0').pageIndex).toBe(0);
    for (const bad of [
      'dpe://h/d/pages',
      'dpe://h/d/pages/x',
      'dpe://h/d/pages/-1',
      'dpe://h/d/pages/1.5',
      'dpe://h/d/elements',
      'dpe://h/d/slides/1',
      'dpe://h/d/pages/1/x',
      'dpe://h//d',
      'dpe://h/d//pages/1',
    ]) {
      expect(ruleOf(bad), bad).toBe(3);
    }
  });
  it('rule 4: format', () => {
    for (const f of ['json', 'markdown', 'text']) expect(parseDpeUri(`dpe://h/d?format=${f}`).query.format).toBe(f);
    expect(ruleOf('dpe://h/d?format=html')).toBe(4);
    expect(ruleOf('dpe://h/d?format=')).toBe(4);
    expect(ruleOf('dpe://h/d?format=JSON')).toBe(4);
  });
  it('rule 5: depth', () => {
    expect(parseDpeUri('dpe://h/d?depth=pages').query.depth).toBe('pages');
    expect(parseDpeUri('dpe://h/d?depth=metadata').query.depth).toBe('metadata');
    expect(ruleOf('dpe://h/d?depth=all')).toBe(5);
  });
  it('rule 6: offset', () => {
    expect(parseDpeUri('dpe://h/d?offset=0').query.offset).toBe(0);
    expect(parseDpeUri('dpe://h/d?offset=250').query.offset).toBe(250);
    for (const v of ['-1', '1.0', 'x', '', '+1', '01', '99999999999999999999']) expect(ruleOf(`dpe://h/d?offset=${v}`), v).toBe(6);
  });
  it('rule 7: limit in 1..100', () => {
    expect(parseDpeUri('dpe://h/d?limit=1').query.limit).toBe(1);
    expect(parseDpeUri('dpe://h/d?limit=100').query.limit).toBe(100);
    for (const v of ['0', '101', '-5', 'ten', '', '+5', '020']) expect(ruleOf(`dpe://h/d?limit=${v}`), v).toBe(7);
  });
  it('rule 8: categories', () => {
    expect(parseDpeUri('dpe://h/d/pages/0?categories=heading').query.categories).toEqual(['heading']);
    expect(parseDpeUri('dpe://h/d?categories=pivot_table,widget').query.categories).toEqual(['pivot_table', 'widget']);
    expect(ruleOf('dpe://h/d?categories=tables')).toBe(8);
    expect(ruleOf('dpe://h/d?categories=text,,table')).toBe(8);
    expect(ruleOf('dpe://h/d?categories=text,')).toBe(8);
    expect(ruleOf('dpe://h/d?categories=Text')).toBe(8);
  });
});

describe('decided edge cases', () => {
  it('doc-ref and element IDs are percent-decoded; "/" inside them must be %2F', () => {
    const p = parseDpeUri('dpe://h/notes%2Fq1%20plan.md/elements/a%2Fb');
    expect(p.docRef).toBe('notes/q1 plan.md');
    expect(p.elementId).toBe('a/b');
    expect(ruleOf('dpe://h/d/elements/a/b')).toBe(3);
    expect(ruleOf('dpe://h/d%zz')).toBe('syntax');
    expect(ruleOf('dpe://h/d/elements/%E0%A4%A')).toBe(3);
  });
  it('one trailing slash is ignored at every level', () => {
    expect(parseDpeUri('dpe://h/').level).toBe(0);
    expect(parseDpeUri('dpe://h/d/')).toMatchObject({ level: 1, docRef: 'd' });
    expect(parseDpeUri('dpe://h/d/pages/3/?format=text')).toMatchObject({ level: 2, pageIndex: 3 });
    expect(ruleOf('dpe://h//')).toBe(3);
    expect(ruleOf('dpe://h/d//')).toBe(3);
  });
  it('repeated known keys are rejected under their rule; unknown keys are kept and ignored', () => {
    expect(ruleOf('dpe://h/d?format=json&format=text')).toBe(4);
    expect(ruleOf('dpe://h/d?limit=5&limit=5')).toBe(7);
    const p = parseDpeUri('dpe://h/d?lang=en&lang=fr&Format=xml&format=text');
    expect(p.query.format).toBe('text');
    expect(p.queryParams.lang).toBe('en');
    expect(p.queryParams.Format).toBe('xml');
  });
  it('empty query pairs and a bare "?" are ignored; query values are percent-decoded', () => {
    expect(parseDpeUri('dpe://h/d?').query.format).toBe('json');
    expect(parseDpeUri('dpe://h/d?&format=text&').query.format).toBe('text');
    expect(parseDpeUri('dpe://h/d?categories=text%2Ctable').query.categories).toEqual(['text', 'table']);
    expect(ruleOf('dpe://h/d?format=%')).toBe('syntax');
  });
  it('pages/01 and pages/+1 are not canonical and are rejected', () => {
    expect(ruleOf('dpe://h/d/pages/01')).toBe(3);
    expect(ruleOf('dpe://h/d/pages/+1')).toBe(3);
    expect(ruleOf('dpe://h/d/pages/00')).toBe(3);
  });
  it('host case is preserved (server names are case-sensitive)', () => {
    expect(parseDpeUri('dpe://GitHub/d').host).toBe('GitHub');
  });
  it('whitespace, controls and fragments are rejected', () => {
    expect(ruleOf(' dpe://h/d')).toBe(1);
    expect(ruleOf('dpe://h/my doc')).toBe('syntax');
    expect(ruleOf('dpe://h/d\n')).toBe('syntax');
    expect(ruleOf('dpe://h/d#x')).toBe('syntax');
  });
  it('isValidDpeUri mirrors parseDpeUri', () => {
    expect(isValidDpeUri('dpe://h/d')).toBe(true);
    expect(isValidDpeUri('dpe://h/d?limit=0')).toBe(false);
  });
});

describe('buildDpeUri', () => {
  it('builds each level', () => {
    expect(buildDpeUri('h')).toBe('dpe://h');
    expect(buildDpeUri('h', 'd.md')).toBe('dpe://h/d.md');
    expect(buildDpeUri('h', 'd.md', { page: 2 })).toBe('dpe://h/d.md/pages/2');
    expect(buildDpeUri('h', 'd.md', 'pages/3')).toBe('dpe://h/d.md/pages/3');
    expect(buildDpeUri('h', 'd.md', 'elements/e-1')).toBe('dpe://h/d.md/elements/e-1');
    expect(buildDpeUri('h', 'd', undefined, { depth: 'pages', offset: 0, limit: 5, categories: ['text', 'table'], x: undefined })).toBe(
      'dpe://h/d?depth=pages&offset=0&limit=5&categories=text,table',
    );
  });
  it('encodes doc-ref and element ID so they round-trip', () => {
    const uri = buildDpeUri('h', 'dir/a b%.md', { element: 'x/y?z' });
    expect(uri).toBe('dpe://h/dir%2Fa%20b%25.md/elements/x%2Fy%3Fz');
    expect(parseDpeUri(uri)).toMatchObject({ docRef: 'dir/a b%.md', elementId: 'x/y?z', level: 3 });
  });
  it('rejects what it cannot build, with 4204', () => {
    expect(() => buildDpeUri('')).toThrow(DpeError);
    expect(() => buildDpeUri('h', '')).toThrow(/doc-ref is empty/);
    expect(() => buildDpeUri('h', undefined, { page: 1 })).toThrow(/needs a doc-ref/);
    expect(() => buildDpeUri('h', 'd', { page: -1 })).toThrow(/non-negative/);
    expect(() => buildDpeUri('h', 'd', 'pages/01x')).toThrow(DpeError);
    expect(() => buildDpeUri('h', 'd', { element: '' })).toThrow(/element ID is empty/);
    expect(() => buildDpeUri('h', 'd', 'slides/1')).toThrow(/sub-path/);
  });
});
