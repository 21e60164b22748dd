import type { ConfigIssue } from '../shared/errors.js';
import type { SmcpSettings } from '../contract/model/smcp-computer-settings.js';
import { expand } from './expand.js';
import type { RawSmcp } from './smcp-parse.js';

/**
 * Expands `smcp.apiKey` (`${SMCP_API_KEY}`, `${NAME:-fallback}`) against the core's environment.
 * Problems go to `issues` with the runtime.yaml line; undefined then.
 */
export async function resolveSmcp(
  raw: RawSmcp,
  file: string,
  env: NodeJS.ProcessEnv,
  issues: ConfigIssue[],
): Promise<SmcpSettings | undefined> {
  let apiKey = '';
  if (raw.apiKey) {
    const r = await expand(raw.apiKey, {
      file,
      variable: (n) => env[n],
      publicVariables: new Set(),
      input: async () => ({
        ok: false,
        message: 'smcp.apiKey cannot use ${input:…}',
        hint: 'write ${SMCP_API_KEY} and set it in the environment of mcpd',
      }),
      issues,
    });
    if (!r) return undefined;
    apiKey = r.value;
  }
  return { url: raw.url, apiKey, office: raw.office, computers: raw.computers };
}
