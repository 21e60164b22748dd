import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isMap, parseDocument } from 'yaml';
import { mappedProfile } from './caller-profile.js';

export type MappingOutcome = { kind: 'added' } | { kind: 'kept'; profile: string } | { kind: 'failed'; why: string };

/**
 * Maps `caller` to `profile` in the store's callers.yaml unless the caller is mapped already (the
 * user's choice stands). Edits the YAML document in place, so comments and other entries stay.
 */
export async function mapCaller(storeDir: string, caller: string, profile: string): Promise<MappingOutcome> {
  const file = join(storeDir, 'callers.yaml');
  let text = '';
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') return { kind: 'failed', why: (e as Error).message };
  }
  const doc = parseDocument(text);
  const [parseError] = doc.errors;
  if (parseError) return { kind: 'failed', why: `${file} does not parse: ${parseError.message}` };
  const callers = doc.get('callers');
  if (callers !== undefined && callers !== null && !isMap(callers)) return { kind: 'failed', why: `"callers" in ${file} is not a mapping` };
  // The plain form (`caller: profile`) or the long one (`caller: { profile, reserve }`).
  const node = doc.getIn(['callers', caller]);
  const existing = mappedProfile(isMap(node) ? { profile: node.get('profile') } : node);
  if (existing !== undefined) return { kind: 'kept', profile: existing };
  if (!isMap(callers)) doc.set('callers', doc.createNode({ [caller]: profile }));
  else {
    // `callers: {}` (as a starter store may write it) would grow into one long line of every caller.
    callers.flow = false;
    doc.setIn(['callers', caller], profile);
  }
  await writeFile(file, String(doc));
  return { kind: 'added' };
}
