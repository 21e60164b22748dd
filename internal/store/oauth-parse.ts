import { checkKeys, mapEntries, readLocString, readStringList } from './fields.js';
import { issueAt, report, whereOf, type Source, type YNode } from './source.js';
import type { RawOAuth } from './types.js';

export const OAUTH_KEYS = ['clientId', 'clientSecret', 'scopes', 'clientMetadataUrl'] as const;

/** Scope tokens (RFC 6749 §3.3): printable ASCII without space, quote or backslash. */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/** A server's `oauth:` mapping; undefined when it is unusable (already reported). */
export function parseOAuth(src: Source, node: YNode, field: string): RawOAuth | undefined {
  const entries = mapEntries(src, node, field, 'a mapping (clientId, clientSecret, scopes, clientMetadataUrl)');
  if (!entries) return undefined;
  checkKeys(src, entries, OAUTH_KEYS, 'oauth');
  const out: RawOAuth = { where: whereOf(src, node, field) };
  for (const e of entries) {
    if (e.key === 'clientId') out.clientId = readLocString(src, e.value, e.field, true);
    else if (e.key === 'clientSecret') out.clientSecret = readLocString(src, e.value, e.field, true);
    else if (e.key === 'clientMetadataUrl') out.clientMetadataUrl = readLocString(src, e.value, e.field, true);
    else if (e.key === 'scopes') out.scopes = readScopes(src, e.value, e.field);
  }
  const secret = entries.find((e) => e.key === 'clientSecret');
  if (secret && !out.clientId) {
    report(src, secret.keyNode, secret.field, 'clientSecret needs clientId', 'add the pre-registered clientId, or remove clientSecret');
  }
  return out;
}

function readScopes(src: Source, node: YNode, field: string): string[] | undefined {
  const list = readStringList(src, node, field);
  if (!list) return undefined;
  const bad = list.filter((s) => !SCOPE_TOKEN.test(s.text));
  for (const s of bad) {
    src.issues.push(
      issueAt(
        s.where,
        src.file,
        `"${s.text}" is not a valid OAuth scope (no spaces, quotes or backslashes)`,
        'write each scope as its own list item',
      ),
    );
  }
  return bad.length ? undefined : list.map((s) => s.text);
}
