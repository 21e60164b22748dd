import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { LogRecord } from '../../../contract/control/control-areas.js';
import type { ControlApi } from '../../../contract/control/control.js';
import type { JsonObject } from '../../../shared/json.js';
import { LogBus } from './log-bus.js';
import { levelRank } from '../../../contract/model/log-level.js';
import type { SessionRequestContext } from '../../../contract/session/session-handler.js';
import { forwardingSessions, logsArea } from '../../../contract/areas/logs.js';
import { must } from '../../../shared/must.js';

describe('logging/setLevel on the Session', () => {
  it('forwards at the latest level only, as MCP notifications/message, and stops when the session ends', async () => {
    const bus = new LogBus();
    const api = {
      logs: {
        stream: (_caller: string, min: LogRecord['level'], signal: AbortSignal) =>
          bus.subscribe((e) => (levelRank(e.record.level) >= levelRank(min) ? e.record : undefined), { signal }),
      },
    } as unknown as ControlApi;
    const sent: JsonObject[] = [];
    const closers: (() => void)[] = [];
    // The forwarding sessions are the process's: counted from what other tests of this worker left.
    const before = forwardingSessions();
    const ctx = {
      session: { id: `s-${randomUUID()}`, caller: 'alice', profile: 'default' },
      notify: (_m: string, p: JsonObject) => sent.push(p),
      onClose: (cb: () => void) => closers.push(cb),
    } as unknown as SessionRequestContext;
    const own = logsArea.methods.find((m) => m.name === 'logging/setLevel')!.session;
    if (!('handle' in own)) throw new Error('logging/setLevel keeps per-session state: it has its own Session handler');
    const setLevel = own.handle;
    await expect(setLevel(api, { level: 'loud' }, ctx)).rejects.toThrow(/unknown log level "loud"/);
    await setLevel(api, { level: 'error' }, ctx);
    await setLevel(api, { level: 'info' }, ctx);
    expect(forwardingSessions()).toBe(before + 1);
    expect(closers).toHaveLength(1);
    expect(bus.subscriberCount).toBe(1); // the error-level reader is gone, not kept beside the new one
    bus.publish({ record: { time: 1, level: 'info', source: 'stderr', server: 'echo', event: 'server.stderr', message: 'hi' } });
    bus.publish({ record: { time: 2, level: 'error', source: 'stderr', server: 'echo', event: 'server.stderr', message: 'bad' } });
    for (let i = 0; i < 1000 && sent.length < 2; i++) await new Promise((r) => setImmediate(r));
    // Each once, in order: the error-level loop was replaced, not kept beside the new one.
    expect(sent).toEqual([
      { level: 'info', logger: 'echo', data: 'hi' },
      { level: 'error', logger: 'echo', data: 'bad' },
    ]);
    must(closers[0], 'the close callback')();
    expect(forwardingSessions()).toBe(before);
    expect(bus.subscriberCount).toBe(0);
  });
});
