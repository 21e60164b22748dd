import { describe, expect, it } from 'vitest';
import type { LogEntry } from '../contract/gen/mcpd/control/v1/control.js';
import { formatEntry } from './ctl-logs.js';

const entry = (e: Partial<LogEntry>): LogEntry => ({
  timeUnixMs: Date.UTC(2026, 0, 2, 3, 4, 5),
  level: 'warning',
  source: 'core',
  server: '',
  instance: '',
  event: 'e',
  message: 'e',
  fieldsJson: Buffer.alloc(0),
  ...e,
});

describe('text log lines', () => {
  it('carry the fields that say why', () => {
    const fields = {
      server: 'fs',
      instance: 'fs-1',
      method: 'roots/list',
      reason: 'mcpd cannot forward roots/list: no caller request is in flight',
    };
    const line = formatEntry(
      entry({
        server: 'fs',
        instance: 'fs-1',
        event: 'server request refused',
        message: 'server request refused',
        fieldsJson: Buffer.from(JSON.stringify(fields)),
      }),
    );
    expect(line).toBe(
      '2026-01-02T03:04:05.000Z WARNING   fs/fs-1 core server request refused method=roots/list reason="mcpd cannot forward roots/list: no caller request is in flight"',
    );
  });

  it('leave stderr lines as the server wrote them', () => {
    expect(formatEntry(entry({ source: 'stderr', server: 'x', message: 'boom', fieldsJson: Buffer.from('{"a":1}') }))).toMatch(
      / x stderr boom$/,
    );
  });
});
