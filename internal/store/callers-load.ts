import type { ConfigIssue } from '../shared/errors.js';
import type { Profile } from '../contract/model/profile.js';
import type { PolicyRule } from '../contract/model/policy.js';
import { MIN_NAME_BUDGET } from '../contract/model/naming.js';
import { didYouMean } from '../contract/model/did-you-mean.js';
import { parseCallers, type CallerRef } from './callers-parse.js';
import { policiesOf } from './policy-parse.js';
import { exists, readSource } from './store-file.js';

export interface CallersFile {
  refs: CallerRef[];
  policies: PolicyRule[];
}

/** `callers.yaml`: each caller's profile (which must exist) and the policies; none when there is no file. */
export async function loadCallers(
  file: string,
  profiles: ReadonlySet<string>,
  issues: ConfigIssue[],
  maxBytes: number,
): Promise<CallersFile> {
  if (!(await exists(file))) return { refs: [], policies: [] };
  const src = await readSource(file, issues, maxBytes);
  if (!src) return { refs: [], policies: [] };
  const refs = src.broken ? [] : parseCallers(src);
  const policies = policiesOf(src);
  for (const ref of refs) {
    if (profiles.has(ref.profile)) continue;
    const known = [...profiles].sort();
    src.issues.push({
      file,
      line: ref.where.line,
      column: ref.where.column,
      field: ref.where.field,
      message: `caller "${ref.caller}" maps to profile "${ref.profile}", which does not exist`,
      hint: `${didYouMean(ref.profile, known)}create profiles/${ref.profile}.yaml or use one of: ${known.join(', ') || '(none)'}`,
    });
  }
  issues.push(...src.issues);
  return { refs, policies };
}

/**
 * The callers' own reserves, each checked against its profile's maxLength: what is left for names
 * must stay at least MIN_NAME_BUDGET, as for a profile's own reserve.
 */
export function callerReserves(
  file: string,
  refs: readonly CallerRef[],
  profiles: ReadonlyMap<string, Profile>,
  issues: ConfigIssue[],
): Map<string, number> {
  const out = new Map<string, number>();
  for (const { caller, profile, reserve } of refs) {
    if (!reserve) continue;
    const max = profiles.get(profile)?.namespace.maxLength;
    if (max !== undefined && max - reserve.value < MIN_NAME_BUDGET) {
      issues.push({
        file,
        line: reserve.where.line,
        column: reserve.where.column,
        field: reserve.where.field,
        message: `reserve ${reserve.value} leaves ${max - reserve.value} of profile "${profile}"'s maxLength ${max} characters for names; at least ${MIN_NAME_BUDGET} are needed`,
        hint: `lower reserve to at most ${max - MIN_NAME_BUDGET} or raise namespace.maxLength in profiles/${profile}.yaml`,
      });
      continue;
    }
    out.set(caller, reserve.value);
  }
  return out;
}
