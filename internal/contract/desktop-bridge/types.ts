/** Wire and backend types of the Desktop Bridge contract v2.2 (section 4). */

export interface Meta {
  schemaVersion: 1;
  requestId: string;
  workspacePath: string;
  timeoutMs: number;
}

export interface Frame {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface Selector {
  byRole?: string;
  titleContains?: string;
  valueContains?: string;
  limit?: number;
}

/** On Linux there is no "frontmost app" without a window manager: route by application name or pid. */
export interface Route {
  app?: { name?: string; pid?: number; bundleId?: string };
  window?: { titlePattern?: string };
  focusPolicy?: string;
}

export interface ElementRef {
  elementId: string;
  fingerprint: string;
  role: string;
  title: string | null;
  value: string | null;
  /** Present (true) when `value` holds only the first 4096 characters; `valueLength` is the whole text's. */
  valueTruncated?: true;
  valueLength?: number;
  frame: Frame | null;
}

/** One accessibility node as a backend reports it (native role plus the contract's role name). */
export interface TreeNode extends ElementRef {
  nativeRole: string;
  actions: string[];
  depth: number;
  children: string[];
}

export interface TreeSnapshot {
  app: { name: string; pid?: number; elementId: string } | null;
  windowTitle: string | null;
  nodes: TreeNode[];
  truncated: boolean;
  truncatedBy?: 'depth' | 'nodes' | 'deadline';
}

export interface TreeBounds {
  maxDepth: number;
  maxNodes: number;
  deadlineMs: number;
}

export interface ApplicationSummary {
  name: string;
  pid?: number;
  elementId: string;
  windows: string[];
}

export interface PermissionCheck {
  granted: boolean;
  required: boolean;
  purpose: string;
  detail?: string;
}

export interface DoctorReport {
  platform: string;
  permissions: Record<string, PermissionCheck>;
  issues: string[];
  healthy: boolean;
}

/** Where input will go: the application and window that receive it (and the element, when there is one). */
export interface InputPlace {
  app: { name: string; pid?: number };
  windowTitle: string | null;
  elementId?: string;
}

/**
 * Whether typed text was read back from the widget that received it and found as expected. A text that
 * arrived different is an error, never an outcome; `verified: false` says why it could not be checked.
 */
export type TypedCheck = { verified: true } | { verified: false; reason: string };

/**
 * What a platform must provide. The host core (transport, tokens, workspace, evidence, abort,
 * waitUntil) is platform-agnostic; Linux fills this with AT-SPI + xdotool + ImageMagick.
 */
export interface DesktopBackend {
  readonly platform: string;
  doctor(): Promise<DoctorReport>;
  applications(): Promise<ApplicationSummary[]>;
  snapshot(route: Route | undefined, bounds: TreeBounds): Promise<TreeSnapshot>;
  /**
   * Where input for `elementId` (or, without one, for the route's window) goes. An element that is gone is
   * DESKTOP_ELEMENT_NOT_FOUND with `reason: "stale"`; no application for the route, `reason: "no-application"`.
   */
  place(elementId: string | undefined, route: Route | undefined): Promise<InputPlace>;
  /** Presses (default action) the element; false when it has no action to press. */
  press(elementId: string): Promise<boolean>;
  /**
   * Inserts text into the element (or the focused widget when no element is given); clearBefore replaces its
   * text. Once `signal` is aborted no more input is sent, and the error says how much was typed. The text is
   * then read back: one that arrived different (a character dropped or replaced) is an error saying where.
   */
  typeText(
    elementId: string | undefined,
    text: string,
    route: Route | undefined,
    opts?: { clearBefore?: boolean; signal?: AbortSignal },
  ): Promise<TypedCheck>;
  key(keys: string[], route: Route | undefined): Promise<void>;
  /**
   * The screen as PNG bytes (the host writes them into the evidence folder itself). Bounded by `timeoutMs`;
   * `signal` (abort, the request's deadline) stops it, and whatever process it started is killed.
   */
  screenshot(opts: { timeoutMs: number; signal?: AbortSignal }): Promise<{ png: Buffer; width: number; height: number }>;
  close(): Promise<void>;
}
