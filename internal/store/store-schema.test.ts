import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TRANSPORTS } from '../contract/model/spec.js';
import { KEYS_BY_TYPE } from './inputs-parse.js';
import { loadStore, profileSchema, runtimeSchema, scaffoldStore } from './index.js';
import { NAMESPACE_KEYS, PROFILE_KEYS } from './profile-parse.js';
import { RUNTIME_KEYS } from './runtime-parse.js';
import { NUMBER_RULES, SERVER_KEYS } from './server-parse.js';
import { schemaGaps } from './store-schema.js';
import { store } from '../../test/support/catalog-store.js';
import { must } from '../shared/must.js';

type S = {
  properties: Record<string, S & Record<string, unknown>>;
  items: S;
  oneOf: S[];
  additionalProperties: unknown;
  required?: string[];
};

describe('store JSON Schema', () => {
  const profile = profileSchema() as unknown as S;
  const server = must(profile.properties.servers, 'servers schema').items;

  it('describes every key the parsers accept (a new key needs its schema here)', () => {
    expect(schemaGaps()).toEqual([]);
  });

  it('has exactly the keys the parsers accept, closed to anything else', () => {
    expect(Object.keys(profile.properties)).toEqual([...PROFILE_KEYS]);
    expect(Object.keys(server.properties)).toEqual([...SERVER_KEYS]);
    expect(Object.keys(profile.properties.namespace?.properties ?? {})).toEqual([...NAMESPACE_KEYS]);
    expect(Object.keys((runtimeSchema() as unknown as S).properties)).toEqual(RUNTIME_KEYS);
    expect(profile.additionalProperties).toBe(false);
    expect(server.additionalProperties).toBe(false);
    expect(server.required).toEqual(['name']);
    const inputs = must(profile.properties.inputs, 'inputs schema').items.oneOf;
    expect(inputs.map((s) => Object.keys(s.properties))).toEqual(Object.values(KEYS_BY_TYPE));
  });

  it('carries the enums and number bounds the parsers check', () => {
    expect(server.properties.transport?.enum).toEqual([...TRANSPORTS]);
    expect(server.properties.maxInstances).toEqual({ type: 'integer', minimum: NUMBER_RULES.maxInstances.min });
    expect(server.properties.callTimeoutSeconds).toMatchObject({
      type: 'number',
      exclusiveMinimum: 0,
      maximum: NUMBER_RULES.callTimeoutSeconds.max,
    });
  });

  it('is referenced from the scaffolded files, which load as a valid store', async () => {
    const dir = await store({});
    await scaffoldStore(dir);
    for (const rel of ['profiles/default.yaml', 'callers.yaml', 'runtime.yaml']) {
      const [first = ''] = readFileSync(join(dir, rel), 'utf8').split('\n');
      const m = /^# yaml-language-server: \$schema=(.+)$/.exec(first);
      expect(m, rel).not.toBeNull();
      expect(existsSync(resolve(dirname(join(dir, rel)), m?.[1] ?? ''))).toBe(true);
    }
    expect((await loadStore(dir, { scaffold: false })).ok).toBe(true);
  });

  it('scaffolds a runtime.yaml whose commented lines, uncommented, are the defaults and load', async () => {
    const dir = await store({});
    await scaffoldStore(dir);
    const text = readFileSync(join(dir, 'runtime.yaml'), 'utf8');
    const loaded = await loadStore(dir, { scaffold: false });
    if (!loaded.ok) throw new Error('the scaffolded store should load');
    const uncommented = text.replace(/^# (\w+: .*)$/gm, '$1');
    writeFileSync(join(dir, 'runtime.yaml'), uncommented);
    const again = await loadStore(dir, { scaffold: false });
    if (!again.ok) throw new Error(`uncommented defaults should load: ${JSON.stringify(again.issues)}`);
    expect(again.store.runtime).toEqual(loaded.store.runtime);
    expect(text).toContain('# metricsAddress: "127.0.0.1:9464"');
  });
});
