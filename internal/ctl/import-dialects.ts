/**
 * Gemini CLI and Codex spell a server entry their own way; these turn their entries into the shape the
 * other clients share (`command`/`args`/`env`/`cwd`, or `type` + `url` + `headers`), so one mapper reads
 * them all. Keys they do not translate are passed on untouched: the mapper reports them as not imported.
 */

type Json = Record<string, unknown>;

export type Dialect = 'mcp-json' | 'gemini-cli' | 'codex';

const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Gemini CLI and Codex allow or hide tools by name; mcpd's exposeTools / forbiddenTools do the same. */
function toolLists(e: Json, allow: string, deny: string): Json {
  const out: Json = {};
  if (Array.isArray(e[allow])) out.exposeTools = (e[allow] as unknown[]).map(String);
  if (Array.isArray(e[deny])) out.forbiddenTools = (e[deny] as unknown[]).map(String);
  return out;
}

function without(e: Json, keys: string[]): Json {
  return Object.fromEntries(Object.entries(e).filter(([k]) => !keys.includes(k)));
}

/** Gemini CLI expands `$VAR` as well as `${VAR}` in its settings; mcpd only the braced form. */
function braceVariables(v: unknown): unknown {
  if (typeof v === 'string') return v.replace(/(?<![$\\])\$([A-Za-z_][A-Za-z0-9_]*)/g, '${$1}');
  if (Array.isArray(v)) return v.map(braceVariables);
  if (isObj(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, braceVariables(x)]));
  return v;
}

/**
 * Gemini CLI (~/.gemini/settings.json, `mcpServers`): `httpUrl` is streamable HTTP, `url` alone is SSE
 * (its docs: "httpUrl → StreamableHTTPClientTransport, url → SSEClientTransport"), `includeTools` /
 * `excludeTools` filter tools.
 */
function geminiEntry(e: Json): Json {
  const out: Json = {
    ...without(braceVariables(e) as Json, ['httpUrl', 'includeTools', 'excludeTools']),
    ...toolLists(e, 'includeTools', 'excludeTools'),
  };
  if (typeof e.httpUrl === 'string') {
    out.type = 'http';
    out.url = braceVariables(e.httpUrl);
  } else if (typeof e.url === 'string' && e.type === undefined && e.command === undefined) {
    out.type = 'sse';
  }
  return out;
}

/**
 * Codex (~/.codex/config.toml, `[mcp_servers.NAME]`): `url` is streamable HTTP with `http_headers`,
 * `bearer_token_env_var` and `env_http_headers` naming variables; `env_vars` passes variables through from
 * Codex's environment when set (imported as `${X:-}`); `enabled = false` turns a server off; `enabled_tools` / `disabled_tools` filter.
 */
function codexEntry(e: Json): Json {
  const out: Json = without(e, [
    'http_headers',
    'bearer_token_env_var',
    'env_http_headers',
    'env_vars',
    'enabled',
    'enabled_tools',
    'disabled_tools',
  ]);
  Object.assign(out, toolLists(e, 'enabled_tools', 'disabled_tools'));
  if (e.enabled === false) out.disabled = true;
  if (typeof e.url === 'string' && e.command === undefined) out.type = 'http';
  const headers: Json = isObj(e.http_headers) ? { ...e.http_headers } : {};
  if (typeof e.bearer_token_env_var === 'string') headers.Authorization = `Bearer \${${e.bearer_token_env_var}}`;
  if (isObj(e.env_http_headers)) for (const [h, v] of Object.entries(e.env_http_headers)) headers[h] = `\${${String(v)}}`;
  if (Object.keys(headers).length) out.headers = headers;
  if (Array.isArray(e.env_vars)) {
    const env: Json = isObj(e.env) ? { ...e.env } : {};
    // Codex passes each only when it is set: an optional value (empty when unset), never a required
    // `${X}` that would leave the server out (and fail `mcpd validate`) wherever X is not set.
    for (const name of e.env_vars) env[String(name)] ??= `\${${String(name)}:-}`;
    out.env = env;
  }
  return out;
}

/** The server table of a client's document and its entries in the shared shape. */
export function serverTableOf(doc: Json, dialect: Dialect): { table: Json | undefined; vscode: boolean } {
  if (dialect === 'codex') {
    const t = doc.mcp_servers;
    return {
      table: isObj(t) ? Object.fromEntries(Object.entries(t).map(([k, v]) => [k, isObj(v) ? codexEntry(v) : v])) : undefined,
      vscode: false,
    };
  }
  if (isObj(doc.mcpServers)) {
    const t = doc.mcpServers;
    return {
      table: dialect === 'gemini-cli' ? Object.fromEntries(Object.entries(t).map(([k, v]) => [k, isObj(v) ? geminiEntry(v) : v])) : t,
      vscode: false,
    };
  }
  return { table: isObj(doc.servers) ? doc.servers : undefined, vscode: isObj(doc.servers) };
}
