import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatIssue, type ConfigIssue } from '../shared/errors.js';
import { loadStore, validateStoreDir } from './index.js';
import { store } from '../../test/support/catalog-store.js';

/** [file relative to the store, line, field] — the coordinates a user needs. */
function where(dir: string, issues: ConfigIssue[]): Array<[string, number, string]> {
  return issues.map((i) => [relative(dir, i.file), i.line, i.field]);
}

function find(issues: ConfigIssue[], field: string): ConfigIssue {
  const i = issues.find((x) => x.field === field);
  if (!i) throw new Error(`no issue for ${field} in:\n${issues.map(formatIssue).join('\n')}`);
  return i;
}

const BROKEN: Record<string, string[]> = {
  'profiles/default.yaml': [
    'servers:', //                       1
    '  - name: a', //                    2
    '    cmd: [node]', //                3
    '    maxInstance: 2', //             4 unknown key
    '    strategy: sometimes', //        5 bad enum
    '    maxConcurrent: 0', //           6 zero
    '    disabled: "yes"', //            7 wrong type
    '  - name: b', //                    8
    '    cmd: [node]', //                9
    '    maxInstances: 2', //           10
    '    minReady: 3', //               11 minReady > maxInstances
    '  - name: a', //                   12 duplicate name
    '    cmd: [node]', //               13
    '  - name: c', //                   14 stdio without cmd
    '    transport: stdio', //          15
    '  - name: d', //                   16
    '    transport: sse', //            17
    '    url: "not a url"', //          18 invalid url
    '  - name: e', //                   19
    '    cmd: [node, "${NOPE}"]', //    20 unset variable
    '    idleSeconds: -1', //           21 negative
    '  - name: "bad name"', //          22 invalid server name
    '    cmd: [node]', //               23
  ],
  'profiles/dev.yaml': [
    'inputs:', //                        1
    '  - id: pick', //                   2
    '    type: pickString', //           3
    '    options: [a, b]', //            4
    '    default: c', //                 5 default not an option
    '  - id: tok', //                    6
    '    type: promptString', //         7
    '    password: maybe', //            8 wrong type
    '    command: x', //                 9 belongs to another input type
    'namespace:', //                    10
    '  mode: sometimes', //             11 bad enum
    'servers: {}', //                   12 wrong type
  ],
  'profiles/broken.yaml': [
    'servers:', //                       1
    '  - name: x', //                    2
    '    cmd: [a]', //                   3
    '    cmd: [b]', //                   4 duplicate key (YAML error)
  ],
  'profiles/Bad Name.yaml': ['servers: []'],
  'callers.yaml': [
    'callers:', //                       1
    '  vscode: dev', //                  2
    '  cursor: deve', //                 3 unknown profile
    'extra: 1', //                       4 unknown key
  ],
  'runtime.yaml': [
    'logLevel: verbose', //              1
    'pageSize: 0', //                    2
    'metricsAddress: nope', //           3
    'socket: 5', //                      4
  ],
};

describe('validation', () => {
  it('reports every problem at once, with file, line and field', async () => {
    const dir = await store(BROKEN);
    const r = await loadStore(dir, { env: {} });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(where(dir, r.issues)).toEqual([
      ['callers.yaml', 3, 'callers.cursor'],
      ['callers.yaml', 4, 'extra'],
      ['profiles/Bad Name.yaml', 1, ''],
      ['profiles/broken.yaml', 4, ''],
      ['profiles/default.yaml', 4, 'servers[0].maxInstance'],
      ['profiles/default.yaml', 5, 'servers[0].strategy'],
      ['profiles/default.yaml', 6, 'servers[0].maxConcurrent'],
      ['profiles/default.yaml', 7, 'servers[0].disabled'],
      ['profiles/default.yaml', 11, 'servers[1].minReady'],
      ['profiles/default.yaml', 12, 'servers[2].name'],
      ['profiles/default.yaml', 14, 'servers[3]'],
      ['profiles/default.yaml', 18, 'servers[4].url'],
      ['profiles/default.yaml', 20, 'servers[5].cmd[1]'],
      ['profiles/default.yaml', 21, 'servers[5].idleSeconds'],
      ['profiles/default.yaml', 22, 'servers[6].name'],
      ['profiles/dev.yaml', 5, 'inputs[0].default'],
      ['profiles/dev.yaml', 8, 'inputs[1].password'],
      ['profiles/dev.yaml', 9, 'inputs[1].command'],
      ['profiles/dev.yaml', 11, 'namespace.mode'],
      ['profiles/dev.yaml', 12, 'servers'],
      ['runtime.yaml', 1, 'logLevel'],
      ['runtime.yaml', 2, 'pageSize'],
      ['runtime.yaml', 3, 'metricsAddress'],
      ['runtime.yaml', 4, 'socket'],
    ]);
    expect(await validateStoreDir(dir, {})).toEqual(r.issues);
  });

  it('gives columns and actionable messages and hints', async () => {
    const dir = await store(BROKEN);
    const r = await loadStore(dir, { env: {} });
    if (r.ok) throw new Error('should fail');
    const unknown = find(r.issues, 'servers[0].maxInstance');
    expect(unknown.column).toBe(5);
    expect(unknown.message).toBe('unknown key "maxInstance" in a server');
    expect(unknown.hint).toBe('did you mean "maxInstances"?');
    expect(find(r.issues, 'servers[0].strategy').message).toBe(
      'must be one of stateless | stateful | persistent | singleton, got the string "sometimes"',
    );
    expect(find(r.issues, 'servers[0].maxConcurrent').message).toBe('must be ≥ 1, got 0');
    expect(find(r.issues, 'servers[0].disabled').message).toMatch(/true or false, got the string "yes"/);
    expect(find(r.issues, 'servers[1].minReady').message).toBe('minReady 3 is greater than maxInstances 2');
    expect(find(r.issues, 'servers[2].name').message).toBe('duplicate server name "a" (first used on line 2)');
    expect(find(r.issues, 'servers[3]').message).toMatch(/transport stdio but has no cmd/);
    expect(find(r.issues, 'servers[4].url').message).toBe('"not a url" is not a valid http(s) URL');
    expect(find(r.issues, 'servers[5].cmd[1]').message).toBe('environment variable "NOPE" is not set');
    expect(find(r.issues, 'servers[5].cmd[1]').hint).toContain('${NOPE:-default}');
    expect(find(r.issues, 'servers[5].idleSeconds').message).toBe('must be ≥ 0, got -1');
    const caller = find(r.issues, 'callers.cursor');
    expect(caller.message).toBe('caller "cursor" maps to profile "deve", which does not exist');
    expect(caller.hint).toMatch(/^did you mean "dev"\?/);
    expect(find(r.issues, 'inputs[1].command').message).toMatch(/does not apply to a promptString input/);
    expect(find(r.issues, 'logLevel').message).toMatch(/debug \| info \| notice/);
    expect(find(r.issues, 'extra').hint).toBe('known keys: callers, policies');
    const dup = r.issues.find((i) => i.file.endsWith('broken.yaml'));
    expect(dup?.message).toMatch(/^YAML syntax error: .*unique/);
    expect(formatIssue(unknown)).toBe(
      `${join(dir, 'profiles/default.yaml')}:4:5: servers[0].maxInstance: unknown key "maxInstance" in a server (${unknown.hint})`,
    );
  });

  it('reports only the syntax error of a file whose YAML structure is broken', async () => {
    const dir = await store({
      'profiles/default.yaml': [
        'servers:', //                 1
        '  - name: x', //              2
        '    cmd: [a, b', //           3 unclosed flow sequence
        '  - name: y', //              4
        '    bogus: 1', //             5 not reported: the structure is unreliable
      ],
      'callers.yaml': ['callers: { vscode: default }'],
    });
    const r = await loadStore(dir, { env: {} });
    if (r.ok) throw new Error('should fail');
    expect(r.issues.every((i) => i.file.endsWith('default.yaml') && i.message.startsWith('YAML syntax error'))).toBe(true);
    // The parser notices the missing "]" where the next item starts: one issue, with the line's text.
    expect(r.issues.map((i) => i.line)).toEqual([4]);
    expect(r.issues[0]?.message).toMatch(/end with a \] at line 4: "- name: y"$/);
  });

  it('one unclosed "[" before many items is one issue, not one per follow-up error', async () => {
    const items = Array.from({ length: 8 }, (_, i) => [`      - name: s${i}`, `        cmd: [node, s${i}.js]`, `        env: { A: "1" }`]);
    const dir = await store({
      'profiles/default.yaml': ['servers:', '  - name: x', '    cmd: [npx, -y, "@modelcontextprotocol/server-everything"', ...items.flat()],
      'callers.yaml': ['callers: { vscode: default }'],
    });
    const r = await loadStore(dir, { env: {} });
    if (r.ok) throw new Error('should fail');
    expect(r.issues).toHaveLength(1);
    expect(r.issues[0]?.line).toBe(4);
    expect(r.issues[0]?.message).toBe('YAML syntax error: Missing , or : between flow sequence items at line 4: "- name: s0"');
    // No control characters (the old message carried a raw \u0018 token).
    expect([...(r.issues[0]?.message ?? '')].every((c) => c.charCodeAt(0) >= 0x20)).toBe(true);
  });

  it('reports a missing default profile', async () => {
    const dir = await store({ 'profiles/dev.yaml': ['servers: []'], 'callers.yaml': ['callers: { vscode: dev }'] });
    const r = await loadStore(dir, { env: {} });
    if (r.ok) throw new Error('should fail');
    expect(where(dir, r.issues)).toEqual([['profiles/default.yaml', 1, '']]);
    expect(r.issues[0]?.message).toMatch(/required profile "default" is missing/);
  });

  it('reports a profile defined by both .yaml and .yml', async () => {
    const dir = await store({ 'profiles/default.yaml': ['servers: []'], 'profiles/default.yml': ['servers: []'] });
    const r = await loadStore(dir, { env: {} });
    if (r.ok) throw new Error('should fail');
    expect(where(dir, r.issues)).toEqual([['profiles/default.yml', 1, '']]);
  });

  it('checks cmd / command spellings and transport requirements', async () => {
    const dir = await store({
      'profiles/default.yaml': [
        'servers:', //                         1
        '  - name: both', //                   2
        '    cmd: [a]', //                     3
        '    command: a', //                   4 both spellings
        '  - name: orphan-args', //            5
        '    args: [x]', //                    6 args without command
        '  - name: http', //                   7 http without url
        '    transport: streamable_http', //  8
        '  - name: quote', //                  9
        '    cmd: "node \'unterminated"', //  10
        '  - name: ambiguous', //             11 cmd and url, no transport
        '    cmd: [a]', //                    12
        '    url: http://x/', //              13
        '  - cmd: [a]', //                    14 no name
        '  - name: meta', //                  15
        '    cmd: [a]', //                    16
        '    toolMeta:', //                   17
        '      t: { alias: x, tag: [a] }', // 18 unknown key in tool meta
      ],
    });
    const r = await loadStore(dir, { env: {} });
    if (r.ok) throw new Error('should fail');
    expect(where(dir, r.issues)).toEqual([
      ['profiles/default.yaml', 4, 'servers[0].command'],
      ['profiles/default.yaml', 6, 'servers[1].args'],
      ['profiles/default.yaml', 7, 'servers[2]'],
      ['profiles/default.yaml', 10, 'servers[3].cmd'],
      ['profiles/default.yaml', 11, 'servers[4]'],
      ['profiles/default.yaml', 14, 'servers[5]'],
      ['profiles/default.yaml', 18, 'servers[6].toolMeta.t.tag'],
    ]);
    expect(find(r.issues, 'servers[6].toolMeta.t.tag').hint).toMatch(/did you mean "tags"/);
  });

  it('suggests camelCase keys for A2C-SMCP snake_case spellings', async () => {
    const dir = await store({ 'profiles/default.yaml': ['servers:', '  - name: a', '    cmd: [a]', '    forbidden_tools: [x]'] });
    const r = await loadStore(dir, { env: {} });
    if (r.ok) throw new Error('should fail');
    expect(r.issues).toHaveLength(1);
    expect(r.issues[0]).toMatchObject({ line: 4, field: 'servers[0].forbidden_tools' });
    expect(r.issues[0]?.hint).toMatch(/^did you mean "forbiddenTools"\?/);
  });
});
