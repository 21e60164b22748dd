import { McpdError } from '../shared/errors.js';
import type { ClientName } from './client-configs.js';

/** What `mcpdmcp <caller> --http 127.0.0.1:8931` serves (the README's port): `connect --http` points here unless told. */
const DEFAULT_GATEWAY_URL = 'http://127.0.0.1:8931/mcp';
/** The variable the HTTP gateway reads its token from; the client's entry names it, never its value. */
export const DEFAULT_TOKEN_ENV = 'MCPD_HTTP_TOKEN';

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `--url`, checked: an http(s) URL (the gateway serves streamable HTTP at `/mcp`). */
export function gatewayUrl(flag: string | undefined): string {
  const text = flag ?? DEFAULT_GATEWAY_URL;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new McpdError(
      'INVALID_ARGUMENT',
      `--url ${JSON.stringify(text)} is not a URL; give the one mcpdmcp --http printed, e.g. ${DEFAULT_GATEWAY_URL}`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new McpdError(
      'INVALID_ARGUMENT',
      `--url ${text} is not an http(s) URL; give the one mcpdmcp --http printed, e.g. ${DEFAULT_GATEWAY_URL}`,
    );
  if (url.username || url.password)
    throw new McpdError(
      'INVALID_ARGUMENT',
      `--url ${url.host} carries a user name or password; the client authenticates with the token variable (--token-env), which is never written into its file`,
    );
  return url.href;
}

/** `--token-env`, checked: a plain variable name, as every client's reference syntax needs. */
export function tokenEnvName(flag: string | undefined): string {
  const name = flag ?? DEFAULT_TOKEN_ENV;
  if (!ENV_NAME.test(name))
    throw new McpdError(
      'INVALID_ARGUMENT',
      `--token-env ${JSON.stringify(name)} is not an environment variable name (letters, digits, _; not starting with a digit)`,
    );
  return name;
}

/**
 * The client's entry for mcpd's HTTP face, in the form its own config takes, with the gateway's token as a
 * reference to an environment variable the client expands when it connects (the file holds no secret):
 * - Claude Code: `type: "http"`, `url`, `headers` (`${VAR}` is expanded in url and headers).
 * - Cursor: `url`, `headers` (`${env:VAR}`).
 * - VS Code: `type: "http"`, `url`, `headers` (`${env:VAR}`, one of its predefined variables).
 * - Gemini CLI: `httpUrl` (its streamable HTTP key; `url` is SSE), `headers` (`${VAR}` in settings.json).
 * - Codex: `url` and `bearer_token_env_var` (it sends `Authorization: Bearer <value of VAR>`).
 * Claude Desktop's file takes only stdio servers: it is refused, saying so.
 */
export function httpEntryFor(client: ClientName, url: string, tokenEnv: string): Record<string, unknown> {
  const bearer = (ref: string) => ({ Authorization: `Bearer ${ref}` });
  switch (client) {
    case 'claude-code':
      return { type: 'http', url, headers: bearer(`\${${tokenEnv}}`) };
    case 'cursor':
      return { url, headers: bearer(`\${env:${tokenEnv}}`) };
    case 'vscode':
      return { type: 'http', url, headers: bearer(`\${env:${tokenEnv}}`) };
    case 'gemini-cli':
      return { httpUrl: url, headers: bearer(`\${${tokenEnv}}`) };
    case 'codex':
      return { url, bearer_token_env_var: tokenEnv };
    case 'claude-desktop':
      throw new McpdError(
        'INVALID_ARGUMENT',
        'claude-desktop cannot connect over HTTP: claude_desktop_config.json takes only stdio servers (a remote server is added in its settings as a connector, which Anthropic reaches from the internet, not from this machine); run `mcpdctl connect claude-desktop` without --http',
      );
  }
}
