import type { PolicyQuota, PolicyRule, PolicyVars } from '../../../contract/model/policy.js';
import type { ProfileStore } from '../../../contract/model/profile.js';
import type { ToolEntry } from '../../../contract/model/tool.js';
import { McpdError } from '../../../shared/errors.js';
import { PolicyEngine, type TargetKind, type Verdict } from '../../domain/policy/policy-engine.js';
import type { DoorCall, Interceptor } from './interceptor.js';

/** The kind of target each area method names (its `target`), for calls and for lists and watches. */
const KIND_OF: Readonly<Record<string, TargetKind>> = {
  'tools/call': 'tool',
  'tools/list': 'tool',
  'tools/watch': 'tool',
  'resources/read': 'resource',
  'resources/subscribe': 'resource',
  'resources/list': 'resource',
  'resources/templates/list': 'resource',
  'resources/watch': 'resource',
  'prompts/get': 'prompt',
  'prompts/list': 'prompt',
  'prompts/watch': 'prompt',
};

/** What the policy needs around it: the running store's rules, a clock, and where decisions are counted. */
export interface PolicyDeps {
  store(): ProfileStore;
  /** Hears each store taken into use, so a change of rules reaches watches at once (not at the next call). */
  onStoreChange?(listener: () => void): void;
  now?: () => number;
  /** Every decision a rule made (mcpd_policy_decisions_total{rule,effect}). */
  decided?(rule: string, effect: 'allow' | 'deny'): void;
}

/**
 * Per-caller policy and quotas (callers.yaml `policies:`, docs/policy.md) on every face at once: lists
 * leave out what an unconditional deny covers, calls meet the first rule that matches. The rules follow
 * the running store: a reload (or an edit the watcher applied) builds a new engine, which keeps the
 * quotas of rules whose name and rate stayed. A refusal is an McpdError whose `details.data` is
 * `{ policyRule, retryAfterMs? }` (what the audit log records).
 */
export class Policy {
  private engine: PolicyEngine;
  private rulesOf: readonly PolicyRule[] | undefined;
  private rulesKey: string;
  /** Moves with each change of rules once there were any: tags list etags, so clients see the change. */
  private generation: number;
  private readonly listeners = new Set<() => void>();

  constructor(private readonly deps: PolicyDeps) {
    this.rulesOf = deps.store().policies;
    this.engine = new PolicyEngine(this.rulesOf ?? [], deps.now);
    this.rulesKey = keyOf(this.rulesOf);
    this.generation = this.rulesOf?.length ? 1 : 0;
    deps.onStoreChange?.(() => this.current());
  }

  /** The quotas in use, for status. */
  quotas(): PolicyQuota[] {
    return this.current().quotas();
  }

  /** The interceptor of `policyInterceptor`, below. */
  readonly interceptor: Interceptor = {
    name: 'policy',
    enter: (call) => this.enter(call),
    admit: (call, tool) => this.admit(call, tool),
    visible: (call, name) => this.visible(call, name),
    visibility: {
      epoch: () => (this.current(), this.generation),
      onChange: (listener) => {
        this.listeners.add(listener);
        return () => this.listeners.delete(listener);
      },
    },
  };

  private current(): PolicyEngine {
    const rules = this.deps.store().policies;
    if (rules !== this.rulesOf) {
      this.rulesOf = rules;
      const had = !this.engine.empty;
      this.engine = new PolicyEngine(rules ?? [], this.deps.now).adoptQuotas(this.engine);
      // An edit elsewhere in the store re-reads the same rules: what callers see did not change.
      const key = keyOf(rules);
      if (key !== this.rulesKey && (had || !this.engine.empty)) {
        this.generation++;
        for (const l of this.listeners) l();
      }
      this.rulesKey = key;
    }
    return this.engine;
  }

  private visible(call: DoorCall, name: string): boolean {
    const engine = this.current();
    const kind = KIND_OF[call.method];
    return engine.empty || kind === undefined || engine.visible(call.caller, kind, name);
  }

  /** Without rules (most stores) a call costs one comparison: no target is built. */
  private enter(call: DoorCall): McpdError | undefined {
    if (this.current().empty) return undefined;
    const t = targetOf(call);
    return t ? this.judge(call, t, call.args) : undefined;
  }

  /**
   * The tool a call of tool search's call tool names, judged (rules, conditions, quotas) as a direct call
   * of it is: `enter` saw only the call tool's name. A direct call was judged when it entered.
   */
  private admit(call: DoorCall, tool: ToolEntry): McpdError | undefined {
    const through = call.note.through;
    return through ? this.judge(call, { kind: 'tool', name: tool.name }, through.args) : undefined;
  }

  private judge(call: DoorCall, t: Target, args: unknown): McpdError | undefined {
    const engine = this.current();
    if (engine.empty) return undefined;
    const verdict = engine.decide(call.caller, t.kind, t.name, () => varsOf(call, t.kind, t.name, args));
    if (!verdict) return undefined;
    this.deps.decided?.(verdict.rule.name, verdict.effect);
    return verdict.effect === 'deny' ? refusal(call, t.kind, t.name, verdict) : undefined;
  }
}

/**
 * Per-caller policy and quotas (callers.yaml `policies:`): lists leave out what a rule denies outright, calls meet the first rule that matches.
 * `policy` holds the rules of the running store and the quotas (status reads them there).
 */
export function policyInterceptor(policy: Policy): Interceptor {
  return policy.interceptor;
}

/** The rules as written (what decides), without where they are written. */
function keyOf(rules: readonly PolicyRule[] | undefined): string {
  return JSON.stringify(
    (rules ?? []).map((r) => [r.name, r.callers, r.effect, r.tools, r.resources, r.prompts, r.when?.source, r.rate?.text]),
  );
}

interface Target {
  kind: TargetKind;
  name: string;
}

/** A call's target; a completion's is its `ref` (a prompt's name or a resource's URI or template). */
function targetOf(call: DoorCall): Target | undefined {
  if (call.method === 'completion/complete') {
    const ref = (call.args as { ref?: { type?: unknown; name?: unknown; uri?: unknown } } | undefined)?.ref;
    if (ref?.type === 'ref/prompt' && typeof ref.name === 'string') return { kind: 'prompt', name: ref.name };
    if (ref?.type === 'ref/resource' && typeof ref.uri === 'string') return { kind: 'resource', name: ref.uri };
    return undefined;
  }
  const kind = KIND_OF[call.method];
  return kind && call.target !== undefined ? { kind, name: call.target } : undefined;
}

function varsOf(call: DoorCall, kind: TargetKind, name: string, args: unknown): PolicyVars {
  return {
    caller: call.caller,
    face: call.face,
    method: call.method,
    client: call.client ?? '',
    tool: kind === 'tool' ? name : '',
    uri: kind === 'resource' ? name : '',
    args: args ?? {},
  };
}

const NOUN: Readonly<Record<TargetKind, string>> = { tool: 'tool', resource: 'resource', prompt: 'prompt' };

function refusal(call: DoorCall, kind: TargetKind, name: string, v: NonNullable<Verdict> & { effect: 'deny' }): McpdError {
  const { rule } = v;
  const what = `${NOUN[kind]} ${name}`;
  const at = `callers.yaml line ${rule.where.line}`;
  if (v.retryAfterMs !== undefined) {
    const secs = (v.retryAfterMs / 1000).toFixed(v.retryAfterMs < 10_000 ? 1 : 0);
    return new McpdError(
      'RESOURCE_EXHAUSTED',
      `quota of policy rule "${rule.name}" (${rule.rate?.text}, ${at}) is used up for ${call.caller} on ${what}: retry in ${secs} s`,
      { data: { policyRule: rule.name, retryAfterMs: v.retryAfterMs } },
    );
  }
  const why =
    v.failed !== undefined
      ? `its condition could not be evaluated for ${what} (${v.failed}), and a rule that cannot be evaluated denies`
      : `${call.caller} may not use ${what}`;
  return new McpdError('PERMISSION_DENIED', `denied by policy rule "${rule.name}" (${at}): ${why}`, { data: { policyRule: rule.name } });
}
