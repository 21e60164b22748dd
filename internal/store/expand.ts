import type { ConfigIssue } from '../shared/errors.js';
import { issueAt, type LocStr } from './source.js';
import { looksLikePath, secretName } from './secret-names.js';

/** How one `${input:id}` resolved. */
/** `missing`: no value is to be had now (none given, its command failed) — not a mistake in the file. */
export type InputOutcome = { ok: true; value: string; secret: boolean } | { ok: false; message: string; hint: string; missing?: boolean };

export interface ExpandContext {
  file: string;
  /** Environment lookup, built-ins included. */
  variable(name: string): string | undefined;
  /** Names whose values are never treated as secrets (e.g. MCPD_STORE_DIR). */
  publicVariables: ReadonlySet<string>;
  /** Where `variable` looks, for the hint of an unset one (e.g. "runtime.yaml env, mcpd's environment and …"). */
  lookedIn?: string;
  input(id: string): Promise<InputOutcome>;
  issues: ConfigIssue[];
  /**
   * When set, values that are missing (an unset variable, an input without a value) go here instead of
   * `issues`, and the placeholder stays in the text: the server is left out, the store still loads.
   */
  unresolved?: ConfigIssue[];
}

export interface Expanded {
  value: string;
  /** Substrings that came from variables named like secrets or from password inputs. */
  secrets: string[];
}

type Part = { kind: 'lit'; text: string } | { kind: 'var'; name: string; fallback?: Part[] } | { kind: 'input'; id: string };

const VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]*/;
const INPUT_ID = /^[A-Za-z0-9_][A-Za-z0-9_.-]*/;

class SyntaxProblem extends Error {}

const UNCLOSED = 'a "${" is never closed with "}"';

/** Grammar: `$${` is a literal `${`; `${NAME}`, `${NAME:-fallback}` (fallback may nest), `${input:id}`. */
function parse(text: string, start: number, nested: boolean): { parts: Part[]; end: number } {
  const parts: Part[] = [];
  let lit = '';
  let i = start;
  const flush = (): void => {
    if (lit) parts.push({ kind: 'lit', text: lit });
    lit = '';
  };
  while (i < text.length) {
    if (nested && text[i] === '}') {
      flush();
      return { parts, end: i };
    }
    if (text.startsWith('$${', i)) {
      lit += '${';
      i += 3;
    } else if (text.startsWith('${', i)) {
      flush();
      const { part, end } = parsePlaceholder(text, i + 2);
      parts.push(part);
      i = end + 1;
    } else {
      lit += text[i++];
    }
  }
  if (nested) throw new SyntaxProblem(UNCLOSED);
  flush();
  return { parts, end: i };
}

function parsePlaceholder(text: string, at: number): { part: Part; end: number } {
  const rest = text.slice(at);
  if (rest.startsWith('input:')) {
    const id = INPUT_ID.exec(rest.slice(6))?.[0];
    const end = at + 6 + (id?.length ?? 0);
    if (end >= text.length) throw new SyntaxProblem(UNCLOSED);
    if (!id || text[end] !== '}') throw new SyntaxProblem(`malformed input placeholder "\${${rest.slice(0, 30)}"`);
    return { part: { kind: 'input', id }, end };
  }
  const name = VAR_NAME.exec(rest)?.[0];
  if (!name) throw new SyntaxProblem(`malformed placeholder "\${${rest.slice(0, 30)}"`);
  const after = at + name.length;
  if (after >= text.length) throw new SyntaxProblem(UNCLOSED);
  if (text[after] === '}') return { part: { kind: 'var', name }, end: after };
  if (text.startsWith(':-', after)) {
    const inner = parse(text, after + 2, true);
    return { part: { kind: 'var', name, fallback: inner.parts }, end: inner.end };
  }
  throw new SyntaxProblem(`malformed placeholder "\${${rest.slice(0, 30)}"`);
}

const MIN_ENV_SECRET = 4;

async function evaluate(parts: Part[], loc: LocStr, ctx: ExpandContext, out: Expanded): Promise<boolean> {
  let ok = true;
  for (const p of parts) {
    if (p.kind === 'lit') {
      out.value += p.text;
    } else if (p.kind === 'var') {
      const v = ctx.variable(p.name);
      if (v !== undefined && (p.fallback === undefined || v !== '')) {
        out.value += v;
        // Only a variable named like a secret is one: `${HOME}` or a `LOG_LEVEL` of `info` must not mask
        // every path and every log line.
        if (v.length >= MIN_ENV_SECRET && !ctx.publicVariables.has(p.name) && secretName(p.name) && !looksLikePath(v)) out.secrets.push(v);
      } else if (p.fallback) {
        ok = (await evaluate(p.fallback, loc, ctx, out)) && ok;
      } else {
        const issue = issueAt(
          loc.where,
          ctx.file,
          `environment variable "${p.name}" is not set`,
          ctx.lookedIn
            ? `looked for in ${ctx.lookedIn}; set ${p.name} in one of them (runtime.yaml env: or envFile:, or your shell profile), or write \${${p.name}:-default} to give a fallback`
            : `set ${p.name} in the environment of mcpd, or write \${${p.name}:-default} to give a fallback`,
        );
        ok = missing(ctx, issue, out, `\${${p.name}}`) && ok;
      }
    } else {
      const r = await ctx.input(p.id);
      if (r.ok) {
        out.value += r.value;
        if (r.secret && r.value) out.secrets.push(r.value);
      } else if (r.missing) {
        ok = missing(ctx, issueAt(loc.where, ctx.file, r.message, r.hint), out, `\${input:${p.id}}`) && ok;
      } else {
        ctx.issues.push(issueAt(loc.where, ctx.file, r.message, r.hint));
        ok = false;
      }
    }
  }
  return ok;
}

/** A value that is not to be had: an issue, or (with `unresolved`) a note and the placeholder kept. */
function missing(ctx: ExpandContext, issue: ConfigIssue, out: Expanded, placeholder: string): boolean {
  if (!ctx.unresolved) {
    ctx.issues.push(issue);
    return false;
  }
  ctx.unresolved.push(issue);
  out.value += placeholder;
  return true;
}

/** Expands one string; problems are pushed to ctx.issues and give undefined. */
export async function expand(loc: LocStr, ctx: ExpandContext): Promise<Expanded | undefined> {
  if (!loc.text.includes('${')) return { value: loc.text, secrets: [] };
  let parts: Part[];
  try {
    parts = parse(loc.text, 0, false).parts;
  } catch (e) {
    if (!(e instanceof SyntaxProblem)) throw e;
    ctx.issues.push(
      issueAt(loc.where, ctx.file, e.message, 'placeholders are ${NAME}, ${NAME:-fallback} or ${input:id}; write $${ for a literal ${'),
    );
    return undefined;
  }
  const out: Expanded = { value: '', secrets: [] };
  return (await evaluate(parts, loc, ctx, out)) ? out : undefined;
}
