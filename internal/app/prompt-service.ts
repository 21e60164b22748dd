import type { Paged, PromptEntry, PromptSnapshot, PromptsApi, RequestOpts, Subscription } from '../domain/control-areas.js';
import type { JsonObject } from '../domain/json.js';
import type { AreaDeps } from './area-deps.js';
import { notYet } from './resource-service.js';

/** Prompts per profile, namespaced like tools; prompt get and completion routed to the owner. */
export class PromptService implements PromptsApi {
  constructor(private readonly deps: AreaDeps) {}

  list(_caller: string, _cursor?: string, _pageSize?: number): Promise<Paged<PromptEntry>> {
    return Promise.reject(notYet('prompts/list'));
  }
  watch(_caller: string, _lastEtag?: string): Subscription<PromptSnapshot> {
    throw notYet('WatchPrompts');
  }
  get(_caller: string, _name: string, _args: JsonObject, _opts: RequestOpts): Promise<JsonObject> {
    return Promise.reject(notYet('prompts/get'));
  }
  complete(_caller: string, _params: JsonObject, _opts: RequestOpts): Promise<JsonObject> {
    return Promise.reject(notYet('completion/complete'));
  }
}
