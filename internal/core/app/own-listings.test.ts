import { describe, expect, it } from 'vitest';
import { CallerHistories } from '../domain/history/tool-call-history.js';
import type { JsonObject } from '../../shared/json.js';
import { DEFAULT_NAMESPACE, DEFAULT_RUNTIME, type ProfileStore } from '../../contract/model/profile.js';
import type { AreaDeps } from './area-deps.js';
import { ListingBudget } from './listing-budget.js';
import { spec } from '../../../test/support/context-fake-pools.js';
import type { PoolPort } from './pool-port.js';
import { PromptService } from './prompt-service.js';
import { ResourceService } from './resource-service.js';

// The prompt and resource listings the core makes for its metadata cache are not a caller's calls: a
// server's sampling / elicitation / roots request that arrives while one runs must still be traced to the
// one caller whose call is in flight (else it is refused as ambiguous, decision 20).

function deps(seen: [string, JsonObject][]): AreaDeps {
  const pools = {
    capabilities: () => ({ resources: {}, prompts: {} }),
    request: async (_fp: string, method: string, _params: JsonObject, opts: JsonObject) => {
      seen.push([method, opts]);
      if (method === 'resources/list') return { resources: [{ uri: 'r://a', name: 'a' }] };
      if (method === 'resources/templates/list') return { resourceTemplates: [] };
      if (method === 'prompts/list') return { prompts: [{ name: 'p' }] };
      throw new Error(`unexpected ${method}`);
    },
    onNotification: () => {},
  } as unknown as PoolPort;
  const profile = { name: 'default', file: 'default.yaml', servers: [spec('one')], inputs: [], namespace: DEFAULT_NAMESPACE };
  const store: ProfileStore = { dir: '/x', profiles: new Map([['default', profile]]), callers: new Map(), runtime: DEFAULT_RUNTIME };
  return {
    pools,
    store: { current: store } as unknown as AreaDeps['store'],
    tools: undefined as unknown as AreaDeps['tools'],
    listingBudget: new ListingBudget(() => DEFAULT_RUNTIME.listingBudgetSeconds * 1000),
    history: new CallerHistories(),
    profileOf: () => profile,
    log: () => {},
  };
}

describe("the core's own listings", () => {
  it('prompts/list is sent as a listing for the cache', async () => {
    const seen: [string, JsonObject][] = [];
    const svc = new PromptService(deps(seen));
    expect((await svc.list('me')).items.map((p) => p.name)).toEqual(['one__p']);
    expect(seen).toEqual([['prompts/list', { forCache: true }]]);
  });

  it('resources/list and resources/templates/list likewise', async () => {
    const seen: [string, JsonObject][] = [];
    const svc = new ResourceService(deps(seen));
    expect((await svc.list('me')).items.map((r) => r.uri)).toEqual(['r://a']);
    expect(seen.map(([m, o]) => [m, o.forCache])).toEqual([
      ['resources/list', true],
      ['resources/templates/list', true],
    ]);
  });
});
