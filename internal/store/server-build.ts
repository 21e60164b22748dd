import { isAbsolute, resolve } from 'node:path';
import type { ServerSpec } from '../contract/model/spec.js';
import { expand, type ExpandContext } from './expand.js';
import { buildOAuth } from './oauth-build.js';
import { buildSandbox } from './sandbox-build.js';
import { rememberSecrets } from './redact.js';
import { issueAt, type LocStr } from './source.js';
import type { RawServer } from './types.js';

function validHttpUrl(text: string): boolean {
  try {
    const u = new URL(text);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}

/**
 * Expands placeholders and resolves paths. stdio servers run in `cwd`, which defaults to the store
 * directory; a relative cwd is taken relative to the store directory too.
 */
export async function buildServer(raw: RawServer, ctx: ExpandContext, storeDir: string): Promise<ServerSpec | undefined> {
  const secrets: string[] = [];
  let ok = true;
  const one = async (loc: LocStr): Promise<string> => {
    const r = await expand(loc, ctx);
    if (!r) {
      ok = false;
      return '';
    }
    secrets.push(...r.secrets);
    return r.value;
  };
  const map = async (entries: Array<[string, LocStr]>): Promise<Record<string, string>> => {
    const out: Record<string, string> = {};
    for (const [k, v] of entries) out[k] = await one(v);
    return out;
  };
  const cmd: string[] = [];
  for (const c of raw.cmd) cmd.push(await one(c));
  const env = await map(raw.env);
  const headers = await map(raw.headers);
  const cwdText = raw.cwd ? await one(raw.cwd) : undefined;
  const url = raw.url ? await one(raw.url) : undefined;
  const oauth = raw.oauth ? await buildOAuth(raw.oauth, one, ctx) : undefined;
  const sandbox = raw.sandbox ? await buildSandbox(raw.sandbox, one, ctx, storeDir) : undefined;
  if (!ok || oauth === null || (raw.sandbox && !sandbox)) return undefined;
  if (oauth?.clientSecret) secrets.push(oauth.clientSecret);
  if (raw.url && url !== undefined && !validHttpUrl(url)) {
    ctx.issues.push(
      issueAt(raw.url.where, ctx.file, `"${url}" is not a valid http(s) URL`, 'write a full URL such as http://127.0.0.1:8080/mcp'),
    );
    return undefined;
  }
  const [program] = raw.cmd;
  if (raw.transport === 'stdio' && program !== undefined && cmd[0] === '') {
    const where = program.where;
    ctx.issues.push(issueAt(where, ctx.file, 'the program (first element of cmd) is empty', 'check the placeholder it uses'));
    return undefined;
  }
  const spec: ServerSpec = { name: raw.name, transport: raw.transport, cmd, env, headers, ...raw.fixed };
  if (raw.transport === 'stdio') spec.cwd = cwdText === undefined || !isAbsolute(cwdText) ? resolve(storeDir, cwdText ?? '.') : cwdText;
  if (url !== undefined) spec.url = url;
  if (oauth) spec.oauth = oauth;
  if (sandbox) spec.sandbox = sandbox;
  else if (raw.sandbox === false && raw.transport === 'stdio') spec.sandboxOptOut = true;
  rememberSecrets(spec, secrets);
  return spec;
}
