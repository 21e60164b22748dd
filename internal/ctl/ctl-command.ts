import type { ParseArgsConfig } from 'node:util';
import type { ControlPlaneClient } from '../contract/gen/mcpd/control/v1/control.js';

/** Where a command prints: `json` set by the global --json. */
export interface Out {
  json: boolean;
  write: (s: string) => void;
  /** stderr: warnings that must not mix with the output. */
  warn: (s: string) => void;
}

/** One command-specific flag: its parseArgs type and the line `mcpdctl help CMD` shows. */
export interface CtlFlag {
  type: 'string' | 'boolean';
  short?: string;
  /** The value's placeholder in help ("JSON", "MS"); absent for a boolean. */
  value?: string;
  help: string;
}

export interface CtlRun {
  /** Connected and ready, unless the command is `offline`. */
  client: ControlPlaneClient;
  out: Out;
  socket: string;
  /** The positional arguments after the command name, already counted against `args`. */
  args: string[];
  /** Parsed flags, the global ones (--socket, --config, --json) included. */
  flags: Record<string, string | boolean | undefined>;
}

/**
 * An mcpdctl command. `args` names its positionals ("<caller> [server]"): required ones in <>, optional
 * ones in []; the driver rejects fewer or more than that with the command's own usage.
 */
export interface CtlCommand {
  name: string;
  args: string;
  summary: string;
  /** Extra lines for `mcpdctl help NAME`. */
  details?: string;
  flags?: Record<string, CtlFlag>;
  /** The first positional is a caller: a caller not in callers.yaml gets a warning naming the known ones. */
  caller?: boolean;
  /** Needs no core (validate). */
  offline?: boolean;
  /** A hint printed after "unexpected argument" (e.g. how to pass tool arguments). */
  extraArgsHint?: string;
  /** Exit code (0 when void). */
  run(r: CtlRun): Promise<number | void>;
  /**
   * A command with a grammar of its own (`smcp`, which talks to an SMCP Server, not the core): it gets
   * argv as given, without its name, and parses, helps and connects by itself.
   */
  passThrough?(argv: string[], io: { out: (s: string) => void; err: (s: string) => void }): Promise<number>;
}

/** parseArgs options for a command's flags. */
export function parseOptions(flags: Record<string, CtlFlag> = {}): NonNullable<ParseArgsConfig['options']> {
  const o: NonNullable<ParseArgsConfig['options']> = {};
  for (const [name, f] of Object.entries(flags)) o[name] = f.short ? { type: f.type, short: f.short } : { type: f.type };
  return o;
}

/** A flag's string value (parseArgs typed it as asked). */
export function str(v: string | boolean | undefined): string | undefined {
  return typeof v === 'string' ? v : undefined;
}
