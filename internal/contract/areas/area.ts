/**
 * An area of the control plane (tools, resources, prompts, logs, context) is declared once, as a list
 * of methods; three projectors turn the declarations into the gRPC handlers (rpc/grpc-areas.ts), the
 * Session dispatch table (rpc/session-dispatch.ts) and the MCP gateway's request handlers
 * (gateway/mcp-dispatcher.ts, by the method list gateway/gateway-methods.ts). See docs/architecture.md, "Areas".
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { ControlApi } from '../control/control.js';
import type { ProgressUpdate, ResultJsonSink } from '../model/downstream.js';
import type { JsonObject, JsonValue } from '../../shared/json.js';
import type { ControlPlaneServer } from '../gen/mcpd/control/v1/control.js';
import type { SessionHandler, SessionRequestContext } from '../session/session-handler.js';

/** A projection that deliberately has no such method, and why (what serves the need there instead). */
export interface Absent {
  readonly absent: string;
}

export function absent(why: string): Absent {
  return { absent: why };
}

export function isAbsent(x: unknown): x is Absent {
  return typeof x === 'object' && x !== null && 'absent' in x;
}

/**
 * Admission during a graceful stop. `core`: a call that does work on a server (tools/call,
 * resources/read, prompts/get, completion/complete, the Desktop and Finder reads) — the core's door
 * passes it through the stop's gate (core/app/door/admission.ts, which reads this declaration), so every
 * face (gRPC, the Session, the gateway, the dashboard, the SMCP Computer) is refused alike; projectors
 * add nothing. `free`: not a call (lists, watches, subscriptions).
 */
export type Admission = 'core' | 'free';

/** What a method's core call gets, whichever projection brought it. */
export interface CallContext {
  caller: string;
  /** The MCP client's name when the projection knows it (the Session's hello). */
  client?: string;
  signal: AbortSignal;
  timeoutMs?: number;
  onProgress?: (p: ProgressUpdate) => void;
  /** The caller's session (stateful routing, server→client requests); gRPC may name one. */
  routingKey?: string;
  /** Session tools/call only: the result's JSON text goes out as soon as the server answered (ResultJsonSink). */
  onResultJson?: ResultJsonSink;
}

/** A gRPC request taken apart: whose it is, the method's request, and the call options it names. */
export interface FromPb<Req> {
  caller: string;
  req: Req;
  timeoutMs?: number;
  routingKey?: string;
}

export type RpcName = keyof ControlPlaneServer;

/** A unary RPC, or a server stream of progress events then one result (CallTool). */
export interface GrpcCall<Req, Res> {
  rpc: RpcName;
  fromPb(pbReq: any): FromPb<Req>;
  /** The response message; `pbReq` is there for responses memoised per page. */
  toPb(res: Res, pbReq: any): unknown;
  /** Present for server-streamed calls: the message that carries one progress update. */
  progressToPb?(p: ProgressUpdate): unknown;
}

export interface StreamContext {
  signal: AbortSignal;
  /** The first value of a request metadata key. */
  metadata(key: string): string | undefined;
}

/** What a stream is fed from: a subscription (ended by `return()` when the client goes), or a list. */
export type StreamSource<T> = AsyncIterableIterator<T> | IterableIterator<T>;

/**
 * A server-streaming RPC fed by a subscription; the projector maps each item with `itemToPb`, honours flow
 * control, and ends the subscription when the client goes away.
 */
export interface GrpcStream<Item = any> {
  rpc: RpcName;
  open(api: ControlApi, pbReq: any, ctx: StreamContext): StreamSource<Item> | Promise<StreamSource<Item>>;
  itemToPb(item: Item, pbReq: any): unknown;
}

/** How the Session serves a method: decode MCP params, call, shape the MCP result — or its own handler. */
export interface SessionCall<Req, Res> {
  fromMcp(params: JsonObject): Req;
  /** The MCP-shaped result; the core's result as it is when absent. */
  toMcp?(res: Res, req: Req, ctx: SessionRequestContext, api: ControlApi): JsonValue | Promise<JsonValue>;
}

/** Methods that keep per-session state (subscriptions, the log level) bring their own handler. */
export interface SessionOwn {
  handle: SessionHandler;
}

export type RequestSchema = Parameters<Server['setRequestHandler']>[0];

/**
 * The gateway serves the MCP request (its method list, gateway/gateway-methods.ts, is kept equal to the
 * declarations by its test); it forwards to the same Session method unless a gateway adapter adapts it.
 * `schema` is the SDK's schema for the request, by which the gateway checks the params of the methods it
 * does not check by hand (gateway/stdio-params.ts).
 */
export interface GatewayForward {
  schema: RequestSchema;
}

export interface AreaMethod<Req = any, Res = any> {
  /** The MCP method name (the Session's and the gateway's); gRPC-only methods get an area-local name. */
  name: string;
  admission: Admission;
  /** Session requests route by the session (its id is the routing key). */
  routed: boolean;
  /** The core call; absent for methods whose projections are all their own (streams, subscriptions). */
  invoke?(api: ControlApi, req: Req, ctx: CallContext): Promise<Res>;
  session: SessionCall<Req, Res> | SessionOwn | Absent;
  grpc: GrpcCall<Req, Res> | GrpcStream | Absent;
  gateway: GatewayForward | Absent;
}

export interface Area {
  name: string;
  methods: readonly AreaMethod[];
}

/** Type-checks one method's parts against each other, then erases its types for the area's list. */
export function method<Req, Res>(m: AreaMethod<Req, Res>): AreaMethod {
  return m as AreaMethod;
}

/** A page size from a proto field, where 0 means "the core's default". */
export const pageSizeOf = (n: number): number | undefined => (n > 0 ? n : undefined);
