import type { JsonObject } from '../json.js';
import { badRequest, type SmcpErrorPayload } from './error-payload.js';

/** A request as the computer checked it, or the 400/404 ack that says what was wrong. */
export type Checked<T> = { ok: true; value: T } | { ok: false; error: SmcpErrorPayload };

export interface AgentCall {
  agent: string;
  req_id: string;
  computer: string;
}

export interface ToolCallReq extends AgentCall {
  tool_name: string;
  params: JsonObject;
  /** Seconds; 0 = the server's own call timeout. */
  timeout: number;
}

export interface DesktopReq extends AgentCall {
  desktop_size?: number;
  window?: string;
}

export interface FinderReq extends AgentCall {
  keywords?: string[];
  file_type?: string;
  offset?: number;
  limit?: number;
}

export interface ReadResourceReq extends AgentCall {
  uri: string;
}

class Bad extends Error {
  constructor(readonly payload: SmcpErrorPayload) {
    super(payload.message);
  }
}

type Obj = Record<string, unknown>;

function str(o: Obj, k: string, optional = false): string | undefined {
  const v = o[k];
  if (v === undefined && optional) return undefined;
  if (typeof v !== 'string' || v === '') throw new Bad(badRequest(k, `must be a non-empty string, got ${JSON.stringify(v) ?? 'nothing'}`));
  return v;
}

function int(o: Obj, k: string, min: number): number | undefined {
  const v = o[k];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min)
    throw new Bad(badRequest(k, `must be a whole number ≥ ${min}, got ${JSON.stringify(v)}`));
  return v;
}

/**
 * Checks the AgentCallData every `client:*` request carries and that it is addressed to this
 * computer (the reference Computer asserts the same); `more` reads the event's own fields.
 */
export function checkRequest<T extends AgentCall>(data: unknown, computer: string, more: (o: Obj) => Omit<T, keyof AgentCall>): Checked<T> {
  try {
    if (!data || typeof data !== 'object' || Array.isArray(data)) throw new Bad(badRequest('payload', 'must be a JSON object'));
    const o = data as Obj;
    const base = { agent: str(o, 'agent') as string, req_id: str(o, 'req_id') as string, computer: str(o, 'computer') as string };
    if (base.computer !== computer) {
      return {
        ok: false,
        error: { code: 404, message: `computer: this is computer "${computer}", not "${base.computer}"`, details: { field: 'computer' } },
      };
    }
    return { ok: true, value: { ...base, ...more(o) } as T };
  } catch (e) {
    if (e instanceof Bad) return { ok: false, error: e.payload };
    throw e;
  }
}

export const noFields = (): Record<string, never> => ({});

export function toolCallFields(o: Obj): Omit<ToolCallReq, keyof AgentCall> {
  const params = o.params ?? {};
  if (typeof params !== 'object' || params === null || Array.isArray(params)) throw new Bad(badRequest('params', 'must be a JSON object'));
  const t = o.timeout;
  if (t !== undefined && t !== null && (typeof t !== 'number' || !Number.isFinite(t) || t < 0)) {
    throw new Bad(badRequest('timeout', `must be a number of seconds ≥ 0, got ${JSON.stringify(t)}`));
  }
  return { tool_name: str(o, 'tool_name') as string, params: params as JsonObject, timeout: typeof t === 'number' ? t : 0 };
}

export function desktopFields(o: Obj): Omit<DesktopReq, keyof AgentCall> {
  const size = int(o, 'desktop_size', 0);
  const window = str(o, 'window', true);
  return { ...(size !== undefined ? { desktop_size: size } : {}), ...(window !== undefined ? { window } : {}) };
}

export function finderFields(o: Obj): Omit<FinderReq, keyof AgentCall> {
  const k = o.keywords;
  if (k !== undefined && k !== null && (!Array.isArray(k) || !k.every((x) => typeof x === 'string'))) {
    throw new Bad(badRequest('keywords', 'must be a list of strings'));
  }
  const fileType = str(o, 'file_type', true);
  const offset = int(o, 'offset', 0);
  const limit = int(o, 'limit', 0);
  return {
    ...(Array.isArray(k) ? { keywords: k as string[] } : {}),
    ...(fileType !== undefined ? { file_type: fileType } : {}),
    ...(offset !== undefined ? { offset } : {}),
    ...(limit !== undefined ? { limit } : {}),
  };
}

export function readResourceFields(o: Obj): Omit<ReadResourceReq, keyof AgentCall> {
  return { uri: str(o, 'uri') as string };
}

/** `notify:tool_call_cancel {agent, req_id}`; undefined when malformed (a notice has nobody to answer). */
export function cancelTarget(data: unknown): { agent: string; req_id: string } | undefined {
  if (!data || typeof data !== 'object') return undefined;
  const { agent, req_id } = data as Obj;
  return typeof agent === 'string' && typeof req_id === 'string' ? { agent, req_id } : undefined;
}
