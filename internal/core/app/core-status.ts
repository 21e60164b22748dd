import type { StatusView, Subscription } from '../../contract/control/control.js';
import { LatestWins } from '../domain/aggregator/newest-wins.js';
import { formatIssue } from '../../shared/errors.js';
import { secretRedactor } from '../../shared/redactor.js';
import type { CallerStatusRow } from '../../contract/model/runtime.js';
import type { PolicyQuota } from '../../contract/model/policy.js';
import type { SmcpComputerStatus } from '../../contract/model/smcp-computer-settings.js';
import type { ToolSnapshot } from '../../contract/model/tool.js';
import { toolListTokens } from '../../contract/model/tool-tokens.js';
import type { CallGate } from './call-gate.js';
import type { CallerRegistry } from './caller-registry.js';
import type { PoolPort } from './pool-port.js';
import type { StoreState } from './store-state.js';
import type { ToolService } from './tool-service.js';

export interface StatusSources {
  store: StoreState;
  pools: PoolPort;
  callers: CallerRegistry;
  tools: ToolService;
  calls: CallGate;
  smcpStatus(): SmcpComputerStatus[];
  policyQuotas(): PolicyQuota[];
}

/** The core's status view (what `mcpdctl status` and the dashboard show) and its watchers, latest wins. */
export class CoreStatus {
  private readonly channel = new LatestWins<StatusView>();

  constructor(private readonly s: StatusSources) {}

  view(): StatusView {
    const { s } = this;
    // Last errors and config issues can quote a server's output or a URL: mask every known secret.
    return secretRedactor.value({
      configDir: s.store.current.dir,
      configIssues: s.store.issuesNow().map(formatIssue),
      pools: s.store.redactPools(s.pools.status()),
      callers: s.callers.summary().map((row) => ({ ...row, ...this.toolCosts(row.profile) })),
      stopping: s.calls.closed,
      inFlightCalls: s.calls.inFlight,
      stopDeadline: s.calls.stopDeadline,
      smcpComputers: s.smcpStatus(),
      policyQuotas: s.policyQuotas(),
    });
  }

  watch(): Subscription<StatusView> {
    if (this.channel.current() === undefined) this.channel.publish(this.view());
    return this.channel.subscribe();
  }

  /** Status watchers see a change (only computed when someone watches). */
  publish(): void {
    if (this.channel.subscriberCount > 0) this.channel.publish(this.view());
  }

  get subscriberCount(): number {
    return this.channel.subscriberCount;
  }

  close(): void {
    this.channel.close();
  }

  /** Tool counts and estimated tokens of what a profile's callers are given (and of the catalog in search mode). */
  private toolCosts(profile: string): Partial<CallerStatusRow> {
    let snap: ToolSnapshot;
    try {
      snap = this.s.tools.index(profile).snapshot();
    } catch {
      // A profile without an index (not loaded yet, or gone in a reload) has nothing to count.
      return {};
    }
    const listed = { toolCount: snap.tools.length, toolTokens: toolListTokens(snap.tools) };
    return snap.catalog ? { ...listed, catalogCount: snap.catalog.length, catalogTokens: toolListTokens(snap.catalog) } : listed;
  }
}
