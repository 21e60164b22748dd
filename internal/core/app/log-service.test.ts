import { describe, expect, it } from 'vitest';
import type { LogRecord } from '../../contract/control/control-areas.js';
import { specFingerprint } from '../../contract/model/fingerprint.js';
import type { JsonObject } from '../../shared/json.js';
import { DEFAULT_NAMESPACE, type Profile } from '../../contract/model/profile.js';
import { SPEC_DEFAULTS, type ServerSpec } from '../../contract/model/spec.js';
import { LogBus } from '../infra/telemetry/log-bus.js';
import { tapLog } from '../infra/telemetry/log-tap.js';
import { toMcpMessage } from '../../contract/areas/log-mcp.js';
import type { AreaDeps } from './area-deps.js';
import { stderrLevel } from './log-records.js';
import { LogService } from './log-service.js';
import { must } from '../../shared/must.js';

const spec = (name: string, arg: string): ServerSpec => ({
  ...SPEC_DEFAULTS,
  name,
  transport: 'stdio',
  cmd: ['node', arg],
  env: {},
  headers: {},
  disabled: false,
  forbiddenTools: [],
  toolMeta: {},
});
const profile = (name: string, servers: ServerSpec[]): Profile => ({
  name,
  file: `/x/profiles/${name}.yaml`,
  servers,
  inputs: [],
  namespace: DEFAULT_NAMESPACE,
});

// Two profiles share the "shared" spec under different names; "secret" belongs to profile B only.
const shared = spec('files', 'shared.js');
const secret = spec('secret', 'secret.js');
const A = profile('a', [shared]);
const B = profile('b', [{ ...shared, name: 'docs' }, secret]);
const FP_SHARED = specFingerprint(shared);
const FP_SECRET = specFingerprint(secret);

function setup() {
  const stderr: ((fp: string, inst: string, line: string) => void)[] = [];
  const notes: ((fp: string, inst: string, method: string, params: JsonObject) => void)[] = [];
  const echoed: string[] = [];
  const bus = new LogBus();
  const deps = {
    pools: { onStderr: (cb: (typeof stderr)[0]) => stderr.push(cb), onNotification: (cb: (typeof notes)[0]) => notes.push(cb) },
    profileOf: (caller: string) => (caller === 'alice' ? A : B),
    log: () => {},
  } as unknown as AreaDeps;
  const svc = new LogService(deps, { bus, echo: (level, event) => echoed.push(`${level} ${event}`) });
  const coreLog = tapLog(() => {}, bus);
  return {
    svc,
    coreLog,
    echoed,
    stderr: (fp: string, line: string) => stderr.forEach((cb) => cb(fp, 'inst-1', line)),
    notify: (fp: string, method: string, params: JsonObject) => notes.forEach((cb) => cb(fp, 'inst-1', method, params)),
  };
}

const brief = (rs: LogRecord[]) => rs.map((r) => `${r.source}:${r.server ?? '-'}:${r.level}:${r.message}`);

describe('LogService', () => {
  it('scopes entries to the servers of the caller profile and names them as that profile does', () => {
    const w = setup();
    w.stderr(FP_SHARED, 'from shared');
    w.stderr(FP_SECRET, 'from secret');
    w.stderr('unknown-fp', 'from nobody');
    expect(brief(w.svc.recent('alice', 'debug'))).toEqual(['stderr:files:info:from shared']);
    expect(brief(w.svc.recent('bob', 'debug'))).toEqual(['stderr:docs:info:from shared', 'stderr:secret:info:from secret']);
    expect(w.echoed).toEqual(['info server.stderr', 'info server.stderr', 'info server.stderr']);
  });

  it('delivers core events about own servers, about oneself, and global ones; not other callers or servers', () => {
    const w = setup();
    w.coreLog('warning', 'instance.crash', { fingerprint: FP_SECRET, instance: 'secret-1', message: 'secret died' });
    w.coreLog('info', 'caller attached', { caller: 'bob' });
    w.coreLog('info', 'caller attached', { caller: 'alice' });
    w.coreLog('info', 'configuration applied', {});
    w.coreLog('error', 'instance.start_failed', { fingerprint: FP_SHARED, message: 'cannot start' });
    expect(w.svc.recent('alice', 'info').map((r) => `${r.event}:${r.server ?? '-'}`)).toEqual([
      'caller attached:-',
      'configuration applied:-',
      'instance.start_failed:files',
    ]);
    expect(w.svc.recent('bob', 'warning').map((r) => `${r.event}:${r.server ?? '-'}`)).toEqual([
      'instance.crash:secret',
      'instance.start_failed:docs',
    ]);
  });

  it("shows a caller only its own profile's warnings; callers.yaml's and runtime.yaml's go to everyone", () => {
    const w = setup();
    w.coreLog('warning', 'server left out until its value is set', { issue: 'b needs TOKEN', storeFile: B.file });
    w.coreLog('warning', 'config warning', { issue: 'a has an odd key', storeFile: A.file });
    w.coreLog('warning', 'config warning', { issue: 'callers.yaml note', storeFile: '/x/callers.yaml' });
    const seen = (caller: string) => w.svc.recent(caller, 'warning').map((r) => String(r.fields?.issue));
    expect(seen('alice')).toEqual(['a has an odd key', 'callers.yaml note']);
    expect(seen('bob')).toEqual(['b needs TOKEN', 'callers.yaml note']);
  });

  it('maps downstream notifications/message (level, logger, data) and ignores other notifications', () => {
    const w = setup();
    w.notify(FP_SHARED, 'notifications/message', { level: 'error', logger: 'db', data: { code: 7 } });
    w.notify(FP_SHARED, 'notifications/message', { level: 'bogus', data: 'plain' });
    w.notify(FP_SHARED, 'notifications/progress', { progress: 1 });
    const rs = w.svc.recent('alice', 'debug');
    expect(brief(rs)).toEqual(['notification:files:error:{"code":7}', 'notification:files:info:plain']);
    expect(toMcpMessage(must(rs[0], 'record 0'))).toEqual({ level: 'error', logger: 'files/db', data: { code: 7 } });
    expect(toMcpMessage(must(rs[1], 'record 1'))).toEqual({ level: 'info', logger: 'files', data: 'plain' });
  });

  it('streams live entries at or above the level, following a caller moved to another profile', async () => {
    const w = setup();
    const ac = new AbortController();
    const it = w.svc.stream('alice', 'warning', ac.signal);
    w.stderr(FP_SHARED, 'just info');
    w.stderr(FP_SHARED, 'ERROR: disk full');
    w.stderr(FP_SECRET, 'Error: not yours');
    const first = await it.next();
    expect(first.value).toMatchObject({
      source: 'stderr',
      server: 'files',
      level: 'error',
      message: 'ERROR: disk full',
      instance: 'inst-1',
    });
    ac.abort();
    expect((await it.next()).done).toBe(true);
    expect(w.svc.subscriberCount).toBe(0);
  });
});

describe('stderrLevel', () => {
  it('guesses from JSON level fields and leading level words, else info', () => {
    expect(stderrLevel('{"level":"warn","msg":"x"}')).toBe('warning');
    expect(stderrLevel('{"level":50,"msg":"x"}')).toBe('error');
    expect(stderrLevel('[DEBUG] starting')).toBe('debug');
    expect(stderrLevel('WARNING:root:careful')).toBe('warning');
    expect(stderrLevel('Error: ENOENT')).toBe('error');
    expect(stderrLevel('fixture: ready pid=1')).toBe('info');
    expect(stderrLevel('Debugger attached.')).toBe('info');
  });
});
