import type { JsonObject } from '../../shared/json.js';
import { isJsonObject } from '../../shared/json.js';
import type { ReplyChannel } from './channel.js';
import type { LanePool } from './lanes.js';
import { META_SUBSCRIPTION_ID } from './protocol.js';

/** Which filter flag lets which notification through, and the list request that arms it. */
const LIST_FLAGS: [flag: string, notification: string, list: string][] = [
  ['toolsListChanged', 'notifications/tools/list_changed', 'tools/list'],
  ['promptsListChanged', 'notifications/prompts/list_changed', 'prompts/list'],
  ['resourcesListChanged', 'notifications/resources/list_changed', 'resources/list'],
];

export interface ListenOptions {
  /** Who listens (the listen caps count per client). */
  client: string;
  /** Aborted when the client leaves before the stream is acknowledged (it then never takes a lane). */
  signal: AbortSignal;
  log: (m: string) => void;
}

/**
 * `subscriptions/listen`: a stream that holds a lane of its own (an SSE answer over HTTP; lines on stdout
 * over stdio, where the request is never answered while it listens). The lane lists what the filter asks
 * for (the gateway forwards a list_changed only for a list it gave out) and subscribes the resource URIs on
 * the core's watches; then the acknowledgement goes first, and every notification the filter allows
 * follows, tagged with the subscription id (the listen request's id). The client ends it by leaving
 * (HTTP) or by `notifications/cancelled` for that id (stdio).
 */
export async function serveListen(lanes: LanePool, reply: ReplyChannel, params: JsonObject, o: ListenOptions): Promise<void> {
  const filter = isJsonObject(params.notifications) ? params.notifications : {};
  const lane = await lanes.acquireListen(o.client, o.signal);
  const allowed = new Set<string>();
  const honored: JsonObject = {};
  try {
    for (const [flag, notification, list] of LIST_FLAGS) {
      if (filter[flag] !== true) continue;
      const r = await lane.transport.request(list, {}).response;
      if (r.error) continue;
      allowed.add(notification);
      honored[flag] = true;
    }
    const uris = Array.isArray(filter.resourceSubscriptions)
      ? filter.resourceSubscriptions.filter((u): u is string => typeof u === 'string')
      : [];
    const subscribed: string[] = [];
    for (const uri of uris) {
      const r = await lane.transport.request('resources/subscribe', { uri }).response;
      if (!r.error) subscribed.push(uri);
    }
    if (subscribed.length > 0) {
      allowed.add('notifications/resources/updated');
      honored.resourceSubscriptions = subscribed;
    }
  } catch (e) {
    lanes.discard(lane);
    throw e;
  }
  if (o.signal.aborted) {
    // The client left while the stream was being set up: nothing will end it later.
    lanes.discard(lane);
    return;
  }
  const tag = { [META_SUBSCRIPTION_ID]: reply.id };
  const send = (method: string, p: JsonObject) =>
    reply.notify(method, { ...p, _meta: { ...(isJsonObject(p._meta) ? p._meta : {}), ...tag } });
  send('notifications/subscriptions/acknowledged', { notifications: honored });
  lane.transport.onUnrelated = (method, p) => {
    if (!allowed.has(method)) return;
    if (method === 'notifications/resources/updated' && !(honored.resourceSubscriptions as string[]).includes(String(p.uri))) return;
    send(method, p);
  };
  reply.onAbandon(() => {
    lane.transport.onUnrelated = undefined;
    o.log(`subscriptions/listen ${String(reply.id)} closed`);
    // Its subscriptions and armed lists belong to this stream: the lane goes with it.
    lanes.discard(lane);
  });
}
