/** Where a rule is written (callers.yaml line, column, field path). */
interface Where {
  line: number;
  column: number;
  field: string;
}

/** What a `when` expression sees of a call (docs/policy.md, "CEL variables"). */
export interface PolicyVars {
  caller: string;
  face: string;
  method: string;
  client: string;
  /** The tool's name as the caller sees it; empty for other calls. */
  tool: string;
  /** The resource's URI (reads, subscriptions, resource completions); empty for other calls. */
  uri: string;
  /** The call's arguments (a tool's arguments, a prompt's arguments); an empty map when none. */
  args: unknown;
}

/** A `when` expression, checked and planned at load: evaluating it is a plain function call. */
export interface PolicyCondition {
  readonly source: string;
  /** true / false, or the reason it could not be evaluated (the rule then denies: fail closed). */
  test(vars: PolicyVars): boolean | string;
}

/** `rate: "10/minute"`: a token bucket of `tokens`, refilled evenly over `perMs`. */
export interface PolicyRate {
  readonly text: string;
  readonly tokens: number;
  readonly perMs: number;
}

/** One quota in use (a rule's `rate:` for one caller and target), as status shows it. */
export interface PolicyQuota {
  rule: string;
  caller: string;
  /** `tool:NAME`, `resource:URI` or `prompt:NAME`. */
  target: string;
  rate: string;
  /** Calls left now. */
  remaining: number;
}

/** One rule of `policies:` in callers.yaml, in the order written: the first that matches decides. */
export interface PolicyRule {
  readonly name: string;
  /** Caller globs; empty = every caller. */
  readonly callers: readonly string[];
  readonly effect: 'allow' | 'deny';
  /** Target globs per kind; a kind left out is not covered, all three left out = every target. */
  readonly tools?: readonly string[];
  readonly resources?: readonly string[];
  readonly prompts?: readonly string[];
  readonly when?: PolicyCondition;
  readonly rate?: PolicyRate;
  readonly where: Where;
}
