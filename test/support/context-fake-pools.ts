/**
 * An in-memory PoolPort for the context-service unit tests: each fingerprint is a fake MCP server
 * with resources, contents, capabilities and subscriptions; tests emit its notifications.
 */
import { McpdError } from '../../internal/shared/errors.js';
import { specFingerprint } from '../../internal/contract/model/fingerprint.js';
import { CallerHistories } from '../../internal/core/domain/history/tool-call-history.js';
import type { JsonObject, JsonValue } from '../../internal/shared/json.js';
import { DEFAULT_NAMESPACE, DEFAULT_RUNTIME, type Profile } from '../../internal/contract/model/profile.js';
import { ListingBudget } from '../../internal/core/app/listing-budget.js';
import type { PoolStatus } from '../../internal/contract/model/runtime.js';
import { SPEC_DEFAULTS, type ServerSpec } from '../../internal/contract/model/spec.js';
import type { AreaDeps } from '../../internal/core/app/area-deps.js';
import type { PoolPort } from '../../internal/core/app/pool-port.js';

export class FakeServer {
  caps: JsonObject = { resources: { subscribe: true, listChanged: true } };
  resources: JsonObject[] = [];
  contents = new Map<string, JsonValue>();
  readonly subscribed = new Set<string>();
  readonly requests: string[] = [];
  /** Page size for resources/list; 0 = one page. */
  pageSize = 0;
  started = false;
  failStart?: string;
  instance = 1;

  add(uri: string, contents: JsonValue | undefined, extra: JsonObject = {}): void {
    this.resources.push({ uri, name: uri, ...extra });
    if (contents !== undefined) this.contents.set(uri, contents);
  }

  text(uri: string, text: string): void {
    this.contents.set(uri, [{ uri, mimeType: 'text/plain', text }]);
  }
}

type Note = (fp: string, instance: string, method: string, params: JsonObject) => void;

export class FakePools implements Pick<
  PoolPort,
  'request' | 'capabilities' | 'onNotification' | 'onStatusChange' | 'status' | 'pin' | 'unpin' | 'onPinLost'
> {
  readonly servers = new Map<string, FakeServer>();
  /** "fp key" → holders. */
  readonly pins = new Map<string, number>();
  private readonly notes: Note[] = [];
  private readonly statusCbs: (() => void)[] = [];
  private readonly lostCbs: ((fp: string, key: string) => void)[] = [];

  pin(fp: string, key: string): void {
    if (!this.servers.has(fp)) throw new McpdError('NOT_FOUND', `no pool ${fp}`);
    this.pins.set(`${fp} ${key}`, (this.pins.get(`${fp} ${key}`) ?? 0) + 1);
  }

  unpin(fp: string, key: string): void {
    const n = (this.pins.get(`${fp} ${key}`) ?? 0) - 1;
    if (n > 0) this.pins.set(`${fp} ${key}`, n);
    else this.pins.delete(`${fp} ${key}`);
  }

  onPinLost(cb: (fp: string, key: string) => void): void {
    this.lostCbs.push(cb);
  }

  /** The server's instance ended: every pin of the pool is lost (a new process knows no subscriptions). */
  restart(fp: string): void {
    const s = this.servers.get(fp);
    if (s) {
      s.subscribed.clear();
      s.instance++;
    }
    for (const k of [...this.pins.keys()]) {
      if (!k.startsWith(`${fp} `)) continue;
      for (const cb of this.lostCbs) cb(fp, k.slice(fp.length + 1));
    }
  }

  async request(fp: string, method: string, params: JsonObject): Promise<JsonObject> {
    const s = this.servers.get(fp);
    if (!s) throw new McpdError('NOT_FOUND', `no pool ${fp}`);
    if (s.failStart) throw new McpdError('UNAVAILABLE', s.failStart);
    s.requests.push(
      `${method} ${typeof params.uri === 'string' ? params.uri : typeof params.cursor === 'string' ? params.cursor : ''}`.trim(),
    );
    s.started = true;
    switch (method) {
      case 'ping':
        return {};
      case 'resources/list': {
        if (!s.pageSize) return { resources: s.resources };
        const start = Number(params.cursor ?? 0);
        const next = start + s.pageSize;
        return next < s.resources.length
          ? { resources: s.resources.slice(start, next), nextCursor: String(next) }
          : { resources: s.resources.slice(start) };
      }
      case 'resources/read': {
        const c = s.contents.get(params.uri as string);
        if (c === undefined) throw new McpdError('DOWNSTREAM_ERROR', `unknown resource ${String(params.uri)}`, { specCode: 4201 });
        return { contents: c };
      }
      case 'resources/subscribe':
        s.subscribed.add(params.uri as string);
        return {};
      case 'resources/unsubscribe':
        s.subscribed.delete(params.uri as string);
        return {};
      default:
        throw new McpdError('NOT_FOUND', `method ${method}`);
    }
  }

  capabilities(fp: string): JsonObject | undefined {
    const s = this.servers.get(fp);
    return s?.started ? s.caps : undefined;
  }

  onNotification(cb: Note): void {
    this.notes.push(cb);
  }

  emit(fp: string, method: string, params: JsonObject = {}): void {
    const s = this.servers.get(fp);
    for (const cb of this.notes) cb(fp, `i${s?.instance ?? 0}`, method, params);
  }

  onStatusChange(cb: () => void): void {
    this.statusCbs.push(cb);
  }

  statusChanged(): void {
    for (const cb of this.statusCbs) cb();
  }

  status(): PoolStatus[] {
    return [...this.servers.entries()].map(
      ([fp, s]) =>
        ({
          fingerprint: fp,
          instances: s.started ? [{ id: `i${s.instance}`, state: 'ready' }] : [],
        }) as unknown as PoolStatus,
    );
  }
}

export function spec(name: string, role = name): ServerSpec {
  return {
    ...SPEC_DEFAULTS,
    name,
    transport: 'stdio',
    cmd: ['fake'],
    env: { ROLE: role },
    headers: {},
    disabled: false,
    forbiddenTools: [],
    toolMeta: {},
  };
}

/** A world: fake pools, one profile per caller name given, shared histories. */
export function contextWorld(profiles: Record<string, ServerSpec[]>) {
  const pools = new FakePools();
  const history = new CallerHistories();
  const logs: string[] = [];
  const byName = new Map<string, Profile>();
  for (const [name, servers] of Object.entries(profiles)) {
    byName.set(name, { name, file: `${name}.yaml`, servers, inputs: [], namespace: DEFAULT_NAMESPACE });
    for (const s of servers) {
      const fp = specFingerprint(s);
      if (!pools.servers.has(fp)) pools.servers.set(fp, new FakeServer());
    }
  }
  const server = (sp: ServerSpec) => pools.servers.get(specFingerprint(sp))!;
  const deps = {
    pools: pools as unknown as PoolPort,
    store: undefined as unknown as AreaDeps['store'],
    tools: undefined as unknown as AreaDeps['tools'],
    listingBudget: new ListingBudget(() => DEFAULT_RUNTIME.listingBudgetSeconds * 1000),
    history,
    profileOf: (caller: string) => byName.get(caller) ?? byName.get('default')!,
    log: (level: string, event: string, fields?: Record<string, unknown>) =>
      void logs.push(`${level} ${event} ${JSON.stringify(fields ?? {})}`),
  } satisfies AreaDeps;
  return { pools, history, deps, server, logs, fp: (sp: ServerSpec) => specFingerprint(sp), profiles: byName };
}
