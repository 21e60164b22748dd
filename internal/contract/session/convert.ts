import type { StatusView } from '../control/control.js';
import type { NameCollision, ToolEntry, ToolSnapshot } from '../model/tool.js';
import type * as pb from '../gen/mcpd/control/v1/control.js';
import { encodeJson } from './json-bytes.js';
import { describeSandbox, type SandboxSpec } from '../model/sandbox.js';

const sandboxNote = (s: SandboxSpec | undefined, optOut: boolean): string =>
  s ? `  [sandbox ${describeSandbox(s)}]` : optOut ? '  [unsandboxed: sandbox: false]' : '';

/**
 * Snapshot entries are immutable and listed again and again (every page, every client): encode each
 * definition once.
 */
const encoded = new WeakMap<object, Buffer>();

function encodedDefinition(definition: object): Buffer {
  let b = encoded.get(definition);
  if (!b) {
    b = encodeJson(definition);
    encoded.set(definition, b);
  }
  return b;
}

export function toolToPb(t: ToolEntry): pb.ToolDefinition {
  return { name: t.name, server: t.server, toolJson: encodedDefinition(t.definition), definitionHash: t.definitionHash };
}

export function collisionToPb(c: NameCollision): pb.Collision {
  return { name: c.name, servers: [...c.servers], resolution: c.resolution };
}

export function snapshotToPb(s: ToolSnapshot): pb.ToolsSnapshot {
  return { etag: s.etag, tools: s.tools.map(toolToPb), collisions: s.collisions.map(collisionToPb) };
}

export function statusToPb(s: StatusView): pb.RuntimeStatus {
  return {
    configDir: s.configDir,
    configIssues: s.configIssues,
    stopping: s.stopping,
    inFlightCalls: s.inFlightCalls,
    stopDeadlineUnixMs: s.stopDeadline ?? 0,
    callers: s.callers.map((c) => ({
      caller: c.caller,
      profile: c.profile,
      sessions: c.sessions,
      toolCount: c.toolCount ?? 0,
      toolTokens: c.toolTokens ?? 0,
      catalogCount: c.catalogCount ?? 0,
      catalogTokens: c.catalogTokens ?? 0,
    })),
    smcpComputers: (s.smcpComputers ?? []).map((c) => ({
      name: c.name,
      caller: c.caller,
      office: c.office,
      url: c.url,
      state: c.state,
      sid: c.sid ?? '',
      lastError: c.lastError ?? '',
      sinceUnixMs: c.since,
      joins: c.joins,
    })),
    policyQuotas: (s.policyQuotas ?? []).map((q) => ({ ...q })),
    pools: s.pools.map((p) => ({
      fingerprint: p.fingerprint,
      references: p.references,
      transport: p.spec.transport,
      strategy: p.spec.strategy,
      // A sandboxed server's grants ride on its target: status and the dashboard's pools view show them.
      target:
        p.spec.transport === 'stdio'
          ? p.spec.cmd.join(' ') + sandboxNote(p.spec.sandbox, p.spec.sandboxOptOut === true)
          : (p.spec.url ?? ''),
      waiting: p.waiting,
      suspended: p.suspended,
      suspendedReason: p.suspendedReason ?? '',
      restarts: p.restarts,
      lastError: p.lastError ?? '',
      lastErrorAtUnixMs: p.lastErrorAt ?? 0,
      errorHistory: p.errorHistory.map((e) => ({ atUnixMs: e.at, message: e.message })),
      maxInstances: p.spec.maxInstances,
      minReady: p.spec.minReady,
      protocolVersion: p.protocolVersion ?? '',
      asksClient: p.asksClient === true,
      instances: p.instances.map((i) => ({
        id: i.id,
        state: i.state,
        pid: i.pid ?? 0,
        inFlight: i.inFlight,
        startedAtUnixMs: i.startedAt,
        lastUsedAtUnixMs: i.lastUsedAt,
        startCause: i.startCause,
        boundKeys: i.boundKeys,
        pinnedKeys: i.pinnedKeys,
        protocolVersion: i.protocolVersion ?? '',
      })),
    })),
  };
}
