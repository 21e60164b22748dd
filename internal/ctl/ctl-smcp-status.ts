import type * as pb from '../contract/gen/mcpd/control/v1/control.js';
import { ago, renderTable, truncate } from './table.js';

/** The SMCP COMPUTERS section of `mcpdctl status`: one row per computer of runtime.yaml `smcp:`. */
export function smcpStatusTable(computers: readonly pb.SmcpComputerStatus[]): string {
  const rows = computers.map((c) => [
    c.name,
    c.caller,
    c.office,
    `${c.state} ${ago(c.sinceUnixMs)}`,
    c.sid || '-',
    String(c.joins),
    truncate(c.lastError, 60),
  ]);
  return `\nSMCP COMPUTERS (${computers[0]?.url ?? ''})\n${renderTable(['COMPUTER', 'CALLER', 'OFFICE', 'STATE', 'SID', 'JOINS', 'LAST ERROR'], rows)}`;
}
