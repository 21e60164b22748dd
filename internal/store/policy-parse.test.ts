import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatIssue, type ConfigIssue } from '../shared/errors.js';
import { loadStore } from './index.js';
import { store } from '../../test/support/catalog-store.js';

const BASE = { 'profiles/default.yaml': ['servers: []'] };

function where(dir: string, issues: ConfigIssue[]): Array<[string, number, number | undefined, string, string]> {
  return issues.map((i) => [relative(dir, i.file), i.line, i.column, i.field, i.message]);
}

async function bad(lines: string[]): Promise<Array<[string, number, number | undefined, string, string]>> {
  const dir = await store({ ...BASE, 'callers.yaml': lines });
  const r = await loadStore(dir, { env: {} });
  if (r.ok) throw new Error('the store loaded');
  return where(dir, r.issues);
}

describe('callers.yaml policies:', () => {
  it('loads the rules of the issue in order, with globs, rates and a compiled condition', async () => {
    const dir = await store({
      ...BASE,
      'callers.yaml': [
        'callers: { alice: default }',
        'policies:',
        '  - name: no-sum-for-alice',
        '    callers: [alice]',
        '    effect: deny',
        '    tools: ["ev__get-sum"]',
        '  - name: no-secret-echo',
        '    callers: [alice]',
        '    effect: deny',
        '    tools: ["ev__echo"]',
        `    when: 'args.message == "secret"'`,
        '  - name: ten-a-minute',
        '    effect: allow',
        '    tools: ["ev__*"]',
        '    resources: ["file:///tmp/*"]',
        '    rate: "10/minute"',
      ],
    });
    const r = await loadStore(dir, { env: {} });
    if (!r.ok) throw new Error(r.issues.map(formatIssue).join('\n'));
    const rules = r.store.policies ?? [];
    expect(rules.map((p) => [p.name, p.effect, p.callers, p.tools, p.resources, p.rate])).toEqual([
      ['no-sum-for-alice', 'deny', ['alice'], ['ev__get-sum'], undefined, undefined],
      ['no-secret-echo', 'deny', ['alice'], ['ev__echo'], undefined, undefined],
      ['ten-a-minute', 'allow', [], ['ev__*'], ['file:///tmp/*'], { text: '10/minute', tokens: 10, perMs: 60_000 }],
    ]);
    const when = rules[1]?.when;
    const vars = { caller: 'alice', face: 'grpc', method: 'tools/call', client: '', tool: 'ev__echo', uri: '' };
    expect(when?.source).toBe('args.message == "secret"');
    expect(when?.test({ ...vars, args: { message: 'secret' } })).toBe(true);
    expect(when?.test({ ...vars, args: { message: 'hello' } })).toBe(false);
    // A field the call did not send cannot be evaluated: the reason comes back (the rule then denies).
    expect(when?.test({ ...vars, args: {} })).toMatch(/no such key|not found/);
  });

  it('no policies: none in the store', async () => {
    const dir = await store({ ...BASE, 'callers.yaml': ['callers: {}'] });
    const r = await loadStore(dir, { env: {} });
    expect(r.ok && r.store.policies).toBeUndefined();
  });

  it('a CEL syntax error names the file, line, column and the position in the expression', async () => {
    const issues = await bad(['policies:', '  - name: typo', '    effect: deny', `    when: 'args.message = "x"'`]);
    expect(issues).toHaveLength(1);
    const [file, line, column, field, message] = issues[0] ?? [];
    expect([file, line, field]).toEqual(['callers.yaml', 4, 'policies[0].when']);
    // The value starts at column 11; its quote is one character; "=" is the 14th character of the expression.
    expect(column).toBe(11 + 1 + 13);
    expect(message).toMatch(/^CEL syntax error: .*at position 14 of the expression: "args.message ⟨here⟩= \\"x\\""$/);
  });

  it('an unknown variable or function is refused at load, where it is written', async () => {
    const issues = await bad([
      'policies:',
      '  - name: var',
      '    effect: deny',
      '    when: argz.path == "/"',
      '  - name: fn',
      '    effect: deny',
      '    when: args.path.startWith("/tmp/")',
    ]);
    expect(issues.map(([, line, column, field, m]) => [line, column, field, m.split(' at position')[0]])).toEqual([
      [4, 11, 'policies[0].when', 'unknown variable "argz" (known: caller, face, method, client, tool, uri, args)'],
      [7, 11 + 9, 'policies[1].when', 'unknown function "startWith"'],
    ]);
  });

  it('comprehension variables, macros and the strings extension are known', async () => {
    const dir = await store({
      ...BASE,
      'callers.yaml': [
        'policies:',
        '  - name: ok',
        '    effect: deny',
        `    when: 'has(args.paths) && args.paths.all(p, p.startsWith("/tmp/")) && caller.lowerAscii() in ["bob"]'`,
      ],
    });
    const r = await loadStore(dir, { env: {} });
    if (!r.ok) throw new Error(r.issues.map(formatIssue).join('\n'));
  });

  it('reports every bad field of every rule at once, with what to do', async () => {
    const issues = await bad([
      'policies:',
      '  - name: a',
      '    effect: block',
      '  - effect: deny',
      '  - name: b',
      '    effect: deny',
      '    rate: "10/minute"',
      '  - name: c',
      '    effect: allow',
      '    rate: "ten a minute"',
      '    tool: [x]',
      '  - name: a',
      '    effect: allow',
      '    callers: alice',
    ]);
    expect(issues.map(([, line, , field, m]) => [line, field, m])).toEqual([
      [3, 'policies[0].effect', 'must be one of deny | allow, got the string "block"'],
      [4, 'policies[1]', 'the rule has no name'],
      [7, 'policies[2].rate', 'a deny rule refuses every call it matches: a rate belongs on an allow rule'],
      [10, 'policies[3].rate', 'must be "N/second", "N/minute" or "N/hour" with N ≥ 1, got "ten a minute"'],
      [11, 'policies[3].tool', 'unknown key "tool" in a policy rule'],
      [14, 'policies[4].callers', 'must be a list of strings, got the string "alice"'],
    ]);
  });

  it('a repeated rule name is refused', async () => {
    const issues = await bad(['policies:', '  - { name: a, effect: deny }', '  - { name: a, effect: allow }']);
    expect(issues.map(([, line, , , m]) => [line, m])).toEqual([[3, 'a rule named "a" is already defined at line 2']]);
  });

  it('policies must be a list', async () => {
    const issues = await bad(['policies: { name: a }']);
    expect(issues.map(([, line, , field, m]) => [line, field, m])).toEqual([[1, 'policies', 'must be a list of rules, got a mapping']]);
  });
});
