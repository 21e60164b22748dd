import { typeInChunks } from './typing.js';
import { BridgeError } from '../../contract/desktop-bridge/errors.js';
import type {
  ApplicationSummary,
  DesktopBackend,
  DoctorReport,
  InputPlace,
  Route,
  TreeBounds,
  TreeSnapshot,
  TypedCheck,
} from '../../contract/desktop-bridge/types.js';
import { realClock } from '../clock.js';
import { addrOf, AtspiBus, idOf, REGISTRY, ROOT_PATH, type NodeAddr } from './atspi-bus.js';
import { actionsOf, walkTree } from './atspi-tree.js';
import { linuxDoctor } from './linux-doctor.js';
import { focusedField, readField } from './text-field.js';
import { awaitTyped, type FieldText } from './typed-check.js';
import { focusWindow, keyCombo, pngSize, run, runBytes, windowsOfPid } from './x-tools.js';

const I = {
  accessible: 'org.a11y.atspi.Accessible',
  action: 'org.a11y.atspi.Action',
  component: 'org.a11y.atspi.Component',
  text: 'org.a11y.atspi.Text',
  editable: 'org.a11y.atspi.EditableText',
};
const ROOT: NodeAddr = { bus: REGISTRY, path: ROOT_PATH };
const PRESS_NAMES = ['click', 'press', 'activate', 'toggle'];

interface ApplicationEntry {
  addr: NodeAddr;
  name: string;
  pid: number | undefined;
  windows: string[];
}

/**
 * The Linux desktop: AT-SPI2 over D-Bus for the tree, find, press and text; xdotool for key combos;
 * ImageMagick `import` for screenshots. Needs DISPLAY and DBUS_SESSION_BUS_ADDRESS of the desktop session.
 */
export class LinuxBackend implements DesktopBackend {
  readonly platform = 'linux-atspi';
  private bus: Promise<AtspiBus> | undefined;

  constructor(private readonly env: NodeJS.ProcessEnv = process.env) {}

  /** Connects lazily and reconnects after a failure, so a host started before the desktop still recovers. */
  private atspi(): Promise<AtspiBus> {
    this.bus ??= AtspiBus.connect(this.env.DBUS_SESSION_BUS_ADDRESS).catch((e: unknown) => {
      this.bus = undefined;
      throw new BridgeError(
        'DESKTOP_PERMISSION_MISSING',
        `the accessibility bus is not reachable: ${(e as Error).message}; run desktop.doctor`,
      );
    });
    return this.bus;
  }

  doctor(): Promise<DoctorReport> {
    return linuxDoctor(this.env, () => this.atspi().then((b) => b.children(ROOT)));
  }

  async applications(): Promise<ApplicationSummary[]> {
    return (await this.apps()).map((a) => ({ name: a.name, pid: a.pid, elementId: idOf(a.addr), windows: a.windows }));
  }

  private async apps(): Promise<ApplicationEntry[]> {
    const bus = await this.atspi();
    const roots = await bus.children(ROOT);
    const apps = await Promise.all(
      roots.map(async (addr) => {
        try {
          const [name, wins, pid] = await Promise.all([
            bus.prop(addr, I.accessible, 'Name').then((v) => String(v ?? '')),
            bus.children(addr),
            bus.pidOf(addr.bus),
          ]);
          const windows = await Promise.all(wins.map((w) => bus.prop(w, I.accessible, 'Name').then((v) => String(v ?? ''))));
          return { addr, name, pid, windows };
        } catch {
          return undefined; // the application quit while we looked
        }
      }),
    );
    return apps.filter((a): a is ApplicationEntry => a !== undefined);
  }

  /**
   * Route → application: by name or pid, and/or a window title pattern. Without a route, the most recently
   * registered application with a window (X has no "frontmost app" without a window manager).
   */
  private async route(route: Route | undefined): Promise<ApplicationEntry | undefined> {
    const apps = (await this.apps()).filter((a) => a.windows.length > 0);
    const title = route?.window?.titlePattern !== undefined ? new RegExp(route.window.titlePattern) : undefined;
    const hits = apps.filter(
      (a) =>
        (route?.app?.name === undefined || a.name === route.app.name) &&
        (route?.app?.pid === undefined || a.pid === route.app.pid) &&
        (title === undefined || a.windows.some((w) => title.test(w))),
    );
    return hits[hits.length - 1];
  }

  /** The route's application, or DESKTOP_ELEMENT_NOT_FOUND (`no-application`). */
  private async routed(route: Route | undefined): Promise<ApplicationEntry> {
    const app = await this.route(route);
    if (!app)
      throw new BridgeError('DESKTOP_ELEMENT_NOT_FOUND', `no application with a window matches the route ${JSON.stringify(route ?? {})}`, {
        route: route ?? null,
        reason: 'no-application',
      });
    return app;
  }

  async snapshot(route: Route | undefined, bounds: TreeBounds): Promise<TreeSnapshot> {
    const app = await this.routed(route);
    const walked = await walkTree(await this.atspi(), app.addr, bounds, Date.now);
    return { app: { name: app.name, pid: app.pid, elementId: idOf(app.addr) }, windowTitle: app.windows[0] ?? null, ...walked };
  }

  async place(elementId: string | undefined, route: Route | undefined): Promise<InputPlace> {
    if (elementId === undefined) {
      const app = await this.routed(route);
      const title = route?.window?.titlePattern !== undefined ? new RegExp(route.window.titlePattern) : undefined;
      const windowTitle = app.windows.filter((w) => title === undefined || title.test(w)).at(-1) ?? null;
      return { app: { name: app.name, pid: app.pid }, windowTitle };
    }
    const { bus, addr } = await this.element(elementId);
    await this.live(bus, addr, elementId);
    const appRoot = { bus: addr.bus, path: ROOT_PATH };
    const [name, pid] = await Promise.all([bus.prop(appRoot, I.accessible, 'Name').then((v) => String(v ?? '')), bus.pidOf(addr.bus)]);
    return { app: { name, pid }, windowTitle: await this.windowOf(bus, addr, elementId), elementId };
  }

  /** The title of the top-level window holding the element: its ancestor whose parent is the application. */
  private async windowOf(bus: AtspiBus, addr: NodeAddr, elementId: string): Promise<string | null> {
    let at = addr;
    for (let depth = 0; depth < 256; depth++) {
      // Ignored: no parent to read means no way up to a window, which the loop below reports as stale.
      const parent = (await bus.prop(at, I.accessible, 'Parent').catch(() => undefined)) as [string, string] | undefined;
      const [pbus, ppath] = parent ?? ['', ''];
      if (ppath === ROOT_PATH && pbus === addr.bus) return at === addr ? null : String((await bus.prop(at, I.accessible, 'Name')) ?? '');
      if (!pbus || ppath === '/org/a11y/atspi/null') break;
      at = { bus: pbus, path: ppath };
    }
    // No way up to its application: the widget was destroyed (GTK keeps its object until the last reference).
    throw stale(elementId, 'it is no longer part of a window');
  }

  /** Throws `stale` for an element whose object is gone or defunct (a destroyed widget). */
  private async live(bus: AtspiBus, addr: NodeAddr, elementId: string): Promise<string[]> {
    const ifaces = await this.interfaces(bus, addr, elementId);
    const [state] = await bus.call(addr, I.accessible, 'GetState').catch(() => [[]]);
    const low = Array.isArray(state) ? Number(state[0] ?? 0) : 0;
    if (low & (1 << STATE_DEFUNCT)) throw stale(elementId, 'its widget was destroyed');
    return ifaces;
  }

  async press(elementId: string): Promise<boolean> {
    const { bus, addr } = await this.element(elementId);
    const ifaces = await this.live(bus, addr, elementId);
    if (!ifaces.includes(I.action)) return false;
    const names = (await actionsOf(bus, addr)).map((n) => n.toLowerCase());
    if (names.length === 0) return false;
    const idx = Math.max(
      0,
      names.findIndex((n) => PRESS_NAMES.includes(n)),
    );
    const [ok] = await bus.call(addr, I.action, 'DoAction', 'i', [idx]);
    return ok === true;
  }

  async typeText(
    elementId: string | undefined,
    text: string,
    route: Route | undefined,
    opts: { clearBefore?: boolean; signal?: AbortSignal } = {},
  ): Promise<TypedCheck> {
    const clearBefore = opts.clearBefore ?? false;
    let field: NodeAddr | undefined;
    if (elementId) {
      const { bus, addr } = await this.element(elementId);
      const ifaces = await this.interfaces(bus, addr, elementId);
      if (ifaces.includes(I.editable)) {
        const before = await readField(bus, addr);
        const caret = before?.caret ?? -1;
        // Ignored: no count (a password field, no Text) reads as empty, so nothing is cleared and the text goes at the start.
        const count = before ? Array.from(before.text).length : Number(await bus.prop(addr, I.text, 'CharacterCount').catch(() => 0));
        if (clearBefore && count > 0) {
          const [deleted] = await bus.call(addr, I.editable, 'DeleteText', 'ii', [0, count]);
          if (deleted !== true) throw new BridgeError('DESKTOP_INTERNAL_ERROR', `EditableText.DeleteText on ${elementId} returned false`);
        }
        const at = clearBefore ? 0 : caret >= 0 ? caret : count;
        // The length is in UTF-8 bytes (GTK's insert_text); UTF-16 units cut non-ASCII text short.
        const [ok] = await bus.call(addr, I.editable, 'InsertText', 'isi', [at, text, Buffer.byteLength(text, 'utf8')]);
        if (ok !== true) throw new BridgeError('DESKTOP_INTERNAL_ERROR', `EditableText.InsertText on ${elementId} returned false`);
        return this.readBack(bus, addr, before ? { text: before.text, caret: at } : undefined, text, clearBefore, opts.signal);
      }
      if (ifaces.includes(I.component)) await bus.call(addr, I.component, 'GrabFocus');
      if (ifaces.includes(I.text)) field = addr;
    }
    const win = await this.focusRoute(route);
    const bus = await this.atspi();
    field ??= await focusedField(bus, win.app, win.title, realClock, opts.signal);
    const before = field && (await readField(bus, field));
    const stillThere = () => this.checkFocus(win);
    // Without EditableText, "clear" is select-all in the focused widget: the typed text replaces it.
    if (clearBefore) await run('xdotool', ['key', '--clearmodifiers', 'ctrl+a'], this.env);
    await typeInChunks(text, this.env, opts.signal, stillThere);
    return this.readBack(bus, field, before, text, clearBefore, opts.signal);
  }

  /** The typed text read back from its field: verified, an error saying where it differs, or why it was not checked. */
  private async readBack(
    bus: AtspiBus,
    field: NodeAddr | undefined,
    before: FieldText | undefined,
    text: string,
    clearBefore: boolean,
    signal: AbortSignal | undefined,
  ): Promise<TypedCheck> {
    if (!field || !before)
      return {
        verified: false,
        reason: 'the focused widget has no text that can be read (or is a password field), so the typed text was not checked',
      };
    const read = async () => (await readField(bus, field))?.text;
    return awaitTyped(read, before, text, clearBefore, realClock, signal);
  }

  async key(keys: string[], route: Route | undefined): Promise<void> {
    const win = await this.focusRoute(route);
    await this.checkFocus(win);
    await run('xdotool', ['key', '--clearmodifiers', keyCombo(keys)], this.env);
  }

  async screenshot(opts: { timeoutMs: number; signal?: AbortSignal }): Promise<{ png: Buffer; width: number; height: number }> {
    const display = this.env.DISPLAY;
    if (!display) throw new BridgeError('DESKTOP_PERMISSION_MISSING', 'DISPLAY is not set: no X display to capture');
    // To stdout, not to a path: `import` would follow a link planted at the path. The timeout and the signal
    // kill it (a huge screen kept a 1 GiB `import` running into the next request).
    const png = await runBytes('import', ['-display', display, '-window', 'root', 'png:-'], this.env, {
      timeoutMs: Math.min(SCREENSHOT_TIMEOUT_MS, opts.timeoutMs),
      signal: opts.signal,
      maxBytes: MAX_SCREENSHOT_BYTES,
    });
    return { png, ...pngSize(png) };
  }

  async close(): Promise<void> {
    // Ignored: the bus never connected: nothing to disconnect.
    const b = await this.bus?.catch(() => undefined);
    b?.close();
    this.bus = undefined;
  }

  /**
   * Gives the X input focus to the route's window — of the route's application, its title matching the
   * route's pattern — and returns it. Without a pid or a matching window nothing can be typed safely.
   */
  private async focusRoute(route: Route | undefined): Promise<{ id: string; pid: number; title: string; app: NodeAddr }> {
    const app = await this.routed(route);
    if (!app.pid) throw outside(`application ${app.name} has no known pid, so its X window cannot be told apart`);
    const title = route?.window?.titlePattern !== undefined ? new RegExp(route.window.titlePattern) : undefined;
    const wins = (await windowsOfPid(app.pid, this.env)).filter((w) => title === undefined || title.test(w.title));
    const win = wins.at(-1);
    if (!win) throw outside(`no visible X window of ${app.name} (pid ${app.pid})${title ? ` has a title matching ${title}` : ''}`);
    await focusWindow(win.id, this.env);
    return { ...win, pid: app.pid, app: app.addr };
  }

  /** Right before input: the X focus is still on the window chosen for it (a window that appeared since does not get the keys). */
  private async checkFocus(win: { id: string; pid: number; title: string }): Promise<void> {
    const focused = (await run('xdotool', ['getwindowfocus'], this.env)).trim();
    if (focused !== win.id)
      throw outside(`the X input focus moved from window "${win.title}" (${win.id}) to window ${focused}; no input was sent there`);
  }

  private async element(elementId: string): Promise<{ bus: AtspiBus; addr: NodeAddr }> {
    const addr = addrOf(elementId);
    if (!addr)
      throw new BridgeError(
        'DESKTOP_INVALID_REQUEST',
        `elementId ${JSON.stringify(elementId)} is not of the form <bus name><object path>`,
        { field: 'elementId' },
      );
    return { bus: await this.atspi(), addr };
  }

  private async interfaces(bus: AtspiBus, addr: NodeAddr, elementId: string): Promise<string[]> {
    try {
      const [ifaces] = await bus.call(addr, I.accessible, 'GetInterfaces');
      return (ifaces as string[] | undefined) ?? [];
    } catch (e) {
      throw new BridgeError('DESKTOP_ELEMENT_NOT_FOUND', `element ${elementId} is gone (${(e as Error).message}); find it again`, {
        elementId,
        reason: 'stale',
      });
    }
  }
}

/** A screenshot never takes longer than this, whatever the request's own timeout. */
const SCREENSHOT_TIMEOUT_MS = 30_000;
/** 8192×8192 RGBA uncompressed, well past any real screen's PNG: beyond it the capture fails, saying so. */
const MAX_SCREENSHOT_BYTES = 256 * 1024 * 1024;

/** AT-SPI's ATSPI_STATE_DEFUNCT: the object's widget is gone. */
const STATE_DEFUNCT = 6;

function stale(elementId: string, why: string): BridgeError {
  return new BridgeError('DESKTOP_ELEMENT_NOT_FOUND', `element ${elementId} is gone (${why}); find it again`, {
    elementId,
    reason: 'stale',
  });
}

function outside(why: string): BridgeError {
  return new BridgeError('DESKTOP_ELEMENT_NOT_FOUND', `input was not sent: ${why}`, { reason: 'route-mismatch' });
}
