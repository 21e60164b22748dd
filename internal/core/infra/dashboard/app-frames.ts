import { randomBytes } from 'node:crypto';

/** One app page waiting for its frame to load it. */
interface PreparedFrame {
  html: string;
  csp: string;
}

/** What the audit log gets of a prepared frame: whose app it is and the CSP it runs under, never its HTML. */
type FrameAudit = (fields: { caller: string; tool: string; uri: string; server: string; csp: string }) => void;

/** How long a prepared frame waits for its iframe, and how many may wait at once (the oldest go first). */
const TTL_MS = 60_000;
const MAX_WAITING = 64;

/**
 * MCP App pages prepared for a page's `app-frame` request, each served once at `/app/frame/<id>`. The id is
 * 128 random bits: the frame's URL is its only credential (an iframe's request carries no login), it is
 * good for one load within a minute, and the page it serves runs sandboxed without the dashboard's origin.
 */
export class AppFrames {
  private readonly waiting = new Map<string, PreparedFrame & { until: number }>();

  constructor(
    private readonly audit: FrameAudit = () => {},
    private readonly now: () => number = Date.now,
  ) {}

  /** Keeps the page; its path for the frame's `src`. */
  add(frame: PreparedFrame, whose: { caller: string; tool: string; uri: string; server: string }): string {
    this.audit({ ...whose, csp: frame.csp });
    this.expire();
    while (this.waiting.size >= MAX_WAITING) this.waiting.delete(this.waiting.keys().next().value as string);
    const id = randomBytes(16).toString('base64url');
    this.waiting.set(id, { ...frame, until: this.now() + TTL_MS });
    return `/app/frame/${id}`;
  }

  /** The page for this id, once; undefined when unknown, used or expired. */
  take(id: string): PreparedFrame | undefined {
    this.expire();
    const f = this.waiting.get(id);
    this.waiting.delete(id);
    return f && { html: f.html, csp: f.csp };
  }

  private expire(): void {
    const t = this.now();
    for (const [id, f] of this.waiting) if (f.until <= t) this.waiting.delete(id);
  }
}
