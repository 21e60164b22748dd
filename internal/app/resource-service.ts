import type { Paged, RequestOpts, ResourceEntry, ResourceSnapshot, ResourceTemplateEntry, ResourcesApi, Subscription } from '../domain/control-areas.js';
import { McpdError } from '../domain/errors.js';
import type { JsonObject } from '../domain/json.js';
import type { AreaDeps } from './area-deps.js';

/** Resources and resource templates per profile, reads routed by URI, shared downstream subscriptions. */
export class ResourceService implements ResourcesApi {
  constructor(private readonly deps: AreaDeps) {}

  list(_caller: string, _cursor?: string, _pageSize?: number): Promise<Paged<ResourceEntry>> {
    return Promise.reject(notYet('resources/list'));
  }
  listTemplates(_caller: string, _cursor?: string, _pageSize?: number): Promise<Paged<ResourceTemplateEntry>> {
    return Promise.reject(notYet('resources/templates/list'));
  }
  watch(_caller: string, _lastEtag?: string): Subscription<ResourceSnapshot> {
    throw notYet('WatchResources');
  }
  read(_caller: string, _uri: string, _opts: RequestOpts): Promise<JsonObject> {
    return Promise.reject(notYet('resources/read'));
  }
  subscribe(_caller: string, _uri: string, _signal: AbortSignal): Promise<Subscription<JsonObject>> {
    return Promise.reject(notYet('resources/subscribe'));
  }
}

export function notYet(what: string): McpdError {
  return new McpdError('UNIMPLEMENTED', `${what} is not implemented by this core yet`);
}
