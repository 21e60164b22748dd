import { describe, expect, it } from 'vitest';
import { formatIssue } from '../../../shared/errors.js';
import { diffStores } from './diff-stores.js';
import { toolViewOf, toolViews, viewProfileName } from '../../app/caller-naming.js';
import { store } from '../../../../test/support/catalog-store.js';
import { CALLER_KEYS } from '../../../store/callers-parse.js';
import { loadStore } from '../../../store/index.js';
import { callersSchema } from '../../../store/store-schema.js';

const PROFILES = {
  'profiles/default.yaml': ['servers: []'],
  'profiles/work.yaml': ['namespace: { reserve: 11 }', 'servers: []'],
  'profiles/short.yaml': ['namespace: { maxLength: 30 }', 'servers: []'],
};

async function load(callers: string) {
  const dir = await store({ ...PROFILES, 'callers.yaml': callers.split('\n') });
  return { dir, r: await loadStore(dir, { env: {} }) };
}

async function issues(callers: string): Promise<string[]> {
  const { r } = await load(callers);
  if (r.ok) throw new Error('the store loaded');
  return r.issues.map(formatIssue);
}

describe('callers.yaml: a caller’s own reserve', () => {
  it('reads the plain form and the long form { profile, reserve } side by side', async () => {
    const { r } = await load(
      [
        'callers:',
        '  cursor: work',
        '  claude-code: { profile: work, reserve: 11 }',
        '  gemini-cli:',
        '    profile: work',
        '    reserve: 10',
        '  codex: { profile: default }',
        '',
      ].join('\n'),
    );
    if (!r.ok) throw new Error(r.issues.map(formatIssue).join('\n'));
    expect(Object.fromEntries(r.store.callers)).toEqual({ cursor: 'work', 'claude-code': 'work', 'gemini-cli': 'work', codex: 'default' });
    expect(Object.fromEntries(r.store.callerReserves ?? [])).toEqual({ 'claude-code': 11, 'gemini-cli': 10 });
  });

  it('reports each mistake with file, line and field', async () => {
    const got = await issues(
      [
        'callers:',
        '  a: { profile: work, reserv: 3 }',
        '  b: { reserve: 3 }',
        '  c: { profile: work, reserve: -1 }',
        '  d: { profile: short, reserve: 20 }',
        '  e: { profile: nope, reserve: 1 }',
        '  f: { profile: work, reserve: "11" }',
        '',
      ].join('\n'),
    );
    const at = (line: number, text: string) => got.find((i) => i.includes(`callers.yaml:${line}:`) && i.includes(text));
    expect(at(2, 'callers.a.reserv: unknown key "reserv" in caller "a"'), got.join('\n')).toMatch(/did you mean "reserve"/);
    expect(at(3, 'callers.b: caller "b" has no profile')).toBeDefined();
    expect(at(4, 'callers.c.reserve: must be ≥ 0, got -1')).toBeDefined();
    expect(
      at(5, `callers.d.reserve: reserve 20 leaves 10 of profile "short"'s maxLength 30 characters for names; at least 16 are needed`),
    ).toMatch(/lower reserve to at most 14 or raise namespace\.maxLength in profiles\/short\.yaml/);
    expect(at(6, 'callers.e.profile: caller "e" maps to profile "nope", which does not exist')).toBeDefined();
    expect(at(7, 'callers.f.reserve: must be a whole number')).toBeDefined();
  });

  it('is in the callers schema: a profile name, or a closed mapping with a required profile and an integer reserve', () => {
    const entry = (callersSchema() as { properties: { callers: { additionalProperties: { oneOf: Record<string, unknown>[] } } } })
      .properties.callers.additionalProperties.oneOf;
    expect(entry[0]).toMatchObject({ type: 'string' });
    expect(entry[1]).toMatchObject({ type: 'object', required: ['profile'], additionalProperties: false });
    expect(Object.keys(entry[1]?.properties as object)).toEqual([...CALLER_KEYS]);
    expect((entry[1]?.properties as Record<string, unknown>).reserve).toMatchObject({ type: 'integer', minimum: 0 });
  });

  it('gives a caller whose reserve differs from its profile’s a view of its own, and a reserve change is a callers change', async () => {
    const { r } = await load(
      'callers:\n  claude-code: { profile: work, reserve: 11 }\n  gemini-cli: { profile: work, reserve: 10 }\n  cursor: work\n',
    );
    if (!r.ok) throw new Error('did not load');
    // Claude Code's reserve equals the profile's: it shares the profile's view with Cursor.
    expect(toolViewOf(r.store, 'claude-code')).toBe('work');
    expect(toolViewOf(r.store, 'cursor')).toBe('work');
    const gemini = toolViewOf(r.store, 'gemini-cli');
    expect(gemini).not.toBe('work');
    expect(viewProfileName(gemini)).toBe('work');
    const views = toolViews(r.store);
    expect(views.get(gemini)?.namespace.reserve).toBe(10);
    expect(views.get(gemini)?.name).toBe('work');
    expect(views.get('work')?.namespace.reserve).toBe(11);
    const { r: next } = await load(
      'callers:\n  claude-code: { profile: work, reserve: 11 }\n  gemini-cli: { profile: work, reserve: 12 }\n  cursor: work\n',
    );
    if (!next.ok) throw new Error('did not load');
    expect(diffStores(r.store, next.store).callersChanged).toBe(true);
    expect(diffStores(r.store, r.store).callersChanged).toBe(false);
  });
});
