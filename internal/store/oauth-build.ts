import type { OAuthSettings } from '../contract/model/spec.js';
import type { ExpandContext } from './expand.js';
import { issueAt, type LocStr } from './source.js';
import type { RawOAuth } from './types.js';

/**
 * Expands `oauth:`; null when a value is invalid (reported at its line). A client metadata document
 * is fetched by the authorization server, so its URL must be https with a path (the CIMD rules).
 */
export async function buildOAuth(raw: RawOAuth, one: (loc: LocStr) => Promise<string>, ctx: ExpandContext): Promise<OAuthSettings | null> {
  const out: OAuthSettings = {};
  if (raw.clientId) out.clientId = await one(raw.clientId);
  if (raw.clientSecret) out.clientSecret = await one(raw.clientSecret);
  if (raw.scopes) out.scopes = raw.scopes;
  if (raw.clientMetadataUrl) {
    const url = await one(raw.clientMetadataUrl);
    if (!validMetadataUrl(url)) {
      ctx.issues.push(
        issueAt(
          raw.clientMetadataUrl.where,
          ctx.file,
          `"${url}" is not a usable client metadata document URL`,
          'write an https URL with a path, such as https://example.com/mcpd/client.json',
        ),
      );
      return null;
    }
    out.clientMetadataUrl = url;
  }
  return out;
}

function validMetadataUrl(text: string): boolean {
  try {
    const u = new URL(text);
    return u.protocol === 'https:' && u.pathname !== '/' && u.pathname !== '';
  } catch {
    return false;
  }
}
