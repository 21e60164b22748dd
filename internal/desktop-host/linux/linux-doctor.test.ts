import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { linuxDoctor } from './linux-doctor.js';

describe('linuxDoctor names exactly what is missing', () => {
  const emptyPath = mkdtempSync(join(tmpdir(), 'mcpd-doctor-'));
  afterAll(() => rmSync(emptyPath, { recursive: true, force: true }));
  const unreachable = () => Promise.reject(new Error('no such bus'));

  it('no display, no session bus', async () => {
    const r = await linuxDoctor({ PATH: process.env.PATH }, unreachable);
    expect(r.healthy).toBe(false);
    expect(r.issues).toContain('display: DISPLAY is not set: no display');
    expect(r.issues).toContain('accessibility: DBUS_SESSION_BUS_ADDRESS is not set: no session bus, so no a11y bus');
    expect(r.permissions.accessibility).toMatchObject({ granted: false, required: true });
  });

  it('no xdotool, no ImageMagick (nothing on PATH), a bus without AT-SPI', async () => {
    const r = await linuxDoctor({ PATH: emptyPath, DISPLAY: ':99', DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent' }, unreachable);
    expect(r.issues).toEqual([
      'accessibility: no a11y bus or registry: no such bus (install at-spi2-core)',
      'display: display :99 is not usable: xdotool is not installed',
      'input: xdotool is not installed (apt-get install xdotool)',
      'screenRecording: ImageMagick import is not installed (apt-get install imagemagick)',
    ]);
  });

  it('healthy when every check passes', async () => {
    const r = await linuxDoctor({ PATH: process.env.PATH, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/x' }, () => Promise.resolve([]));
    expect(r.permissions.accessibility?.granted).toBe(true);
    expect(r.permissions.input?.granted).toBe(true); // xdotool is installed on this machine kind
    expect(r.permissions.screenRecording?.granted).toBe(true);
  });
});
