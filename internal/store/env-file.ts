import { readFile, stat } from 'node:fs/promises';
import type { ConfigIssue } from '../shared/errors.js';
import { foreignControl } from '../shared/file-trust.js';
import { issueAt, type LocStr } from './source.js';

const LINE = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/;

/**
 * runtime.yaml `envFile:`: a dotenv file (`NAME=value`, `export NAME=value`, `#` comments, values in
 * single quotes taken as written, in double quotes with \n \t \" \\ escapes). Its values are variables
 * for `${NAME}`. A file that cannot be read, is another user's, or has a line that is no assignment is
 * an issue at runtime.yaml's `envFile:` (or at the file's line).
 */
export async function readEnvFile(loc: LocStr, runtimeFile: string, issues: ConfigIssue[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const file = loc.text;
  let text: string;
  try {
    const why = foreignControl(await stat(file), { allowRootOwner: true });
    if (why) {
      issues.push(issueAt(loc.where, runtimeFile, `envFile ${file} cannot be trusted: ${why}`, `make it yours: chmod go-w ${file}`));
      return out;
    }
    text = await readFile(file, 'utf8');
  } catch (e) {
    issues.push(issueAt(loc.where, runtimeFile, `envFile ${file} cannot be read: ${(e as Error).message}`, 'create it, or remove envFile'));
    return out;
  }
  text.split(/\r?\n/).forEach((line, i) => {
    if (/^\s*(#|$)/.test(line)) return;
    const m = LINE.exec(line);
    const value = m ? unquote(m[2] ?? '') : undefined;
    if (!m || value === undefined) {
      issues.push({
        file,
        line: i + 1,
        field: '',
        message: 'not a NAME=value line',
        hint: 'write NAME=value (quote a value with spaces or #), or start the line with # for a comment',
      });
      return;
    }
    out.set(m[1] as string, value);
  });
  return out;
}

function unquote(raw: string): string | undefined {
  const q = raw[0];
  if (q === "'" || q === '"') {
    const end = raw.indexOf(q, 1);
    if (q === '"') return doubleQuoted(raw);
    if (end < 0 || !/^\s*(#.*)?$/.test(raw.slice(end + 1))) return undefined;
    return raw.slice(1, end);
  }
  // Unquoted: a ` #` starts a comment.
  return raw.replace(/\s+#.*$/, '');
}

function doubleQuoted(raw: string): string | undefined {
  let v = '';
  for (let i = 1; i < raw.length; i++) {
    const c = raw[i] as string;
    if (c === '"') return /^\s*(#.*)?$/.test(raw.slice(i + 1)) ? v : undefined;
    if (c === '\\' && i + 1 < raw.length) {
      const n = raw[++i] as string;
      v += n === 'n' ? '\n' : n === 't' ? '\t' : n === 'r' ? '\r' : n;
    } else {
      v += c;
    }
  }
  return undefined;
}
