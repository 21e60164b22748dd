import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Metadata } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectStream, createControlClient } from '../../internal/contract/grpc/control-client.js';
import { LOGS_FOLLOW_METADATA } from '../../internal/contract/areas/logs.js';
import { TestWorld } from '../support/core-process.js';
import { MCPDCTL } from '../support/paths.js';
import { echoServer } from '../support/profiles.js';

const CMD_SECRET = 'cmdsecret-7781';
const PW_SECRET = 'pwsecret-5521';
const VAR_SECRET = 'varsecret-3390';
const SECRETS = [CMD_SECRET, PW_SECRET, VAR_SECRET];

const leaks = (text: string) => SECRETS.filter((s) => text.includes(s));

describe('secret values never leave the core', () => {
  let world: TestWorld;
  beforeAll(async () => {
    process.env.MCPD_SEC_TOKEN = VAR_SECRET;
    world = new TestWorld({
      'runtime.yaml': `metricsAddress: 127.0.0.1:0\ninputValues:\n  pw: ${PW_SECRET}\n`,
      'profiles/default.yaml': [
        'inputs:',
        '  - id: cmdtok',
        '    type: command',
        `    command: printf ${CMD_SECRET}`,
        '  - id: pw',
        '    type: promptString',
        '    password: true',
        'servers:',
        echoServer('fx', { idleSeconds: 300 }, { CMD_TOKEN: '${input:cmdtok}', PW: '${input:pw}', VAR: '${MCPD_SEC_TOKEN}' }).trimEnd(),
        `    cwd: /tmp`,
        '  - name: web',
        `    url: http://user:\${input:pw}@127.0.0.1:9/mcp?k=\${input:cmdtok}&v=\${MCPD_SEC_TOKEN}`,
        '',
      ].join('\n'),
      'callers.yaml': 'callers: {}\n',
    });
    await world.startCore();
  });
  afterAll(async () => {
    delete process.env.MCPD_SEC_TOKEN;
    await world.cleanup();
  });

  it('redacts them from status, errors, the core log, StreamLogs and server stderr', async () => {
    const client = await world.gateway('alice');
    // A server prints its secrets on stderr (as a crashing server prints its argv).
    await client.callTool({ name: 'fx__stderr', arguments: { line: `--pw=${PW_SECRET} --cmd=${CMD_SECRET} --var=${VAR_SECRET}` } });
    // The HTTP server's URL carries credentials: connecting fails, and the error names the URL.
    const listed = await client.listTools();
    const errors: string[] = [];
    for (const name of ['web__anything', 'fx__crash']) {
      await client.callTool({ name, arguments: {} }).then(
        (r) => errors.push(JSON.stringify(r)),
        (e: unknown) => errors.push(String(e)),
      );
    }
    const ctl = promisify(execFile);
    let status = '';
    status = (await ctl(process.execPath, [MCPDCTL, '--socket', world.socket, '--json', 'status'], { env: world.env() })).stdout;
    const control = createControlClient(world.socket);
    const logs: string[] = [];
    try {
      const md = new Metadata();
      md.set(LOGS_FOLLOW_METADATA, 'false');
      await collectStream(control.streamLogs({ caller: 'alice', minLevel: 'debug' }, md), (e) =>
        logs.push(`${e.event} ${e.message} ${Buffer.from(e.fieldsJson).toString('utf8')}`),
      );
    } finally {
      control.close();
    }
    // The core writes info lines in batches (stderr-lines.ts): the echoed stderr line may still be on its way.
    await world.waitForLogLine('the masked stderr line', /--pw=\*\*\*/);
    const coreLog = world.coreLog.join('');
    // The outputs say something: the stderr line and the failure are there, masked.
    expect(logs.join('\n')).toContain('--pw=***');
    expect(coreLog).toContain('--pw=***');
    expect(JSON.stringify(listed)).toContain('fx__stderr');
    expect({
      status: leaks(status),
      errors: leaks(errors.join('\n')),
      streamLogs: leaks(logs.join('\n')),
      coreLog: leaks(coreLog),
    }).toEqual({ status: [], errors: [], streamLogs: [], coreLog: [] });
  });
});
