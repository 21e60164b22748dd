import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { AuditSettings } from '../contract/model/audit-settings.js';
import { formatIssue } from '../shared/errors.js';
import { parseRuntime } from './runtime-parse.js';
import { parseSource } from './source.js';
import { stateDirFor, storeFolder } from '../launch/state-dir.js';
import { auditFileIn } from '../contract/audit/audit-files.js';

/**
 * Where the core of a store writes its audit log: runtime.yaml's `audit:` (read without loading the rest of
 * the store) and the store's state directory, exactly as the core derives them.
 */
export function auditOfStore(configDir: string, env: NodeJS.ProcessEnv = process.env): { settings: AuditSettings; file: string } {
  const dir = storeFolder(configDir);
  const isCatalogFile = existsSync(configDir) && statSync(configDir).isFile();
  const runtimeFile = join(dir, 'runtime.yaml');
  const text = !isCatalogFile && existsSync(runtimeFile) ? readFileSync(runtimeFile, 'utf8') : '';
  const src = parseSource(runtimeFile, text);
  const { runtime } = parseRuntime(src, dir);
  // Only the audit section's own problems matter here; others are `mcpdctl validate`'s to report.
  const problems = src.issues.filter((i) => i.field === '' || i.field === 'audit' || i.field.startsWith('audit.'));
  if (problems.length > 0) throw new Error(problems.map(formatIssue).join('\n'));
  return { settings: runtime.audit, file: auditFileIn(stateDirFor(configDir, env), runtime.audit.file) };
}
