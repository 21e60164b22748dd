/**
 * Payload validation against smcp-data-structures.md. Each validator returns the typed payload or a 400
 * ErrorPayload naming the first bad field (dotted path) and what is expected, so the sender can fix it.
 * Unknown extra fields are kept: later protocol revisions add fields, and the computer may understand them.
 */
import type { JsonObject } from '../../shared/json.js';
import { badField, type ErrorPayload } from './error-codes.js';
import { CLIENT_EVENTS, type ClientEvent } from './events.js';
import type {
  AgentCallData,
  EnterOfficeReq,
  FindComputerReq,
  GetComputerConfigReq,
  GetDeskTopReq,
  GetFinderReq,
  GetToolsReq,
  LeaveOfficeReq,
  ListRoomReq,
  ReadResourceReq,
  ToolCallCancel,
  ToolCallReq,
  UpdateComputerConfigReq,
} from './types.js';

export type Validated<T> = { ok: true; value: T } | { ok: false; error: ErrorPayload };

/** Identifiers (names, office ids, req ids, tool names) are bounded so one request cannot bloat every registry. */
export const SMCP_LIMITS = {
  identifierMax: 256,
  uriMax: 8192,
  timeoutMaxSeconds: 86_400,
  keywordsMax: 64,
  finderLimitMax: 10_000,
} as const;

class FieldError extends Error {
  constructor(readonly payload: ErrorPayload) {
    super(payload.message);
  }
}

function fail(field: string, message: string): never {
  throw new FieldError(badField(field, message));
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'string' ? `a string` : `${typeof v}`;
}

function objectAt(v: unknown, field: string): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) fail(field, `expected a JSON object, got ${describe(v)}`);
  return v as Record<string, unknown>;
}

function identifier(o: Record<string, unknown>, field: string): string {
  const v = o[field];
  if (v === undefined) fail(field, 'is required');
  if (typeof v !== 'string') fail(field, `expected a string, got ${describe(v)}`);
  if (v.trim() === '') fail(field, 'must not be empty');
  // Control characters would break log lines and the registry's key encoding.
  // eslint-disable-next-line no-control-regex -- matching control characters is this check's purpose
  if (/[\u0000-\u001f\u007f]/.test(v)) fail(field, 'must not contain control characters (newline, tab, …)');
  if (v.length > SMCP_LIMITS.identifierMax) fail(field, `is ${v.length} characters; at most ${SMCP_LIMITS.identifierMax} allowed`);
  return v;
}

function integer(o: Record<string, unknown>, field: string, min: number, max: number): number | undefined {
  const v = o[field];
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v)) fail(field, `expected an integer, got ${JSON.stringify(v) ?? describe(v)}`);
  if (v < min || v > max) fail(field, `${v} is out of range ${min}..${max}`);
  return v;
}

function optionalString(o: Record<string, unknown>, field: string, max: number): string | undefined {
  const v = o[field];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') fail(field, `expected a string, got ${describe(v)}`);
  if (v.length > max) fail(field, `is ${v.length} characters; at most ${max} allowed`);
  return v;
}

function run<T>(payload: unknown, body: (o: Record<string, unknown>) => void): Validated<T> {
  try {
    const o = objectAt(payload, 'payload');
    body(o);
    return { ok: true, value: o as T };
  } catch (e) {
    if (e instanceof FieldError) return { ok: false, error: e.payload };
    throw e;
  }
}

function agentCall(o: Record<string, unknown>): void {
  identifier(o, 'agent');
  identifier(o, 'req_id');
}

export function validateEnterOffice(p: unknown): Validated<EnterOfficeReq> {
  return run(p, (o) => {
    const role = o.role;
    if (role === undefined) fail('role', 'is required');
    if (role !== 'computer' && role !== 'agent') fail('role', `must be "computer" or "agent", got ${JSON.stringify(role)}`);
    identifier(o, 'name');
    identifier(o, 'office_id');
  });
}

export function validateLeaveOffice(p: unknown): Validated<LeaveOfficeReq> {
  return run(p, (o) => identifier(o, 'office_id'));
}

export function validateListRoom(p: unknown): Validated<ListRoomReq> {
  return run(p, (o) => {
    agentCall(o);
    identifier(o, 'office_id');
  });
}

export function validateToolCallCancel(p: unknown): Validated<ToolCallCancel> {
  return run(p, agentCall);
}

/** `server:update_config|tool_list|desktop|finder`. */
export function validateUpdate(p: unknown): Validated<UpdateComputerConfigReq> {
  return run(p, (o) => identifier(o, 'computer'));
}

function targeted(o: Record<string, unknown>): void {
  agentCall(o);
  identifier(o, 'computer');
}

export function validateFindComputer(p: unknown): Validated<FindComputerReq> {
  return run(p, targeted);
}

export function validateToolCall(p: unknown): Validated<ToolCallReq> {
  return run(p, (o) => {
    targeted(o);
    identifier(o, 'tool_name');
    if (o.params === undefined) fail('params', 'is required (use {} for a tool without arguments)');
    objectAt(o.params, 'params');
    if (o.timeout === undefined) fail('timeout', 'is required (integer seconds)');
    integer(o, 'timeout', 1, SMCP_LIMITS.timeoutMaxSeconds);
  });
}

export function validateGetTools(p: unknown): Validated<GetToolsReq> {
  return run(p, targeted);
}

export function validateGetConfig(p: unknown): Validated<GetComputerConfigReq> {
  return run(p, targeted);
}

export function validateGetDesktop(p: unknown): Validated<GetDeskTopReq> {
  return run(p, (o) => {
    targeted(o);
    integer(o, 'desktop_size', 0, Number.MAX_SAFE_INTEGER);
    optionalString(o, 'window', SMCP_LIMITS.uriMax);
  });
}

export function validateGetFinder(p: unknown): Validated<GetFinderReq> {
  return run(p, (o) => {
    targeted(o);
    const kw = o.keywords;
    if (kw !== undefined) {
      if (!Array.isArray(kw)) fail('keywords', `expected an array of strings, got ${describe(kw)}`);
      if (kw.length > SMCP_LIMITS.keywordsMax) fail('keywords', `has ${kw.length} entries; at most ${SMCP_LIMITS.keywordsMax} allowed`);
      kw.forEach((k, i) => {
        if (typeof k !== 'string') fail(`keywords.${i}`, `expected a string, got ${describe(k)}`);
      });
    }
    optionalString(o, 'file_type', SMCP_LIMITS.identifierMax);
    integer(o, 'offset', 0, Number.MAX_SAFE_INTEGER);
    integer(o, 'limit', 0, SMCP_LIMITS.finderLimitMax);
  });
}

export function validateReadResource(p: unknown): Validated<ReadResourceReq> {
  return run(p, (o) => {
    targeted(o);
    if (o.uri === undefined) fail('uri', 'is required');
    const uri = optionalString(o, 'uri', SMCP_LIMITS.uriMax);
    if (uri === undefined || uri.trim() === '') fail('uri', 'must not be empty');
  });
}

/** Every routed request carries at least these: the caller, the request id and the target computer. */
export interface RoutedRequest extends AgentCallData {
  computer: string;
}

const CLIENT_VALIDATORS: Record<ClientEvent, (p: unknown) => Validated<RoutedRequest>> = {
  [CLIENT_EVENTS.toolCall]: validateToolCall,
  [CLIENT_EVENTS.getTools]: validateGetTools,
  [CLIENT_EVENTS.getDesktop]: validateGetDesktop,
  [CLIENT_EVENTS.getConfig]: validateGetConfig,
  [CLIENT_EVENTS.getFinder]: validateGetFinder,
  [CLIENT_EVENTS.readResource]: validateReadResource,
};

/** Validates the payload of any `client:*` event. */
export function validateClientRequest(event: ClientEvent, payload: unknown): Validated<RoutedRequest> {
  return CLIENT_VALIDATORS[event](payload);
}

/** Narrowing helper for params objects that travel on as JSON. */
export function asJsonObject(o: Record<string, unknown>): JsonObject {
  return o as JsonObject;
}
