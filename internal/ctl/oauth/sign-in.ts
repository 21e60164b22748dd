import { randomBytes } from 'node:crypto';
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { McpdError } from '../../shared/errors.js';
import type { ServerSpec } from '../../contract/model/spec.js';
import { probeChallenge } from './challenge-probe.js';
import { listenForRedirect, type RedirectListener } from './loopback-redirect.js';
import { StoredOAuthProvider } from '../../contract/oauth/provider.js';
import type { OAuthStore } from '../../contract/oauth/token-store.js';

export interface SignInOptions {
  /** Loopback port of the redirect listener; default the one the stored client was registered with, else any. */
  port?: number;
  /** How long to wait for the browser to come back. */
  timeoutMs: number;
  /** Shows the authorization URL (printed, and opened unless the user said not to). */
  showUrl: (url: URL) => void;
  signal?: AbortSignal;
}

export interface SignInOutcome {
  status: 'signed-in';
  /** The scope asked for, when one was. */
  scope?: string;
}

/**
 * `mcpdctl auth`: discovery, registration (dynamic, client metadata document or pre-registered),
 * PKCE authorization through the browser and a loopback redirect, token exchange — all by the SDK's
 * `auth()` with our provider — and the tokens stored for the core to use.
 */
export async function signIn(spec: ServerSpec, fingerprint: string, store: OAuthStore, o: SignInOptions): Promise<SignInOutcome> {
  if (spec.transport === 'stdio' || !spec.url) {
    throw new McpdError('INVALID_ARGUMENT', `server ${spec.name} uses transport stdio: only streamable_http and sse servers sign in`);
  }
  const challenge = await probeChallenge(spec, o.signal);
  const before = store.read(fingerprint);
  const scope = before.pendingScope ?? challenge.scope;
  const state = randomBytes(24).toString('base64url');
  const listener = await listen(o.port, portOf(before.redirectUri), state);
  try {
    // A dynamically registered client is bound to its redirect URI: another port means registering again.
    if (before.redirectUri && before.redirectUri !== listener.redirectUrl && !spec.oauth?.clientId) {
      store.update(fingerprint, (r) => ({ ...r, clientInformation: undefined, redirectUri: undefined }));
    }
    const provider = new StoredOAuthProvider(spec, fingerprint, store, {
      redirectUrl: listener.redirectUrl,
      state,
      onAuthorizationUrl: o.showUrl,
    });
    const args = { serverUrl: spec.url, scope, resourceMetadataUrl: challenge.resourceMetadataUrl };
    const first = await auth(provider, args).catch((e: unknown) => {
      if (challenge.challenged || before.pendingScope) throw e;
      // Discovery failed on a server that never asked for a token: say that, not just the HTTP detail.
      throw new McpdError(
        'FAILED_PRECONDITION',
        `server ${spec.name} answered without asking for sign-in and publishes no usable OAuth metadata (${(e as Error).message}); nothing to sign in to`,
      );
    });
    if (first === 'REDIRECT') {
      const code = await waitFor(listener.code, o.timeoutMs, o.signal);
      await auth(provider, { ...args, authorizationCode: code });
    }
    return { status: 'signed-in', scope };
  } finally {
    await listener.close();
  }
}

function portOf(uri: string | undefined): number | undefined {
  if (!uri) return undefined;
  const p = Number(new URL(uri).port);
  return Number.isInteger(p) && p > 0 ? p : undefined;
}

/**
 * The redirect listener: on the port asked for (an error when taken), else on the port the stored
 * client was registered with when free, else on any free port.
 */
async function listen(asked: number | undefined, registered: number | undefined, state: string): Promise<RedirectListener> {
  if (asked !== undefined || registered === undefined) return listenForRedirect({ port: asked, state });
  try {
    return await listenForRedirect({ port: registered, state });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw e;
    return listenForRedirect({ state });
  }
}

function waitFor<T>(p: Promise<T>, ms: number, signal?: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(
      () =>
        reject(new McpdError('DEADLINE_EXCEEDED', `no answer from the browser within ${Math.round(ms / 1000)} s; run mcpdctl auth again`)),
      ms,
    );
    const onAbort = () => reject(new McpdError('CANCELLED', 'sign-in cancelled'));
    signal?.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    });
  });
}
