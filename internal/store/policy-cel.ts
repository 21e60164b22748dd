import { celEnv, celFunc, celMethod, CelScalar, isCelError, parse, plan, type CelInput } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import type { PolicyCondition, PolicyVars } from '../contract/model/policy.js';

/** The variables a `when` expression may use (docs/policy.md, "CEL variables"). */
const POLICY_VARIABLES = ['caller', 'face', 'method', 'client', 'tool', 'uri', 'args'] as const;

// The variables, and CEL's type names (`type(args.n) == int`), which are identifiers too.
const DECLARED = new Set<string>([
  ...POLICY_VARIABLES,
  'bool',
  'int',
  'uint',
  'double',
  'string',
  'bytes',
  'list',
  'map',
  'null_type',
  'type',
  'dyn',
]);
// Operators the evaluator plans itself (short-circuits, indexing, the ternary): not in the function table.
const PLANNED = new Set(['_&&_', '_||_', '_?_:_', '_[_]', '_[?_]', '_?._', '@not_strictly_false', 'not_strictly_false']);

/** Code points of `s` (CEL's string size), counted without building an array of them. */
function codePoints(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

// The library's string size spreads the string into an array: 45 µs for a 1 KB argument, per rule.
const SIZE = [
  celFunc('size', [CelScalar.STRING], CelScalar.INT, (x) => BigInt(codePoints(x))),
  celMethod('size', CelScalar.STRING, [], CelScalar.INT, function () {
    return BigInt(codePoints(this));
  }),
];

// The standard library plus the strings extension (lowerAscii, split, …), one environment for every rule.
const ENV = celEnv({ funcs: [...strings, ...SIZE] });

/** Why an expression was refused at load, and where in it (0-based offset into the expression). */
export interface CelProblem {
  message: string;
  offset: number;
}

/** Parses, checks (only known variables and functions) and plans `source`. */
export function compileCondition(source: string): PolicyCondition | CelProblem {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(source);
  } catch (e) {
    const loc = (e as { location?: { start?: { offset?: number } } }).location;
    const raw = (e as { rawMessage?: string }).rawMessage ?? (e as Error).message;
    return { message: `CEL syntax error: ${raw}`, offset: loc?.start?.offset ?? 0 };
  }
  const positions = parsed.sourceInfo?.positions ?? {};
  const unknown = firstUnknown(parsed.expr, new Set());
  if (unknown) {
    const offset = positions[String(unknown.id)] ?? 0;
    return unknown.kind === 'variable'
      ? { message: `unknown variable "${unknown.name}" (known: ${POLICY_VARIABLES.join(', ')})`, offset }
      : { message: `unknown function "${unknown.name}"`, offset };
  }
  const run = plan(ENV, parsed);
  return {
    source,
    test(vars: PolicyVars): boolean | string {
      let r: unknown;
      try {
        r = run({ ...vars, args: celArgs(vars.args) } as Record<string, CelInput>);
      } catch (e) {
        return (e as Error).message;
      }
      if (isCelError(r)) return r.message;
      if (typeof r !== 'boolean') return `the expression gave ${typeof r === 'bigint' ? 'an int' : typeof r}, not true or false`;
      return r;
    },
  };
}

export function isCelProblem(v: PolicyCondition | CelProblem): v is CelProblem {
  return 'offset' in v;
}

interface Unknown {
  kind: 'variable' | 'function';
  name: string;
  id: bigint;
}

interface AstNode {
  id: bigint;
  exprKind: { case: string | undefined; value?: unknown };
}

/** The first identifier no rule may use or function the evaluator does not have, in source order. */
function firstUnknown(e: AstNode | undefined, bound: ReadonlySet<string>): Unknown | undefined {
  if (!e) return undefined;
  const v = e.exprKind.value as Record<string, unknown>;
  switch (e.exprKind.case) {
    case 'identExpr': {
      const name = v.name as string;
      return DECLARED.has(name) || bound.has(name) ? undefined : { kind: 'variable', name, id: e.id };
    }
    case 'selectExpr':
      return firstUnknown(v.operand as AstNode, bound);
    case 'callExpr': {
      const fn = v.function as string;
      const inner = firstIn([v.target as AstNode, ...(v.args as AstNode[])], bound);
      if (inner) return inner;
      return PLANNED.has(fn) || ENV.funcs.find(fn) ? undefined : { kind: 'function', name: fn, id: e.id };
    }
    case 'listExpr':
      return firstIn(v.elements as AstNode[], bound);
    case 'structExpr':
      return firstIn(
        (v.entries as Array<{ mapKey?: AstNode; value?: AstNode }>).flatMap((x) => [x.mapKey, x.value] as AstNode[]),
        bound,
      );
    case 'comprehensionExpr': {
      const inner = new Set([...bound, v.iterVar as string, v.iterVar2 as string, v.accuVar as string]);
      return (
        firstIn([v.iterRange as AstNode, v.accuInit as AstNode], bound) ??
        firstIn([v.loopCondition as AstNode, v.loopStep as AstNode, v.result as AstNode], inner)
      );
    }
    default:
      return undefined;
  }
}

function firstIn(nodes: ReadonlyArray<AstNode | undefined>, bound: ReadonlySet<string>): Unknown | undefined {
  for (const n of nodes) {
    const u = firstUnknown(n, bound);
    if (u) return u;
  }
  return undefined;
}

// The rules of one call see the same arguments: converted once (evaluation is synchronous, so one entry does).
let lastArgs: unknown;
let lastConverted: unknown;

function celArgs(args: unknown): unknown {
  if (args !== lastArgs || lastConverted === undefined) {
    lastConverted = celValue(args);
    lastArgs = args;
  }
  return lastConverted;
}

/** JSON as CEL sees it: objects become maps (CEL reads a plain object as no map), lists stay lists. */
function celValue(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(celValue);
  if (v !== null && typeof v === 'object') {
    const m = new Map<string, unknown>();
    for (const [k, x] of Object.entries(v)) m.set(k, celValue(x));
    return m;
  }
  return v ?? null;
}
