import { describe, expect, it } from 'vitest';
import { formatIssue } from '../shared/errors.js';
import { secretRedactor } from '../shared/redactor.js';
import type { ServerSpec } from '../contract/model/spec.js';
import { loadStore, redactSpec, useStoreSecrets } from './index.js';
import { store } from '../../test/support/catalog-store.js';

describe('only secrets are masked', () => {
  it('${HOME} and a variable whose value is "info" mask nothing; variables named like secrets, password inputs and headers do', async () => {
    const dir = await store({
      'profiles/default.yaml': [
        'inputs: [{ id: pw, type: promptString, password: true }]',
        'servers:',
        '  - name: s',
        '    cmd: [run, "${HOME}/Documents", "--level=${LOG_LEVEL}", "--token=${GITHUB_TOKEN}", "--pw=${input:pw}"]',
        '    env: { LEVEL: "${LOG_LEVEL}", FORMAT: structured-output, API_KEY: literal-key-1234 }',
        '    cwd: ${HOME}/work',
        '  - name: h',
        '    url: https://h/mcp',
        '    headers: { X-Custom: "${PLAIN_HEADER}" }',
      ],
      'runtime.yaml': ['inputValues: { pw: hunter22 }'],
    });
    const r = await loadStore(dir, {
      env: { HOME: '/home/ann', LOG_LEVEL: 'info', GITHUB_TOKEN: 'ghp_abc123', PLAIN_HEADER: 'header-value-99' },
    });
    if (!r.ok) throw new Error(r.issues.map(formatIssue).join('\n'));
    const specs = new Map((r.store.profiles.get('default')?.servers ?? []).map((s) => [s.name, s]));
    const s = redactSpec(specs.get('s') as ServerSpec);
    expect(s.cmd).toEqual(['run', '/home/ann/Documents', '--level=info', '--token=***', '--pw=***']);
    expect(s.cwd).toBe('/home/ann/work');

    useStoreSecrets(r.store);
    try {
      const line = '{"level":"info","msg":"wrote /home/ann/Documents/a.txt as structured-output"}';
      expect(secretRedactor.text(line)).toBe(line);
      expect(secretRedactor.text('token ghp_abc123, pw hunter22, key literal-key-1234, header header-value-99')).toBe(
        'token ***, pw ***, key ***, header ***',
      );
    } finally {
      secretRedactor.use([]);
    }
  });
});
