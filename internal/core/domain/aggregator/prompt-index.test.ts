import { describe, expect, it } from 'vitest';
import { McpdError } from '../../../shared/errors.js';
import { DEFAULT_NAMESPACE, type NamespacePolicy } from '../../../contract/model/profile.js';
import { PromptIndex } from './prompt-index.js';
import { profile, spec } from '../../../../test/support/aggregator.js';

const prompt = (name: string) => ({ name, description: `prompt ${name}` });

describe('PromptIndex', () => {
  it('namespaces prompts like tools and maps exposed names back to the downstream name', () => {
    const idx = new PromptIndex({ profile: profile([spec('everything'), spec('notes')]), fingerprintOf: (s) => `fp-${s}` });
    idx.update(
      new Map([
        ['everything', [prompt('simple'), prompt('args-prompt')]],
        ['notes', [prompt('simple')]],
      ]),
    );
    expect(idx.list(undefined, 10).items.map((p) => p.name)).toEqual(['everything__args-prompt', 'everything__simple', 'notes__simple']);
    const e = idx.resolve('notes__simple');
    expect([e.server, e.downstreamName, e.fingerprint, e.definition.name]).toEqual(['notes', 'simple', 'fp-notes', 'notes__simple']);
    expect(() => idx.resolve('simple')).toThrow(/did you mean/);
  });

  it('resolves a clash in `never` mode deterministically and reports it', () => {
    const never: NamespacePolicy = { ...DEFAULT_NAMESPACE, mode: 'never' };
    const idx = new PromptIndex({ profile: profile([spec('b'), spec('a')], never), fingerprintOf: (s) => s });
    idx.update(
      new Map([
        ['b', [prompt('greet')]],
        ['a', [prompt('greet')]],
      ]),
    );
    const snap = idx.snapshot();
    expect(snap.prompts.map((p) => [p.name, p.server])).toEqual([
      ['b__greet', 'b'],
      ['greet', 'a'],
    ]);
    expect(snap.collisions[0]?.servers).toEqual(['a', 'b']);
    expect(idx.resolve('greet').server).toBe('a');
  });

  it('answers an unknown name with NOT_FOUND', () => {
    const idx = new PromptIndex({ profile: profile([spec('a')]), fingerprintOf: (s) => s });
    let err: unknown;
    try {
      idx.resolve('x');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(McpdError);
    expect((err as McpdError).reason).toBe('NOT_FOUND');
  });
});
