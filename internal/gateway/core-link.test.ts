import { afterEach, describe, expect, it, vi } from 'vitest';
import { CoreLink } from './core-link.js';
import type { SessionClient } from '../contract/session/session-client.js';

/** The part of a Session the link reads once connected. */
function session(): SessionClient {
  return {
    isClosed: false,
    welcome: { sessionId: 's1', coreId: 'c1', profile: 'default' },
    onClose: () => undefined,
    close: () => undefined,
  } as unknown as SessionClient;
}

/** A link with --no-autostart whose every attempt is a promise the test settles (or fails at once: nothing listens). */
function link(nothingListens = false) {
  const attempts: { resolve: (s: SessionClient) => void; reject: (e: Error) => void }[] = [];
  const l = new CoreLink({
    socket: '/nonexistent/mcpd-core-link.sock',
    caller: 'test',
    log: () => undefined,
    onConnected: () => undefined,
    open: () =>
      nothingListens
        ? Promise.reject(new Error('connect ENOENT'))
        : new Promise<SessionClient>((resolve, reject) => attempts.push({ resolve, reject })),
  });
  return { l, attempts };
}

describe('a gateway that may not start a core and never reached one', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('waits for a connection under way past the short wait: a core slow to answer on a loaded machine is found', async () => {
    vi.useFakeTimers();
    const { l, attempts } = link();
    const got = l.session(15_000);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(attempts).toHaveLength(1);
    attempts[0]?.resolve(session());
    await expect(got).resolves.toMatchObject({ welcome: { sessionId: 's1' } });
  });

  it('fails at once when that attempt fails, naming the socket and --no-autostart', async () => {
    vi.useFakeTimers();
    const { l, attempts } = link();
    const got = l.session(15_000);
    const outcome = got.then(
      () => 'connected',
      (e: Error) => e.message,
    );
    await vi.advanceTimersByTimeAsync(3_000);
    attempts[0]?.reject(new Error('connect ECONNREFUSED'));
    await vi.advanceTimersByTimeAsync(0);
    expect(await outcome).toMatch(/no mcpd core reachable at \/nonexistent\/mcpd-core-link\.sock; .*--no-autostart/);
    l.close();
  });

  it('fails within the short wait when no attempt is under way (nothing listens on the socket)', async () => {
    vi.useFakeTimers();
    const { l } = link(true);
    const got = l.session(15_000).then(
      () => 'connected',
      (e: Error) => e.message,
    );
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await got).toMatch(/no mcpd core reachable/);
    l.close();
  });
});
