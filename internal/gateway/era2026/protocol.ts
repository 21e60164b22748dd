import type { JsonObject, JsonValue } from '../../shared/json.js';
import { isJsonObject } from '../../shared/json.js';

/** The stateless protocol revision this gateway serves beside 2025-11-25 sessions (docs/eras.md). */
export const PROTOCOL_2026 = '2026-07-28';
/** Every version `mcpdmcp --http` answers: 2026-07-28 per request, the rest as sessions. */
export const SUPPORTED_VERSIONS = [PROTOCOL_2026, '2025-11-25', '2025-06-18', '2025-03-26'];

export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
const META_CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
const META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
const META_LOG_LEVEL = 'io.modelcontextprotocol/logLevel';
export const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo';
export const META_SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

/** JSON-RPC codes of 2026-07-28 (spec "Errors"). */
export const HEADER_MISMATCH = -32020;
export const MISSING_REQUIRED_CLIENT_CAPABILITY = -32021;
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;
export const INVALID_PARAMS = -32602;
export const METHOD_NOT_FOUND = -32601;

/** Methods 2026-07-28 removed: over HTTP they answer 404 with -32601. */
export const REMOVED_METHODS = new Set(['initialize', 'ping', 'logging/setLevel', 'resources/subscribe', 'resources/unsubscribe']);

/** The requests whose results may be an InputRequiredResult (SEP-2322). */
export const MRTR_METHODS = new Set(['tools/call', 'prompts/get', 'resources/read']);

/** Results that carry the caching hints `ttlMs` and `cacheScope`. */
export const CACHEABLE_METHODS = new Set(['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list', 'resources/read']);

const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** What a 2026-07-28 request says about its client in `params._meta`. */
export interface RequestEnvelope {
  version: string;
  clientCapabilities: JsonObject;
  logLevel?: LogLevel;
  clientName?: string;
}

/** A request refused before it is served: the JSON-RPC error and its HTTP status. */
export class EraError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly data?: JsonValue,
  ) {
    super(message);
  }
}

/**
 * The envelope of a 2026-07-28 request, or an EraError saying what is missing: `_meta` with the
 * protocol version and client capabilities is required on every request (clientInfo is optional).
 */
export function envelopeOf(params: JsonObject | undefined): RequestEnvelope {
  const meta = params?._meta;
  if (!isJsonObject(meta)) {
    throw new EraError(
      400,
      INVALID_PARAMS,
      `Invalid params: a ${PROTOCOL_2026} request needs params._meta with "${META_PROTOCOL_VERSION}" and "${META_CLIENT_CAPABILITIES}"`,
    );
  }
  const version = meta[META_PROTOCOL_VERSION];
  if (typeof version !== 'string') {
    throw new EraError(400, INVALID_PARAMS, `Invalid params: params._meta has no "${META_PROTOCOL_VERSION}" string`);
  }
  const caps = meta[META_CLIENT_CAPABILITIES];
  if (!isJsonObject(caps)) {
    throw new EraError(400, INVALID_PARAMS, `Invalid params: params._meta has no "${META_CLIENT_CAPABILITIES}" object (send {} for none)`);
  }
  if (version !== PROTOCOL_2026) {
    throw new EraError(
      400,
      UNSUPPORTED_PROTOCOL_VERSION,
      `Unsupported protocol version "${version}": this server serves ${PROTOCOL_2026} per request and earlier versions as sessions (initialize)`,
      { supported: SUPPORTED_VERSIONS, requested: version },
    );
  }
  const level = meta[META_LOG_LEVEL];
  if (level !== undefined && !(typeof level === 'string' && (LOG_LEVELS as readonly string[]).includes(level))) {
    throw new EraError(400, INVALID_PARAMS, `Invalid params: "${META_LOG_LEVEL}" must be one of ${LOG_LEVELS.join(', ')}`);
  }
  const info = meta[META_CLIENT_INFO];
  const clientName = isJsonObject(info) && typeof info.name === 'string' ? info.name : undefined;
  return { version, clientCapabilities: caps, logLevel: level as LogLevel | undefined, clientName };
}

/** True when `level` is at or above `threshold` (RFC 5424 order, as MCP logging uses). */
export function logLevelPasses(level: string, threshold: LogLevel): boolean {
  const i = (LOG_LEVELS as readonly string[]).indexOf(level);
  return i >= LOG_LEVELS.indexOf(threshold);
}

/** The capability of the client that a server→client request needs (sampling, elicitation, roots). */
export function capabilityFor(method: string): string | undefined {
  if (method === 'sampling/createMessage') return 'sampling';
  if (method === 'elicitation/create') return 'elicitation';
  if (method === 'roots/list') return 'roots';
  return undefined;
}
