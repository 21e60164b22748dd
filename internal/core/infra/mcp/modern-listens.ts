import type { Client as ModernClient } from '@modelcontextprotocol/client';
import { SERVER_TASK_LISTEN } from '../../../contract/model/tasks.js';
import type { JsonObject } from '../../../shared/json.js';
import { isJsonObject } from '../../../shared/json.js';
import { KeptListen, type ListenStream } from './kept-listen.js';
import { TaskListen } from './task-listen.js';

/** How long a server may take to acknowledge a listen stream before the core gives up on it. */
const LISTEN_ACK_MS = 10_000;

/** The list kinds a list-changes stream may ask for: the capability, the filter flag, the notification. */
const LIST_KINDS = [
  ['tools', 'toolsListChanged', 'notifications/tools/list_changed'],
  ['prompts', 'promptsListChanged', 'notifications/prompts/list_changed'],
  ['resources', 'resourcesListChanged', 'notifications/resources/list_changed'],
] as const;

/** What the streams tell the session they belong to. */
export interface ListenHooks {
  /** False once the session is closing or closed: no stream is re-opened then. */
  alive(): boolean;
  /** Delivers a notification as if the server had sent it. */
  notify(method: string, params: JsonObject): void;
  /** A line on the session's stderr path (the instance's log). */
  log(line: string): void;
  /** Whether the list-changes stream is open (acknowledged) now. */
  hearing(on: boolean): void;
}

/** A subscribed resource's stream: `ready` settles once its first listen was acknowledged (or refused). */
interface ResourceListen {
  ready: Promise<void>;
  kept?: KeptListen;
}

/**
 * What the core hears from a 2026-07-28 server outside its calls. That era has no session to push
 * notifications on: a client opens `subscriptions/listen` streams instead. The core keeps one stream for
 * list changes (the kinds the server declares `listChanged` for) and one per subscribed resource URI,
 * which is how the core's own `resources/subscribe` / `resources/unsubscribe` reach such a server, and
 * one for the server's own tasks the core passes on (task-listen.ts). The
 * notifications arrive through the SDK client's notification handlers, the same path as a 2025 server's.
 * A stream the server ends is opened again (kept-listen.ts); what may have been missed meanwhile is
 * delivered as the notification that would have said so.
 */
export class ModernListens {
  private readonly resources = new Map<string, ResourceListen>();
  private changes?: KeptListen;
  private readonly tasks: TaskListen;

  constructor(
    private readonly client: ModernClient,
    private readonly hooks: ListenHooks,
  ) {
    this.tasks = new TaskListen(client, hooks, LISTEN_ACK_MS);
  }

  /** Opens the list-changes stream, if the server declares any list that changes. */
  async start(capabilities: JsonObject): Promise<void> {
    const kinds = LIST_KINDS.filter(([cap]) => {
      const c = capabilities[cap];
      return isJsonObject(c) && c.listChanged === true;
    });
    if (kinds.length === 0) return;
    const filter = Object.fromEntries(kinds.map(([, flag]) => [flag, true]));
    const open = () => this.client.listen(filter, { timeout: LISTEN_ACK_MS });
    // Every cached list may have changed unheard: the same effect as the server saying so, kind by kind.
    const changed = () => {
      for (const [, , method] of kinds) this.hooks.notify(method, {});
    };
    const first = await open();
    this.hooks.hearing(true);
    this.changes = this.keep(first, open, {
      what: 'list changes',
      lost: (why) => {
        this.hooks.hearing(false);
        this.hooks.log(`[mcpd] subscriptions/listen for list changes ended (${why}); its lists count as changed until it is back`);
        changed();
      },
      back: () => {
        this.hooks.hearing(true);
        changed();
      },
    });
  }

  /** `resources/subscribe` of the 2025 model: a listen stream for that URI (one however often asked). */
  async subscribe(uri: string): Promise<JsonObject> {
    let entry = this.resources.get(uri);
    if (!entry) entry = this.openResource(uri);
    await entry.ready;
    return {};
  }

  /** `resources/unsubscribe`: closes that URI's stream, and ends its re-opening if one runs. */
  async unsubscribe(uri: string): Promise<JsonObject> {
    const entry = this.resources.get(uri);
    this.resources.delete(uri);
    if (!entry) return {};
    // Ignored: a stream that never opened has nothing to close (its subscribe call got the error).
    await entry.ready.catch(() => {});
    await entry.kept?.stop();
    return {};
  }

  /**
   * Routes the 2025 subscribe methods (removed in 2026-07-28) and the core's SERVER_TASK_LISTEN to listen
   * streams; undefined for the rest.
   */
  route(method: string, params: JsonObject): Promise<JsonObject> | undefined {
    if (method === SERVER_TASK_LISTEN) return this.tasks.name(taskIdsOf(params));
    const uri = typeof params.uri === 'string' ? params.uri : undefined;
    if (uri === undefined) return undefined;
    if (method === 'resources/subscribe') return this.subscribe(uri);
    if (method === 'resources/unsubscribe') return this.unsubscribe(uri);
    return undefined;
  }

  /** The session ends: no stream is kept any more. */
  async stop(): Promise<void> {
    const kept = [this.changes, ...[...this.resources.values()].map((r) => r.kept)];
    this.changes = undefined;
    this.resources.clear();
    await Promise.all([...kept.map((k) => k?.stop()), this.tasks.stop()]);
  }

  private openResource(uri: string): ResourceListen {
    const open = () => this.client.listen({ resourceSubscriptions: [uri] }, { timeout: LISTEN_ACK_MS });
    const entry: ResourceListen = { ready: Promise.resolve() };
    entry.ready = open().then(async (first) => {
      // Unsubscribed (or the session ended) while it opened: not wanted any more.
      if (this.resources.get(uri) !== entry) return void (await first.close());
      entry.kept = this.keep(first, open, {
        what: `resource ${uri}`,
        lost: (why) => this.hooks.log(`[mcpd] subscriptions/listen for resource ${uri} ended (${why}); re-listening`),
        // An update may have come while the stream was down: the subscriber reads it again.
        back: () => this.hooks.notify('notifications/resources/updated', { uri }),
      });
    });
    this.resources.set(uri, entry);
    // A stream that could not open is forgotten, so the next subscribe tries again.
    entry.ready.catch(() => {
      if (this.resources.get(uri) === entry) this.resources.delete(uri);
    });
    return entry;
  }

  /** Keeps a stream open, with one log line when it is back (how many tries it took). */
  private keep(
    first: ListenStream,
    open: () => Promise<ListenStream>,
    on: { what: string; lost: (why: 'graceful' | 'remote') => void; back: () => void },
  ): KeptListen {
    return new KeptListen(
      {
        open,
        alive: () => this.hooks.alive(),
        lost: on.lost,
        back: (attempts) => {
          this.hooks.log(`[mcpd] subscriptions/listen for ${on.what} is back (after ${attempts} attempt${attempts === 1 ? '' : 's'})`);
          on.back();
        },
      },
      first,
    );
  }
}

function taskIdsOf(params: JsonObject): string[] {
  const ids = params.taskIds;
  return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : [];
}
