import { isMcpdError } from '../shared/errors.js';
import type { PackageCommand, PackagePin } from './package-command.js';
import { resolvePackage } from './package-pins.js';

/**
 * What the registry says now of a recorded pin's exact version: the same integrity, another one (a
 * republished tarball, a file added to or replaced in a PyPI release), no such version any more, or no
 * answer at all (decision 74 says why that one starts anyway).
 */
export type Recheck =
  { kind: 'same' } | { kind: 'changed'; now: PackagePin } | { kind: 'gone'; why: string } | { kind: 'unreachable'; why: string };

export async function recheckPackage(p: PackageCommand, pin: PackagePin, env: NodeJS.ProcessEnv): Promise<Recheck> {
  const exact: PackageCommand = { ...p, requested: p.runner === 'npx' ? pin.version : `==${pin.version}` };
  try {
    const now = await resolvePackage(exact, env, { quick: true });
    if (now.integrity === pin.integrity) return { kind: 'same' };
    return { kind: 'changed', now: { ...now, requested: pin.requested } };
  } catch (err) {
    if (!isMcpdError(err)) throw err;
    return err.reason === 'NOT_FOUND' ? { kind: 'gone', why: err.message } : { kind: 'unreachable', why: err.message };
  }
}

/** For a PyPI pin, which files of the release differ from the record: `; files: + a.whl, ~ b.tar.gz`. */
export function filesChanged(pin: PackagePin, now: PackagePin): string {
  if (!pin.files || !now.files) return '';
  const before = pin.files;
  const after = now.files;
  const names = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  const marks = names.flatMap((n) => {
    if (!(n in before)) return [`+ ${n}`];
    if (!(n in after)) return [`- ${n}`];
    return before[n] === after[n] ? [] : [`~ ${n}`];
  });
  return marks.length ? `; files: ${marks.join(', ')}` : '';
}
