import type { DiscoverResult } from '@modelcontextprotocol/client';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { JsonObject } from '../../../shared/json.js';
import type { DirectRequests } from './direct-requests.js';

/** The first (and today the only) protocol revision of the 2026 era; everything before is 2025-era. */
const MODERN_PROTOCOL_VERSION = '2026-07-28';
/** 2026-07-28's "unsupported protocol version" error code. */
const UNSUPPORTED_PROTOCOL_VERSION = -32022;

/** Which MCP era a downstream session speaks: `modern` = 2026-07-28 (stateless, MRTR), `legacy` = 2025-11-25 sessions. */
export type ProtocolEra = 'modern' | 'legacy';

/**
 * What `server/discover` said. `modern` carries the DiscoverResult the SDK v2 client adopts without another
 * round trip; `legacy` says why the server is taken for a 2025-11-25 one; `exited` = the server died on the
 * probe (some SDKs exit on any request before `initialize`), so it must be started again as a legacy server.
 */
export type EraVerdict = { era: 'modern'; discover: DiscoverResult } | { era: 'legacy'; why: string } | { era: 'exited'; why: string };

export interface ProbeIdentity {
  clientInfo: { name: string; version: string };
  clientCapabilities: JsonObject;
}

/** The per-request `_meta` a 2026-07-28 request carries (protocol version, client info and capabilities). */
function discoverParams(id: ProbeIdentity): JsonObject {
  return {
    _meta: {
      'io.modelcontextprotocol/protocolVersion': MODERN_PROTOCOL_VERSION,
      'io.modelcontextprotocol/clientInfo': id.clientInfo,
      'io.modelcontextprotocol/clientCapabilities': id.clientCapabilities,
    },
  };
}

/** A discover result that offers 2026-07-28 is the only evidence of a modern server; anything else is legacy. */
function verdictOfResult(result: unknown): EraVerdict {
  const r = result as { supportedVersions?: unknown; capabilities?: unknown } | undefined;
  const versions = Array.isArray(r?.supportedVersions) ? r.supportedVersions : [];
  if (versions.includes(MODERN_PROTOCOL_VERSION) && typeof r?.capabilities === 'object' && r.capabilities !== null) {
    return { era: 'modern', discover: result as DiscoverResult };
  }
  return { era: 'legacy', why: `server/discover did not offer ${MODERN_PROTOCOL_VERSION} (it offered ${JSON.stringify(versions)})` };
}

/**
 * Asks a freshly spawned stdio server `server/discover` before any handshake. An error answer (a 2025 server
 * says "method not found") and silence until `timeoutMs` (some legacy servers ignore unknown requests) both
 * mean legacy: the same process then gets `initialize`. A server that exits on the probe is `exited`.
 */
export async function probeStdio(direct: DirectRequests, id: ProbeIdentity, timeoutMs: number): Promise<EraVerdict> {
  try {
    return verdictOfResult(await direct.request('server/discover', discoverParams(id), { timeoutMs }));
  } catch (err) {
    if (err instanceof McpError && err.code === ErrorCode.ConnectionClosed) return { era: 'exited', why: 'it exited on server/discover' };
    if (err instanceof McpError && err.code === ErrorCode.RequestTimeout) {
      return { era: 'legacy', why: `no answer to server/discover within ${timeoutMs} ms` };
    }
    return { era: 'legacy', why: `server/discover failed: ${(err as Error)?.message ?? String(err)}` };
  }
}

export interface HttpProbe {
  url: URL;
  headers: Record<string, string>;
  /** A stored OAuth access token, sent as the legacy session would send it. */
  bearer?: string;
  fetch?: (url: URL, init: RequestInit) => Promise<Response>;
  timeoutMs: number;
  signal?: AbortSignal;
}

/**
 * POSTs a stateless `server/discover` to a Streamable HTTP server. Only a result offering 2026-07-28 is
 * modern; an HTTP error, a JSON-RPC error or a network failure leave the server to the legacy handshake,
 * which reports real failures (refused connection, sign-in needed) the way it always has. One exception:
 * an "unsupported protocol version" refusal (-32022) that lists 2026-07-28 among `data.supported` is
 * asked once more, as the spec tells a client to retry with a version the server named.
 */
export async function probeHttp(p: HttpProbe, id: ProbeIdentity): Promise<EraVerdict> {
  const first = await discoverOverHttp(p, id);
  return 'retry' in first ? discoverOverHttp(p, id).then((v) => ('retry' in v ? { era: 'legacy', why: v.retry } : v)) : first;
}

async function discoverOverHttp(p: HttpProbe, id: ProbeIdentity): Promise<EraVerdict | { retry: string }> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'server/discover', params: discoverParams(id) });
  const headers: Record<string, string> = {
    ...p.headers,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': MODERN_PROTOCOL_VERSION,
    'mcp-method': 'server/discover',
  };
  if (p.bearer) headers.authorization = `Bearer ${p.bearer}`;
  const signals = [AbortSignal.timeout(p.timeoutMs), ...(p.signal ? [p.signal] : [])];
  try {
    const res = await (p.fetch ?? fetch)(p.url, { method: 'POST', headers, body, signal: AbortSignal.any(signals) });
    const text = await res.text();
    const message = firstMessage(text, res.headers.get('content-type') ?? '');
    if (offersModernAfterRefusal(message?.error))
      return { retry: `server/discover refused ${MODERN_PROTOCOL_VERSION} though it lists it as supported` };
    if (!res.ok) return { era: 'legacy', why: `server/discover answered HTTP ${res.status}` };
    if (message?.result === undefined) return { era: 'legacy', why: 'server/discover answered no result' };
    return verdictOfResult(message.result);
  } catch (err) {
    return { era: 'legacy', why: `server/discover failed: ${(err as Error)?.message ?? String(err)}` };
  }
}

/** A -32022 (unsupported protocol version) whose `data.supported` names 2026-07-28: worth asking again. */
function offersModernAfterRefusal(error: unknown): boolean {
  const e = error as { code?: unknown; data?: { supported?: unknown } } | undefined;
  return e?.code === UNSUPPORTED_PROTOCOL_VERSION && Array.isArray(e.data?.supported) && e.data.supported.includes(MODERN_PROTOCOL_VERSION);
}

/** The JSON-RPC answer in a JSON body or in the first `data:` event of an SSE body. */
function firstMessage(text: string, contentType: string): { result?: unknown; error?: unknown } | undefined {
  try {
    if (!contentType.includes('text/event-stream')) return JSON.parse(text) as { result?: unknown; error?: unknown };
    for (const line of text.split('\n')) {
      if (line.startsWith('data:')) {
        const m = JSON.parse(line.slice(5)) as { result?: unknown; error?: unknown };
        if ('result' in m || 'error' in m) return m;
      }
    }
  } catch {
    // Not JSON: not a 2026 server's answer; the legacy handshake will say what the server is.
  }
  return undefined;
}
