import { extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import type { ServerSpec } from '../../contract/model/spec.js';
import { maskUrlSecrets } from '../../store/url-secrets.js';
import { McpdError } from '../../shared/errors.js';

export interface Challenge {
  /** The server answered 401/403 (else it needs no sign-in for a first request). */
  challenged: boolean;
  resourceMetadataUrl?: URL;
  scope?: string;
}

/**
 * One unauthenticated first request, as the transport would send it, to read the server's
 * `WWW-Authenticate` challenge: where its protected-resource metadata is and which scope it wants.
 */
export async function probeChallenge(spec: ServerSpec, signal?: AbortSignal): Promise<Challenge> {
  const url = spec.url as string;
  const init: RequestInit =
    spec.transport === 'sse'
      ? { method: 'GET', headers: { ...spec.headers, accept: 'text/event-stream' }, signal }
      : {
          method: 'POST',
          headers: { ...spec.headers, accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 0,
            method: 'initialize',
            params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'mcpdctl', version: '0' } },
          }),
          signal,
        };
  const res = await fetch(url, init).catch((e: unknown) => {
    throw unreachable(spec.name, url, e);
  });
  // Only the status and headers matter; a body that fails to cancel is dropped with the response.
  await res.body?.cancel().catch(() => {});
  if (res.status !== 401 && res.status !== 403) return { challenged: false };
  const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(res);
  return { challenged: true, resourceMetadataUrl, scope };
}

/**
 * fetch's own "fetch failed" names neither the URL nor the cause (ECONNREFUSED, ENOTFOUND, a TLS
 * error): say which server and URL could not be reached, and why (its query values masked).
 */
function unreachable(server: string, url: string, e: unknown): McpdError {
  const err = e as Error & { cause?: { code?: string; message?: string } };
  const why = err.cause?.code ?? err.cause?.message ?? err.message;
  return new McpdError(
    'UNAVAILABLE',
    `cannot reach server "${server}" at ${maskUrlSecrets(url)}: ${why}; check that it is running and the url in its profile is right`,
  );
}
