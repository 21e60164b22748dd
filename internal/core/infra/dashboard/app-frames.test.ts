import { describe, expect, it } from 'vitest';
import { AppFrames } from './app-frames.js';

const idOf = (src: string) => src.slice('/app/frame/'.length);
const WHOSE = { caller: 'vscode', tool: 'srv__t', uri: 'ui://srv/t.html', server: 'srv' };

describe('prepared app frames', () => {
  it('are served once, under an unguessable id', () => {
    const frames = new AppFrames();
    const a = frames.add({ html: '<p>a</p>', csp: "default-src 'none'" }, WHOSE);
    const b = frames.add({ html: '<p>b</p>', csp: "default-src 'none'" }, WHOSE);
    expect(a).toMatch(/^\/app\/frame\/[A-Za-z0-9_-]{22}$/);
    expect(a).not.toBe(b);
    expect(frames.take(idOf(a))).toEqual({ html: '<p>a</p>', csp: "default-src 'none'" });
    expect(frames.take(idOf(a))).toBeUndefined();
    expect(frames.take('nope')).toBeUndefined();
    expect(frames.take(idOf(b))?.html).toBe('<p>b</p>');
  });

  it('are logged for review with whose app and its CSP, never the HTML', () => {
    const logged: unknown[] = [];
    new AppFrames((f) => logged.push(f)).add({ html: '<p>secret-ish</p>', csp: "default-src 'none'" }, WHOSE);
    expect(logged).toEqual([{ ...WHOSE, csp: "default-src 'none'" }]);
  });

  it('expire after a minute', () => {
    let now = 1_000;
    const frames = new AppFrames(undefined, () => now);
    const src = frames.add({ html: 'x', csp: 'y' }, WHOSE);
    now += 60_000;
    expect(frames.take(idOf(src))).toBeUndefined();
  });

  it('keep at most 64 waiting: the oldest go first', () => {
    const frames = new AppFrames();
    const srcs = Array.from({ length: 65 }, (_, i) => frames.add({ html: String(i), csp: '' }, WHOSE));
    expect(frames.take(idOf(srcs[0] as string))).toBeUndefined();
    expect(frames.take(idOf(srcs[1] as string))?.html).toBe('1');
    expect(frames.take(idOf(srcs[64] as string))?.html).toBe('64');
  });
});
