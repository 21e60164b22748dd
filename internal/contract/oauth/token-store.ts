import { chmodSync, closeSync, constants, fstatSync, mkdirSync, openSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import { McpdError } from '../../shared/errors.js';
import type { SignInVerdict } from './sign-in-state.js';
import { secretRedactor } from '../../shared/redactor.js';
import { assertPrivateDir, foreignControl, UntrustedPathError } from '../../shared/file-trust.js';

/** What is kept for one server spec (by fingerprint): exactly what the SDK handed us, plus our notes. */
export interface OAuthRecord {
  /** For people reading the directory: which server and URL this is. */
  server?: string;
  url?: string;
  clientInformation?: OAuthClientInformationMixed;
  tokens?: OAuthTokens;
  discoveryState?: OAuthDiscoveryState;
  /** The redirect URI the stored client was registered with (dynamic registration binds it). */
  redirectUri?: string;
  /** Scope the server last asked for and the stored token lacks (step-up); the next sign-in asks for it. */
  pendingScope?: string;
  /** When the stored access token runs out (from its expires_in when it was saved). */
  tokensExpireAtUnixMs?: number;
  /** The core lost the sign-in (the authorization server refused a refresh): why, until the next sign-in. */
  lost?: SignInVerdict & { atUnixMs: number };
  savedAtUnixMs?: number;
}

/**
 * OAuth state per server spec fingerprint in `<stateDir>/oauth/` — a 0700 directory of 0600 JSON
 * files, replaced atomically (write + rename) so the core and `mcpdctl auth` never see half a file.
 * Every token and client secret read or written is handed to the process redactor first.
 * A directory or file another user owns or can write is refused, as the store's are: whoever can plant
 * a record here could point a sign-in at a client or tokens of their choosing.
 */
export class OAuthStore {
  constructor(readonly dir: string) {}

  static inStateDir(stateDir: string): OAuthStore {
    return new OAuthStore(join(stateDir, 'oauth'));
  }

  file(fingerprint: string): string {
    if (!/^[0-9a-f]{16,64}$/.test(fingerprint)) throw new McpdError('INVALID_ARGUMENT', `not a spec fingerprint: ${fingerprint}`);
    return join(this.dir, `${fingerprint}.json`);
  }

  read(fingerprint: string): OAuthRecord {
    const text = this.readOwn(this.file(fingerprint));
    if (text === undefined) return {};
    let rec: OAuthRecord;
    try {
      rec = JSON.parse(text) as OAuthRecord;
    } catch {
      // A damaged file only costs a new sign-in; it must not stop the server from being asked.
      return {};
    }
    remember(fingerprint, rec);
    return rec;
  }

  update(fingerprint: string, change: (r: OAuthRecord) => OAuthRecord): OAuthRecord {
    const next = { ...change(this.read(fingerprint)), savedAtUnixMs: Date.now() };
    remember(fingerprint, next);
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    this.checkDir();
    chmodSync(this.dir, 0o700);
    const target = this.file(fingerprint);
    const tmp = `${target}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
    renameSync(tmp, target);
    return next;
  }
  private checkDir(): void {
    assertPrivateDir(
      this.dir,
      'the OAuth state directory',
      `remove it (mcpd recreates it, mode 0700); then sign in again with "mcpdctl auth"`,
    );
  }

  /** The file's text, undefined when there is none; refused when it is not a private regular file of ours. */
  private readOwn(path: string): string | undefined {
    let fd: number;
    try {
      this.checkDir();
      fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return undefined;
      if (code === 'ELOOP')
        throw new UntrustedPathError(`OAuth state ${path} is a symbolic link; remove it and sign in again with "mcpdctl auth"`);
      throw e;
    }
    try {
      const st = fstatSync(fd);
      const why = !st.isFile() ? 'it is not a regular file' : foreignControl(st);
      if (why)
        throw new UntrustedPathError(`OAuth state ${path} cannot be trusted: ${why}; remove it and sign in again with "mcpdctl auth"`);
      return readFileSync(fd, 'utf8');
    } finally {
      closeSync(fd);
    }
  }
}

function remember(fingerprint: string, r: OAuthRecord): void {
  const secrets = [r.tokens?.access_token, r.tokens?.refresh_token, r.tokens?.id_token, r.clientInformation?.client_secret];
  secretRedactor.useExtra(
    `oauth:${fingerprint}`,
    secrets.filter((s): s is string => typeof s === 'string' && s !== ''),
  );
}
