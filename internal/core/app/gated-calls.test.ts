import { describe, expect, it } from 'vitest';
import type { PromptsApi, RequestOpts, ResourcesApi } from '../../contract/control/control-areas.js';
import type { JsonObject } from '../../shared/json.js';
import { CallGate } from './call-gate.js';
import { gatedPrompts, gatedResources } from './gated-calls.js';

/** Area services whose calls record what reached them and answer when the test says so. */
function services() {
  const reached: string[] = [];
  const held: { release(): void; signal?: AbortSignal }[] = [];
  const call = (what: string, opts: RequestOpts): Promise<JsonObject> => {
    reached.push(what);
    return new Promise((resolve, reject) => {
      held.push({ release: () => resolve({ what }), signal: opts.signal });
      opts.signal?.addEventListener('abort', () => reject(new Error('aborted below')), { once: true });
    });
  };
  const page = { etag: 'e', items: [] };
  const resources = {
    list: () => (reached.push('list'), Promise.resolve(page)),
    listTemplates: () => Promise.resolve(page),
    watch: () => undefined as never,
    read: (_c: string, uri: string, o: RequestOpts) => call(`read ${uri}`, o),
    subscribe: () => undefined as never,
    channels: () => Promise.resolve({ desktop: false, finder: false }),
  } as ResourcesApi;
  const prompts = {
    list: () => (reached.push('prompts list'), Promise.resolve(page)),
    watch: () => undefined as never,
    get: (_c: string, name: string, _a: JsonObject, o: RequestOpts) => call(`get ${name}`, o),
    complete: (_c: string, _p: JsonObject, o: RequestOpts) => call('complete', o),
  } as PromptsApi;
  return { resources, prompts, reached, held };
}

describe('the core gates reads, prompts and completions itself', () => {
  it('refuses each new one during a stop with the gate error, lets one in flight finish, and keeps lists open', async () => {
    const gate = new CallGate(() => 'core X is stopping');
    const s = services();
    const resources = gatedResources(s.resources, gate);
    const prompts = gatedPrompts(s.prompts, gate);
    const inFlight = resources.read('alice', 'x://a', {});
    expect(gate.inFlight).toBe(1);
    gate.close(60_000);

    const refused = {
      'resources/read': resources.read('alice', 'x://b', {}),
      'prompts/get': prompts.get('alice', 'p', {}, {}),
      'completion/complete': prompts.complete('alice', {}, {}),
    };
    for (const [method, p] of Object.entries(refused))
      await expect(p, method).rejects.toThrow(new RegExp(`^core X is stopping: new calls are refused \\(${method.replace('/', '\\/')}\\)`));
    expect(s.reached).toEqual(['read x://a']);

    // Not calls: still answered while the core drains.
    await expect(resources.list('alice')).resolves.toEqual({ etag: 'e', items: [] });
    await expect(prompts.list('alice')).resolves.toEqual({ etag: 'e', items: [] });

    const drained = gate.drain();
    s.held[0]!.release();
    await expect(inFlight).resolves.toEqual({ what: 'read x://a' });
    await expect(drained).resolves.toEqual({ cancelled: 0 });
  });

  it('cuts a read off at the end of the grace period through the signal the service got', async () => {
    const gate = new CallGate(() => 'core X is stopping');
    const s = services();
    const read = gatedResources(s.resources, gate).read('alice', 'x://slow', {});
    read.catch(() => {}); // asserted below
    gate.close(0);
    const drained = gate.drain(10_000);
    await expect(read).rejects.toThrow(/did not finish within the shutdown grace period/);
    expect(s.held[0]!.signal?.aborted).toBe(true);
    await expect(drained).resolves.toEqual({ cancelled: 1 });
  });
});
