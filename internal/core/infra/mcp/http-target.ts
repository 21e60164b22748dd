import { basicCredential } from '../../../store/url-secrets.js';
import type { ServerSpec } from '../../../contract/model/spec.js';
import { McpdError } from '../../../shared/errors.js';

/** Where an HTTP/SSE server is reached, and the headers every request to it carries. */
export interface HttpTarget {
  url: URL;
  headers: Record<string, string>;
}

/**
 * The server's URL without userinfo, and its headers. fetch refuses a URL that includes credentials,
 * so `https://user:pass@host/mcp` is sent as `Authorization: Basic …` — unless the spec sets its own
 * Authorization header, which wins. The credential is a store secret (url-secrets.ts): masked wherever
 * it could be shown.
 */
export function httpTarget(spec: ServerSpec): HttpTarget {
  if (!spec.url) throw new McpdError('INVALID_ARGUMENT', `server ${spec.name}: ${spec.transport} transport needs "url"`);
  let url: URL;
  try {
    url = new URL(spec.url);
  } catch {
    throw new McpdError('INVALID_ARGUMENT', `server ${spec.name}: "${spec.url}" is not a valid URL`);
  }
  const basic = basicCredential(url);
  if (basic === undefined) return { url, headers: spec.headers };
  url.username = '';
  url.password = '';
  const hasOwn = Object.keys(spec.headers).some((k) => k.toLowerCase() === 'authorization');
  return { url, headers: hasOwn ? spec.headers : { ...spec.headers, Authorization: `Basic ${basic}` } };
}
