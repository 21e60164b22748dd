import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CallDone, StartedCall } from '../../../contract/model/downstream.js';
import type { AuditEntry } from '../../../contract/audit/audit-entry.js';
import { argsDigestOf } from '../../../contract/audit/audit-chain.js';
import { verifyAudit } from '../../../contract/audit/audit-verify.js';
import { McpdError } from '../../../shared/errors.js';
import type { JsonObject } from '../../../shared/json.js';
import { AuditWriter } from '../../infra/audit/audit-writer.js';
import type { Core } from '../core.js';
import { auditInterceptor } from './audit.js';
import { CoreDoor } from './door.js';
import type { Interceptor } from './interceptor.js';

/** Use cases that answer at once: a tool named "fail" throws, one named "bad" answers with an error result. */
function answeringCore(): Core {
  const core = {
    toolCall: (_c: string, name: string, _a: unknown, _o: unknown, _n: unknown, done: CallDone): StartedCall => {
      if (name === 'fx__fail') done.error(new McpdError('DOWNSTREAM_ERROR', 'the server fell over'));
      else done.result(name === 'fx__bad' ? { isError: true, content: [] } : { content: [{ type: 'text', text: 'fine' }] });
      return { cancel: () => {} };
    },
    listTools: async () => ({ etag: 'e', tools: [{ name: 'fx__echo' }], collisions: [] }),
    resources: { read: async () => ({ contents: [] }), subscribe: async () => (async function* () {})() },
    prompts: { get: async () => ({ messages: [] }) },
    context: {},
  };
  return core as unknown as Core;
}

/** The policy helper's contract: a refusal is an McpdError whose data names the rule (and a quota's retry time). */
const policy: Interceptor = {
  name: 'policy',
  enter(call) {
    if (call.target === 'fx__secret')
      return new McpdError('FAILED_PRECONDITION', 'denied by rule no-secret', { data: { policyRule: 'no-secret' } });
    if (call.target === 'fx__busy')
      return new McpdError('FAILED_PRECONDITION', 'quota of rule ten-a-minute spent', {
        data: { policyRule: 'ten-a-minute', retryAfterMs: 4200 },
      });
    if (call.method === 'tools/list' && call.caller === 'mallory') return new Error('mallory may list nothing');
    return undefined;
  },
};

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function world(args = false) {
  const dir = mkdtempSync(join(tmpdir(), 'audit-door-'));
  dirs.push(dir);
  const writer = new AuditWriter({ file: join(dir, 'audit.jsonl'), arguments: args, maxBytes: 1 << 20, keep: 3 });
  const door = new CoreDoor(answeringCore(), [auditInterceptor(writer), policy]);
  const entries = async (): Promise<AuditEntry[]> => {
    await writer.close();
    return readFileSync(writer.file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as AuditEntry);
  };
  return { writer, door, entries };
}

const call = (api: ReturnType<CoreDoor['for']>, caller: string, name: string, args: JsonObject = {}) =>
  api.callTool(caller, name, args, { client: 'vscode' }).catch((e: Error) => e);

describe('the audit interceptor', () => {
  it('writes one chained line per handled call and refusal, lists left out, with outcome, rule and digest', async () => {
    const { door, entries, writer } = world();
    const api = door.for('session');
    await call(api, 'alice', 'fx__echo', { message: 'hello' });
    await call(api, 'alice', 'fx__bad');
    await call(api, 'alice', 'fx__fail');
    await call(api, 'alice', 'fx__secret', { message: 'psst' });
    await call(api, 'bob', 'fx__busy');
    await api.listTools('alice');
    await expect(door.for('grpc').listTools('mallory')).rejects.toThrow(/mallory may list nothing/);
    await door.for('dashboard').resources.read('alice', 'file:///x', {});
    await door.for('smcp').prompts.get('alice', 'greet', { name: 'A' }, {});
    const stop = new AbortController();
    await door.for('grpc').resources.subscribe('alice', 'file:///x', stop.signal);
    stop.abort();
    const lines = await entries();
    expect(lines.map((e) => (e.kind === 'call' ? `${e.face} ${e.caller} ${e.method} ${e.target} ${e.outcome}` : e.kind))).toEqual([
      'session alice tools/call fx__echo ok',
      'session alice tools/call fx__bad error',
      'session alice tools/call fx__fail error',
      'session alice tools/call fx__secret denied',
      'session bob tools/call fx__busy denied',
      'grpc mallory tools/list null denied',
      'dashboard alice resources/read file:///x ok',
      'smcp alice prompts/get greet ok',
      'grpc alice resources/subscribe file:///x ok',
      'grpc alice resources/unsubscribe file:///x ok',
    ]);
    expect(lines[0]).toMatchObject({
      client: 'vscode',
      argsDigest: argsDigestOf({ message: 'hello' }),
      seq: 1,
      durationMs: expect.any(Number),
    });
    expect(lines[0]).not.toHaveProperty('args');
    expect(JSON.stringify(lines)).not.toContain('hello');
    expect(lines[1]).toMatchObject({ outcome: 'error', message: 'the tool answered with an error result (isError)' });
    expect(lines[2]).toMatchObject({ outcome: 'error', message: 'the server fell over' });
    expect(lines[3]).toMatchObject({ outcome: 'denied', rule: 'no-secret', message: 'denied by rule no-secret' });
    expect(lines[4]).toMatchObject({ outcome: 'denied', rule: 'ten-a-minute', retryAfterMs: 4200 });
    expect(lines[5]).toMatchObject({ outcome: 'denied', message: 'mallory may list nothing', argsDigest: null });
    expect(lines[5]).not.toHaveProperty('rule');
    for (let i = 1; i < lines.length; i++) expect(lines[i]?.prev).toBe(lines[i - 1]?.hash);
    expect(verifyAudit(writer.file)).toMatchObject({ ok: true, entries: 10, files: 1, anchor: { seq: 10 } });
  });

  it('writes the arguments in clear only with audit.arguments: true', async () => {
    const { door, entries } = world(true);
    await call(door.for('grpc'), 'alice', 'fx__echo', { message: 'hello' });
    expect((await entries())[0]).toMatchObject({ args: { message: 'hello' }, argsDigest: argsDigestOf({ message: 'hello' }) });
  });
});
