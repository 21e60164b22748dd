import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatIssue, type ConfigIssue } from '../shared/errors.js';
import type { ServerSpec } from '../contract/model/spec.js';
import { inputEnvName, loadStore, redactSpec } from './index.js';
import { store } from '../../test/support/catalog-store.js';

async function servers(dir: string, env: NodeJS.ProcessEnv): Promise<Map<string, ServerSpec>> {
  const r = await loadStore(dir, { env });
  if (!r.ok) throw new Error(r.issues.map(formatIssue).join('\n'));
  return new Map((r.store.profiles.get('default')?.servers ?? []).map((s) => [s.name, s]));
}

async function issues(dir: string, env: NodeJS.ProcessEnv): Promise<ConfigIssue[]> {
  const r = await loadStore(dir, { env });
  // A server missing a value leaves the store loading without it; the problems are reported all the same.
  if (r.ok && r.unresolved.length === 0) throw new Error('expected problems');
  return r.ok ? r.unresolved : r.issues;
}

describe('${VAR} expansion', () => {
  it('expands cmd, env, cwd, url and headers, and nothing else', async () => {
    const dir = await store({
      'profiles/default.yaml': [
        'servers:',
        '  - name: s',
        '    cmd: "run ${ARG} --at=${HOME_DIR}"',
        '    env: { TOKEN: "${SECRET}", PLAIN: x }',
        '    cwd: ${HOME_DIR}/work',
        '    exposeTools: ["${ARG}"]',
        '  - name: h',
        '    url: http://${HOST}:${PORT:-8080}/mcp',
        '    headers: { Authorization: "Bearer ${SECRET}" }',
      ],
    });
    const s = await servers(dir, { ARG: 'two words', HOME_DIR: '/h', SECRET: 'sekrit', HOST: 'example.org' });
    // Split first, expand after: a value with spaces stays one argument.
    expect(s.get('s')).toMatchObject({
      cmd: ['run', 'two words', '--at=/h'],
      env: { TOKEN: 'sekrit', PLAIN: 'x' },
      cwd: '/h/work',
      exposeTools: ['${ARG}'],
    });
    expect(s.get('h')).toMatchObject({ url: 'http://example.org:8080/mcp', headers: { Authorization: 'Bearer sekrit' } });
  });

  it('handles fallbacks, nesting, empty values, escapes and the store directory', async () => {
    const dir = await store({
      'profiles/default.yaml': [
        'servers:',
        '  - name: s',
        '    cmd:',
        '      - ${UNSET:-fb}',
        '      - ${EMPTY:-used-when-empty}',
        '      - "[${EMPTY}]"',
        '      - ${UNSET:-${ALSO_UNSET:-${MCPD_STORE_DIR}}/state}',
        '      - $${NOT_EXPANDED} and $PLAIN',
        '      - ${SET:-ignored}',
      ],
    });
    const s = await servers(dir, { EMPTY: '', SET: 'set', MCPD_STORE_DIR: '/overridden?' });
    expect(s.get('s')?.cmd).toEqual(['fb', 'used-when-empty', '[]', `${dir}/state`, '${NOT_EXPANDED} and $PLAIN', 'set']);
  });

  it('reports every unset variable and malformed placeholder', async () => {
    const dir = await store({
      'profiles/default.yaml': [
        'servers:', //                                     1
        '  - name: s', //                                  2
        '    cmd: [a, "${ONE}-${TWO}"]', //                3
        '    env: { X: "${bad name}", Y: "${OPEN" }', //   4
      ],
    });
    const got = await issues(dir, {});
    expect(got.map((i) => [i.line, i.field, i.message])).toEqual([
      [3, 'servers[0].cmd[1]', 'environment variable "ONE" is not set'],
      [3, 'servers[0].cmd[1]', 'environment variable "TWO" is not set'],
      [4, 'servers[0].env.X', 'malformed placeholder "${bad name}"'],
      [4, 'servers[0].env.Y', 'a "${" is never closed with "}"'],
    ]);
  });
});

describe('${input:id} expansion', () => {
  const profile = [
    'inputs:',
    '  - { id: api-token, type: promptString, password: true }',
    '  - { id: region, type: pickString, options: [eu, us], default: eu }',
    '  - { id: greeting, type: promptString, default: hello }',
    'servers:',
    '  - name: s',
    '    cmd: [run, "${input:greeting}", "${input:region}"]',
    '    env: { TOKEN: "${input:api-token}" }',
    '    url: "http://x/?t=${input:api-token}"',
    '    transport: stdio',
  ];

  it('takes runtime.yaml inputValues, then MCPD_INPUT_<ID>, then the default', async () => {
    expect(inputEnvName('api-token')).toBe('MCPD_INPUT_API_TOKEN');
    const dir = await store({
      'profiles/default.yaml': profile,
      'runtime.yaml': ['inputValues:', '  api-token: from-runtime'],
    });
    const s = await servers(dir, { MCPD_INPUT_API_TOKEN: 'from-env', MCPD_INPUT_REGION: 'us' });
    expect(s.get('s')?.cmd).toEqual(['run', 'hello', 'us']);
    expect(s.get('s')?.env).toEqual({ TOKEN: 'from-runtime' });
    const s2 = await servers(await store({ 'profiles/default.yaml': profile }), { MCPD_INPUT_API_TOKEN: 'from-env' });
    expect(s2.get('s')?.env).toEqual({ TOKEN: 'from-env' });
    expect(s2.get('s')?.cmd).toEqual(['run', 'hello', 'eu']);
  });

  it('reports an input without a value, naming the input and the field', async () => {
    const dir = await store({ 'profiles/default.yaml': profile });
    const got = await issues(dir, {});
    expect(got.map((i) => [i.line, i.field, i.message])).toEqual([[8, 'servers[0].env.TOKEN', 'input "api-token" has no value']]);
    expect(got[0]?.hint).toContain('MCPD_INPUT_API_TOKEN');
  });

  it('rejects a pickString value outside its options, and unknown inputs', async () => {
    const dir = await store({
      'profiles/default.yaml': [...profile, '  - name: t', '    cmd: ["${input:nope}"]'],
      'runtime.yaml': ['inputValues: { api-token: x }'],
    });
    const got = await issues(dir, { MCPD_INPUT_REGION: 'mars' });
    expect(got.map((i) => [i.line, i.field, i.message])).toEqual([
      [7, 'servers[0].cmd[2]', 'input "region": value "mars" from environment variable MCPD_INPUT_REGION is not one of its options'],
      [12, 'servers[1].cmd[0]', 'unknown input "nope"'],
    ]);
    expect(got[0]?.hint).toBe('use one of: eu, us');
  });

  it('runs a command input once, with args as --key=value, and uses its trimmed stdout', async () => {
    const dir = await store({
      'print.js': ["require('fs').appendFileSync('runs.txt', 'x');", "console.log('  ' + process.argv.slice(2).join(' ') + '  ');"],
      'profiles/default.yaml': [
        'inputs:',
        '  - id: who',
        '    type: command',
        '    command: node print.js first',
        '    args: { user: ada, mode: "read only" }',
        'servers:',
        '  - name: s',
        '    cmd: [run, "${input:who}"]',
        '    env: { WHO: "${input:who}" }',
      ],
    });
    const s = await servers(dir, { PATH: process.env.PATH });
    expect(s.get('s')?.cmd).toEqual(['run', 'first --user=ada --mode=read only']);
    expect(s.get('s')?.env).toEqual({ WHO: 'first --user=ada --mode=read only' });
    expect(await readFile(join(dir, 'runs.txt'), 'utf8')).toBe('x');
  });

  it('reports a failing command input', async () => {
    const dir = await store({
      'profiles/default.yaml': [
        'inputs: [{ id: bad, type: command, command: "node -e process.exit(3)" }]',
        'servers: [{ name: s, cmd: ["${input:bad}"] }]',
      ],
    });
    const got = await issues(dir, { PATH: process.env.PATH });
    expect(got).toHaveLength(1);
    expect(got[0]).toMatchObject({ line: 2, field: 'servers[0].cmd[0]' });
    expect(got[0]?.message).toMatch(/^input "bad": command "node -e process.exit\(3\)" failed/);
  });
});

describe('redactSpec', () => {
  it('masks env and headers values and secrets expanded into cmd, cwd and url', async () => {
    const dir = await store({
      'profiles/default.yaml': [
        'inputs: [{ id: pw, type: promptString, password: true }, { id: open, type: promptString, default: visible }]',
        'servers:',
        '  - name: s',
        '    cmd: [run, "--pw=${input:pw}", "--key=${API_KEY}", "${input:open}"]',
        '    env: { A: plain, B: "${input:pw}" }',
        '    cwd: /tmp/${API_KEY}',
        '  - name: h',
        '    url: https://h/?k=${API_KEY}',
        '    headers: { X: "${input:open}" }',
      ],
      'runtime.yaml': ['inputValues: { pw: hunter2 }'],
    });
    const s = await servers(dir, { API_KEY: 'k-123456' });
    const r = redactSpec(s.get('s') as ServerSpec);
    expect(r.cmd).toEqual(['run', '--pw=***', '--key=***', 'visible']);
    expect(r.env).toEqual({ A: '***', B: '***' });
    expect(r.cwd).toBe('/tmp/***');
    const h = redactSpec(s.get('h') as ServerSpec);
    expect(h.url).toBe('https://h/?k=***');
    expect(h.headers).toEqual({ X: '***' });
    // The loaded spec itself is untouched.
    expect(s.get('s')?.env.B).toBe('hunter2');
    expect(JSON.stringify([r, h])).not.toMatch(/hunter2|k-123456/);
  });
});
