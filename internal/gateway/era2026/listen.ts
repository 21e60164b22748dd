import { TASK_NOTIFICATION } from '../../contract/model/tasks.js';
import type { JsonObject } from '../../shared/json.js';
import { isJsonObject } from '../../shared/json.js';
import type { ReplyChannel } from './channel.js';
import type { LanePool } from './lanes.js';
import { EraError, INVALID_PARAMS, META_SUBSCRIPTION_ID, type RequestEnvelope } from './protocol.js';
import { requireTasks, watchTasks } from './tasks.js';

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
  /** The listen request's envelope: `taskIds` need the tasks extension declared in it. */
  envelope: RequestEnvelope;
}

/** The filter's `taskIds` (SEP-2663), undefined when it names none. */
function taskIdsOf(filter: JsonObject): string[] | undefined {
  const ids = filter.taskIds;
  if (ids === undefined) return undefined;
  if (Array.isArray(ids) && ids.every((id) => typeof id === 'string')) return ids as string[];
  throw new EraError(400, INVALID_PARAMS, 'subscriptions/listen: notifications.taskIds must be an array of task ids (strings)');
}

/**
 * `subscriptions/listen`: a stream that holds a lane of its own (an SSE answer over HTTP; lines on stdout
 * over stdio, where the request is never answered while it listens). The lane lists what the filter asks
 * for (the gateway forwards a list_changed only for a list it gave out) and subscribes the resource URIs on
 * the core's watches, and has the core push the changes of the caller's tasks among `taskIds` (SEP-2663:
 * `notifications/tasks`, each task's present state first; another caller's id is not honoured); then the
 * acknowledgement goes first, and every notification the filter allows follows, tagged with the
 * subscription id (the listen request's id). The client ends it by leaving (HTTP) or by
 * `notifications/cancelled` for that id (stdio).
 */
export async function serveListen(lanes: LanePool, reply: ReplyChannel, params: JsonObject, o: ListenOptions): Promise<void> {
  const filter = isJsonObject(params.notifications) ? params.notifications : {};
  const taskIds = taskIdsOf(filter);
  if (taskIds !== undefined) requireTasks(o.envelope, 'subscriptions/listen with notifications.taskIds');
  const lane = await lanes.acquireListen(o.client, o.signal);
  const allowed = new Set<string>();
  const honored: JsonObject = {};
  // A watched task's present state comes while the stream is set up: it follows the acknowledgement.
  const early: [string, JsonObject][] = [];
  lane.transport.onUnrelated = (method, p) => void (method === TASK_NOTIFICATION && early.push([method, p]));
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
    if (taskIds !== undefined) {
      honored.taskIds = await watchTasks(lane, taskIds);
      allowed.add(TASK_NOTIFICATION);
    }
  } catch (e) {
    lane.transport.onUnrelated = undefined;
    lanes.discard(lane);
    throw e;
  }
  if (o.signal.aborted) {
    // The client left while the stream was being set up: nothing will end it later.
    lane.transport.onUnrelated = undefined;
    lanes.discard(lane);
    return;
  }
  const tag = { [META_SUBSCRIPTION_ID]: reply.id };
  const send = (method: string, p: JsonObject) =>
    reply.notify(method, { ...p, _meta: { ...(isJsonObject(p._meta) ? p._meta : {}), ...tag } });
  send('notifications/subscriptions/acknowledged', { notifications: honored });
  const deliver = (method: string, p: JsonObject) => {
    if (!allowed.has(method)) return;
    if (method === 'notifications/resources/updated' && !(honored.resourceSubscriptions as string[]).includes(String(p.uri))) return;
    if (method === TASK_NOTIFICATION && !(honored.taskIds as string[]).includes(String(p.taskId))) return;
    send(method, p);
  };
  lane.transport.onUnrelated = deliver;
  for (const [method, p] of early) deliver(method, p);
  reply.onAbandon(() => {
    lane.transport.onUnrelated = undefined;
    o.log(`subscriptions/listen ${String(reply.id)} closed`);
    // Its subscriptions and armed lists belong to this stream: the lane goes with it.
    lanes.discard(lane);
  });
}
