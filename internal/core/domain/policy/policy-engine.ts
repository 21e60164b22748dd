import type { PolicyQuota, PolicyRule, PolicyVars } from '../../../contract/model/policy.js';
import { anyGlob, type Glob } from './glob.js';
import { TokenBucket } from './token-bucket.js';

/** What a rule covers: a tool by its name, a resource (or template) by its URI, a prompt by its name. */
export type TargetKind = 'tool' | 'resource' | 'prompt';

/** A rule with its globs compiled. */
interface Compiled {
  readonly rule: PolicyRule;
  readonly index: number;
  readonly caller: Glob;
  /** Per kind: the glob, or undefined when the rule does not cover that kind. */
  readonly targets: Readonly<Record<TargetKind, Glob | undefined>>;
}

/** How the rules decided a call: no rule matched (allowed), or the rule that did and why. */
export type Verdict =
  | undefined
  | { readonly rule: PolicyRule; readonly effect: 'allow' }
  | { readonly rule: PolicyRule; readonly effect: 'deny'; readonly failed?: string; readonly retryAfterMs?: number };

// Caches are per caller; a caller reading ever new URIs must not grow them without end.
const MAX_CACHED_TARGETS = 4096;
const MAX_BUCKETS = 10_000;

/**
 * The rules of callers.yaml `policies:`, compiled once per store (docs/policy.md). For each caller and
 * target, the rules that can apply are found once and cached: the ones up to and including the first
 * without `when`, since that one always decides. A call then only evaluates the `when`s among them, and a
 * list only looks at whether the first candidate is an unconditional deny. No promise, no I/O.
 */
export class PolicyEngine {
  private readonly compiled: readonly Compiled[];
  private readonly candidates = new Map<string, Map<string, readonly Compiled[]>>();
  private readonly buckets = new Map<string, { bucket: TokenBucket; rule: PolicyRule; caller: string; target: string }>();

  constructor(
    readonly rules: readonly PolicyRule[],
    private readonly now: () => number = Date.now,
  ) {
    this.compiled = rules.map((rule, index) => {
      const all = !rule.tools && !rule.resources && !rule.prompts;
      const kind = (globs: readonly string[] | undefined) => (globs ? anyGlob(globs) : all ? () => true : undefined);
      return {
        rule,
        index,
        caller: anyGlob(rule.callers),
        targets: { tool: kind(rule.tools), resource: kind(rule.resources), prompt: kind(rule.prompts) },
      };
    });
  }

  get empty(): boolean {
    return this.compiled.length === 0;
  }

  /** Whether a list shows this entry to the caller: hidden only when an unconditional deny decides it. */
  visible(caller: string, kind: TargetKind, name: string): boolean {
    const first = this.candidatesFor(caller, kind, name)[0];
    return !(first && first.rule.effect === 'deny' && !first.rule.when);
  }

  /** The rule that decides a call (`vars` is made only when a `when` has to be evaluated). */
  decide(caller: string, kind: TargetKind, target: string, vars: () => PolicyVars): Verdict {
    let made: PolicyVars | undefined;
    for (const c of this.candidatesFor(caller, kind, target)) {
      const { rule } = c;
      if (rule.when) {
        const r = rule.when.test((made ??= vars()));
        // Fail closed: an expression that cannot be evaluated denies, and says why.
        if (typeof r === 'string') return { rule, effect: 'deny', failed: r };
        if (!r) continue;
      }
      if (rule.effect === 'deny') return { rule, effect: 'deny' };
      if (rule.rate) {
        const wait = this.bucket(c, caller, `${kind}:${target}`).take(this.now());
        if (wait > 0) return { rule, effect: 'deny', retryAfterMs: wait };
      }
      return { rule, effect: 'allow' };
    }
    return undefined;
  }

  /** The quotas in use (a bucket back to full is forgotten: a new one would be full too). */
  quotas(): PolicyQuota[] {
    this.forgetFull();
    const now = this.now();
    return [...this.buckets.values()].map((b) => ({
      rule: b.rule.name,
      caller: b.caller,
      target: b.target,
      rate: b.rule.rate?.text ?? '',
      remaining: b.bucket.remaining(now),
    }));
  }

  /**
   * Takes over the buckets of `old` (the rules before a reload) whose rule kept its name and rate, so an
   * edit elsewhere in callers.yaml does not hand every caller a fresh quota.
   */
  adoptQuotas(old: PolicyEngine): this {
    const byName = new Map(this.compiled.map((c) => [c.rule.name, c]));
    for (const b of old.buckets.values()) {
      const c = byName.get(b.rule.name);
      if (!c?.rule.rate || c.rule.rate.text !== b.rule.rate?.text) continue;
      this.buckets.set(`${c.index}\u0000${b.caller}\u0000${b.target}`, { ...b, rule: c.rule });
    }
    return this;
  }

  private candidatesFor(caller: string, kind: TargetKind, target: string): readonly Compiled[] {
    let byTarget = this.candidates.get(caller);
    if (!byTarget) this.candidates.set(caller, (byTarget = new Map()));
    const key = `${kind}:${target}`;
    let found = byTarget.get(key);
    if (found) return found;
    const list: Compiled[] = [];
    for (const c of this.compiled) {
      if (!c.caller(caller) || !c.targets[kind]?.(target)) continue;
      list.push(c);
      if (!c.rule.when) break; // it always decides: the rules after it never apply
    }
    if (byTarget.size >= MAX_CACHED_TARGETS) byTarget.clear();
    byTarget.set(key, (found = list));
    return found;
  }

  private bucket(c: Compiled, caller: string, target: string): TokenBucket {
    const key = `${c.index}\u0000${caller}\u0000${target}`;
    let b = this.buckets.get(key);
    if (!b) {
      if (this.buckets.size >= MAX_BUCKETS) this.forgetFull();
      const rate = c.rule.rate as NonNullable<PolicyRule['rate']>;
      b = { bucket: new TokenBucket(rate.tokens, rate.perMs, this.now()), rule: c.rule, caller, target };
      this.buckets.set(key, b);
    }
    return b.bucket;
  }

  private forgetFull(): void {
    const now = this.now();
    for (const [k, b] of this.buckets) if (b.bucket.full(now)) this.buckets.delete(k);
  }
}
