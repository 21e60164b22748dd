import { describe, expect, it } from 'vitest';
import type { PolicyCondition, PolicyRule, PolicyVars } from '../../../contract/model/policy.js';
import { compileGlob } from './glob.js';
import { PolicyEngine } from './policy-engine.js';
import { TokenBucket } from './token-bucket.js';

const at = { line: 1, column: 1, field: 'policies[0]' };

function rule(r: Partial<PolicyRule> & Pick<PolicyRule, 'name' | 'effect'>): PolicyRule {
  return { callers: [], where: at, ...r };
}

/** A condition as the store compiles it: a function of the call's variables (here a plain one). */
function when(test: (v: PolicyVars) => boolean | string): PolicyCondition {
  return { source: 'test', test };
}

function vars(tool: string, args: unknown = {}): () => PolicyVars {
  return () => ({ caller: 'alice', face: 'grpc', method: 'tools/call', client: '', tool, uri: '', args });
}

describe('glob', () => {
  it('* runs over anything (slashes too), ? is one character, the rest is literal', () => {
    expect(compileGlob('ev__*')('ev__echo')).toBe(true);
    expect(compileGlob('ev__*')('fs__read')).toBe(false);
    expect(compileGlob('file:///tmp/*')('file:///tmp/a/b.txt')).toBe(true);
    expect(compileGlob('a?c')('abc')).toBe(true);
    expect(compileGlob('a?c')('abbc')).toBe(false);
    expect(compileGlob('a.c')('abc')).toBe(false);
    expect(compileGlob('(x)+')('(x)+')).toBe(true);
    expect(compileGlob('exact')('exact')).toBe(true);
  });
});

describe('PolicyEngine', () => {
  const rules = [
    rule({ name: 'no-sum-for-alice', callers: ['alice'], effect: 'deny', tools: ['ev__get-sum'] }),
    rule({
      name: 'no-secret-echo',
      callers: ['al*'],
      effect: 'deny',
      tools: ['ev__echo'],
      when: when((v) => (v.args as { message?: string }).message === 'secret'),
    }),
    rule({ name: 'bob-all', callers: ['bob'], effect: 'deny' }),
    rule({ name: 'tmp-only', effect: 'deny', resources: ['file:///etc/*'] }),
  ];
  const e = new PolicyEngine(rules);

  it('first matching rule decides; no match allows', () => {
    expect(e.decide('alice', 'tool', 'ev__get-sum', vars('ev__get-sum'))?.rule.name).toBe('no-sum-for-alice');
    expect(e.decide('alice', 'tool', 'ev__echo', vars('ev__echo', { message: 'secret' }))?.rule.name).toBe('no-secret-echo');
    expect(e.decide('alice', 'tool', 'ev__echo', vars('ev__echo', { message: 'hi' }))).toBeUndefined();
    expect(e.decide('carol', 'tool', 'ev__get-sum', vars('ev__get-sum'))).toBeUndefined();
    expect(e.decide('bob', 'prompt', 'p', vars(''))?.rule.name).toBe('bob-all');
    expect(e.decide('carol', 'resource', 'file:///etc/passwd', vars(''))?.rule.name).toBe('tmp-only');
    expect(e.decide('carol', 'resource', 'file:///tmp/x', vars(''))).toBeUndefined();
    // A rule that names only tools does not cover prompts or resources of the same name.
    expect(e.decide('alice', 'prompt', 'ev__get-sum', vars(''))).toBeUndefined();
  });

  it('lists hide what an unconditional deny decides; a rule with when keeps it listed', () => {
    expect(e.visible('alice', 'tool', 'ev__get-sum')).toBe(false);
    expect(e.visible('alice', 'tool', 'ev__echo')).toBe(true);
    expect(e.visible('carol', 'tool', 'ev__get-sum')).toBe(true);
    expect(e.visible('bob', 'resource', 'anything')).toBe(false);
    // A conditional rule before the unconditional one: the target is reachable, so it stays listed.
    const e2 = new PolicyEngine([
      rule({ name: 'weekday', effect: 'allow', when: when(() => true) }),
      rule({ name: 'never', effect: 'deny' }),
    ]);
    expect(e2.visible('x', 'tool', 't')).toBe(true);
  });

  it('fails closed: a condition that cannot be evaluated denies and says why', () => {
    const e3 = new PolicyEngine([rule({ name: 'broken', effect: 'allow', when: when(() => 'no such key: path') })]);
    expect(e3.decide('x', 'tool', 't', vars('t'))).toEqual({ rule: e3.rules[0], effect: 'deny', failed: 'no such key: path' });
  });

  it('evaluates a condition only when a rule with one matches caller and target', () => {
    let made = 0;
    const e4 = new PolicyEngine([rule({ name: 'c', callers: ['alice'], effect: 'deny', tools: ['a'], when: when(() => false) })]);
    const count = () => (made++, vars('a')());
    e4.decide('bob', 'tool', 'a', count);
    e4.decide('alice', 'tool', 'b', count);
    expect(made).toBe(0);
    e4.decide('alice', 'tool', 'a', count);
    expect(made).toBe(1);
  });

  it('an allow rule with a rate refuses past its quota, per caller and target, saying when to retry', () => {
    let now = 1_000_000;
    const q = new PolicyEngine(
      [rule({ name: 'q', effect: 'allow', tools: ['ev__*'], rate: { text: '2/minute', tokens: 2, perMs: 60_000 } })],
      () => now,
    );
    const take = (caller: string, tool: string) => q.decide(caller, 'tool', tool, vars(tool));
    expect(take('alice', 'ev__echo')?.effect).toBe('allow');
    expect(take('alice', 'ev__echo')?.effect).toBe('allow');
    expect(take('alice', 'ev__echo')).toEqual({ rule: q.rules[0], effect: 'deny', retryAfterMs: 30_000 });
    expect(take('bob', 'ev__echo')?.effect).toBe('allow'); // another caller: its own bucket
    expect(take('alice', 'ev__add')?.effect).toBe('allow'); // another target: its own bucket
    expect(q.quotas()).toContainEqual({ rule: 'q', caller: 'alice', target: 'tool:ev__echo', rate: '2/minute', remaining: 0 });
    now += 30_000;
    expect(take('alice', 'ev__echo')?.effect).toBe('allow');
    // A reload that keeps the rule keeps its buckets.
    const next = new PolicyEngine([...q.rules], () => now).adoptQuotas(q);
    expect(next.decide('alice', 'tool', 'ev__echo', vars('ev__echo'))).toMatchObject({ effect: 'deny' });
  });
});

describe('TokenBucket', () => {
  it('starts full, refills evenly, never past its capacity', () => {
    const b = new TokenBucket(10, 60_000, 0);
    for (let i = 0; i < 10; i++) expect(b.take(0)).toBe(0);
    expect(b.take(0)).toBe(6000);
    expect(b.take(3000)).toBe(3000);
    expect(b.take(6000)).toBe(0);
    expect(b.remaining(6000)).toBe(0);
    expect(b.remaining(10 * 60_000)).toBe(10);
    expect(b.full(10 * 60_000)).toBe(true);
  });

  it('a clock that goes back changes nothing', () => {
    const b = new TokenBucket(1, 1000, 5000);
    expect(b.take(5000)).toBe(0);
    expect(b.take(4000)).toBe(1000);
  });
});
