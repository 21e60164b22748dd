import { Metadata } from '@grpc/grpc-js';
import type { ControlPlaneClient, LogEntry } from '../contract/gen/mcpd/control/v1/control.js';
import { isMcpdError } from '../shared/errors.js';
import { collectStream } from '../contract/grpc/control-client.js';
import { LOGS_FOLLOW_METADATA } from '../contract/areas/logs.js';
import { parseLevel } from '../contract/model/log-level.js';
import type { Out } from './ctl-command.js';

export interface LogsFlags {
  level?: string;
  follow?: boolean;
}

/**
 * `mcpdctl logs <caller>`: the recent entries the caller may see (its servers' stderr and log messages,
 * core events about them), then exit; with --follow, keep printing new ones until Ctrl-C.
 * --json prints one JSON object per line (JSON Lines), for jq.
 */
export async function logsCommand(client: ControlPlaneClient, caller: string, flags: LogsFlags, out: Out): Promise<number> {
  const level = parseLevel(flags.level, 'info', '--level');
  const md = new Metadata();
  md.set(LOGS_FOLLOW_METADATA, flags.follow ? 'true' : 'false');
  const stream = client.streamLogs({ caller, minLevel: level }, md);
  const onSignal = () => stream.cancel();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    await collectStream(stream, (e) => out.write(out.json ? `${JSON.stringify(entryJson(e))}\n` : `${formatEntry(e)}\n`));
  } catch (e) {
    if (isMcpdError(e) && e.reason === 'CANCELLED') return 0;
    throw e;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  return 0;
}

function fieldsOf(e: LogEntry): Record<string, unknown> | undefined {
  if (!e.fieldsJson || e.fieldsJson.length === 0) return undefined;
  try {
    return JSON.parse(Buffer.from(e.fieldsJson).toString('utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

function entryJson(e: LogEntry): Record<string, unknown> {
  return {
    time: new Date(Number(e.timeUnixMs)).toISOString(),
    level: e.level,
    source: e.source,
    ...(e.server ? { server: e.server } : {}),
    ...(e.instance ? { instance: e.instance } : {}),
    event: e.event,
    message: e.message,
    ...(fieldsOf(e) ? { fields: fieldsOf(e) } : {}),
  };
}

/**
 * `2024-05-01T10:00:00.000Z WARNING  echo/echo-3 core server request refused method=roots/list reason="…"`:
 * the text form carries the entry's fields (why, which method …) as key=value, as the JSON form does.
 */
export function formatEntry(e: LogEntry): string {
  const who = e.server ? `${e.server}${e.instance ? `/${e.instance}` : ''}` : 'mcpd';
  const what = e.source === 'core' ? `${e.event}: ${e.message === e.event ? '' : e.message}`.replace(/: $/, '') : e.message;
  const fields = e.source === 'core' ? fieldsText(fieldsOf(e), what) : '';
  return `${new Date(Number(e.timeUnixMs)).toISOString()} ${e.level.toUpperCase().padEnd(9)} ${who} ${e.source} ${what}${fields}`;
}

/** ` key=value …` for the fields the line does not show yet; values with spaces or quotes are JSON-quoted. */
function fieldsText(fields: Record<string, unknown> | undefined, shown: string): string {
  if (!fields) return '';
  const parts: string[] = [];
  for (const [k, v] of Object.entries(fields)) {
    if (v === undefined || v === null || k === 'server' || k === 'instance' || k === 'message') continue;
    const text = typeof v === 'string' ? v : JSON.stringify(v);
    if (text === '' || shown.includes(text)) continue;
    parts.push(`${k}=${/^[^\s"=]+$/.test(text) ? text : JSON.stringify(text)}`);
  }
  return parts.length ? ` ${parts.join(' ')}` : '';
}
