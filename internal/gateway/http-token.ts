import { randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { HttpGatewayConfigError } from './http-server.js';

export interface TokenSources {
  /** --token: a value, or "auto" to generate one. */
  token?: string;
  /** --token-file: a file holding the token. */
  tokenFile?: string;
  /** MCPD_HTTP_TOKEN. */
  envToken?: string;
}

export interface HttpToken {
  token?: string;
  /** True for --token auto: the gateway prints the client settings. */
  generated: boolean;
  /** Said on stderr at start. */
  warnings: string[];
}

/**
 * Where the HTTP gateway's bearer token comes from: --token-file, MCPD_HTTP_TOKEN, or --token (which
 * every local user can read in the process list, so it draws a warning unless it is "auto").
 */
export function resolveHttpToken(src: TokenSources): HttpToken {
  if (src.token !== undefined && src.tokenFile !== undefined) {
    throw new HttpGatewayConfigError('give either --token or --token-file, not both');
  }
  if (src.token === 'auto') return { token: randomBytes(32).toString('base64url'), generated: true, warnings: [] };
  if (src.tokenFile !== undefined) return { token: readTokenFile(src.tokenFile), generated: false, warnings: fileWarnings(src.tokenFile) };
  if (src.token !== undefined) {
    if (src.token === '') throw new HttpGatewayConfigError('--token is empty; pass a token, or --token auto to generate one');
    return {
      token: src.token,
      generated: false,
      warnings: ['--token is visible to every local user in the process list; prefer --token-file FILE or MCPD_HTTP_TOKEN'],
    };
  }
  return { token: src.envToken || undefined, generated: false, warnings: [] };
}

function readTokenFile(path: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new HttpGatewayConfigError(`--token-file ${path}: ${(e as Error).message}`);
  }
  const token = text.trim();
  if (token === '') throw new HttpGatewayConfigError(`--token-file ${path} is empty; write the token into it`);
  return token;
}

function fileWarnings(path: string): string[] {
  const mode = statSync(path).mode;
  return (mode & 0o077) !== 0 ? [`--token-file ${path} can be read by other users (mode ${(mode & 0o777).toString(8)}); chmod 600 it`] : [];
}
