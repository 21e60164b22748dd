import { McpdError } from '../shared/errors.js';
import type { ControlPlaneClient } from '../contract/gen/mcpd/control/v1/control.js';
import type * as pb from '../contract/gen/mcpd/control/v1/control.js';
import { callUnary } from '../contract/grpc/control-client.js';
import type { Out } from './ctl-command.js';
import { renderTable, truncate } from './table.js';

export interface DesktopFlags {
  size?: string;
  window?: string;
}

export interface FinderFlags {
  keywords?: string;
  type?: string;
  offset?: string;
  limit?: string;
}

function intFlag(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^-?\d+$/.test(value)) throw new McpdError('INVALID_ARGUMENT', `--${name} must be an integer, got ${JSON.stringify(value)}`);
  return Number(value);
}

/** `mcpdctl desktop <caller> [--size N] [--window URI]`: the organized windows, each under a header. */
export async function desktopCommand(client: ControlPlaneClient, caller: string, flags: DesktopFlags, out: Out): Promise<void> {
  const req: pb.GetDesktopRequest = { caller, desktopSize: intFlag('size', flags.size), window: flags.window ?? '' };
  const r = await callUnary<pb.GetDesktopRequest, pb.GetDesktopResponse>((q, cb) => client.getDesktop(q, cb), req);
  if (out.json) return out.write(`${JSON.stringify({ etag: r.etag, windows: r.windows, warnings: r.warnings }, null, 2)}\n`);
  r.windows.forEach((w, i) => out.write(`${i ? '\n' : ''}----- window ${i + 1} of ${r.windows.length} -----\n${w}\n`));
  if (r.windows.length === 0) out.write('the desktop is empty (no server of this profile exposes window:// resources with contents)\n');
  for (const w of r.warnings) out.write(`warning: ${w}\n`);
}

/** `mcpdctl finder <caller> [--keywords a,b] [--type md] [--offset N] [--limit N]`. */
export async function finderCommand(client: ControlPlaneClient, caller: string, flags: FinderFlags, out: Out): Promise<void> {
  const req: pb.GetFinderRequest = {
    caller,
    keywords: (flags.keywords ?? '').split(',').filter((k) => k.trim() !== ''),
    fileType: flags.type ?? '',
    offset: intFlag('offset', flags.offset) ?? 0,
    limit: intFlag('limit', flags.limit),
  };
  const r = await callUnary<pb.GetFinderRequest, pb.GetFinderResponse>((q, cb) => client.getFinder(q, cb), req);
  const docs = r.documentsJson.map((b) => JSON.parse(b.toString('utf8')) as Record<string, unknown>);
  if (out.json) return out.write(`${JSON.stringify({ documents: docs, total_count: r.totalCount }, null, 2)}\n`);
  const rows = docs.map((d) => [
    truncate(String(d.title ?? ''), 40),
    String(d.file_type ?? ''),
    String(d.server ?? ''),
    String(d.last_modified ?? '-'),
    String(d.uri ?? ''),
  ]);
  out.write(renderTable(['TITLE', 'TYPE', 'SERVER', 'MODIFIED', 'URI'], rows));
  const from = req.offset + (docs.length ? 1 : 0);
  out.write(`${docs.length ? `${from}–${req.offset + docs.length}` : 'none'} of ${r.totalCount} documents\n`);
}
