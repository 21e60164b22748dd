import dbus from 'dbus-next';

const { Message } = dbus;

export const REGISTRY = 'org.a11y.atspi.Registry';
export const ROOT_PATH = '/org/a11y/atspi/accessible/root';
const ACCESSIBLE = 'org.a11y.atspi.Accessible';
const PROPS = 'org.freedesktop.DBus.Properties';

/** An accessible object: the bus name of its application and its object path. */
export interface NodeAddr {
  bus: string;
  path: string;
}

/** `:1.5/org/a11y/atspi/accessible/12`: stable while the application runs (bus names never contain '/'). */
export const idOf = (a: NodeAddr): string => `${a.bus}${a.path}`;

export function addrOf(elementId: string): NodeAddr | undefined {
  const slash = elementId.indexOf('/');
  if (slash <= 0) return undefined;
  return { bus: elementId.slice(0, slash), path: elementId.slice(slash) };
}

/**
 * Raw method calls on the accessibility bus. Raw `bus.call(new Message(…))`, not proxy objects: a proxy
 * costs an introspection round trip per node (DESKTOP-LINUX.md).
 */
export class AtspiBus {
  private constructor(
    private readonly session: dbus.MessageBus,
    private readonly a11y: dbus.MessageBus,
  ) {}

  /** Session bus → org.a11y.Bus.GetAddress (D-Bus-activates at-spi-bus-launcher) → the a11y bus. */
  static async connect(sessionAddress?: string): Promise<AtspiBus> {
    const session = dbus.sessionBus(sessionAddress ? { busAddress: sessionAddress } : {});
    session.on('error', () => undefined);
    try {
      const reply = await session.call(
        new Message({ destination: 'org.a11y.Bus', path: '/org/a11y/bus', interface: 'org.a11y.Bus', member: 'GetAddress' }),
      );
      const address = String(reply?.body[0] ?? '');
      if (!address) throw new Error('org.a11y.Bus.GetAddress returned no address');
      const a11y = dbus.sessionBus({ busAddress: address });
      a11y.on('error', () => undefined);
      return new AtspiBus(session, a11y);
    } catch (e) {
      session.disconnect();
      throw e;
    }
  }

  async call(a: NodeAddr, iface: string, member: string, signature?: string, body?: unknown[]): Promise<unknown[]> {
    const reply = await this.a11y.call(
      new Message({ destination: a.bus, path: a.path, interface: iface, member, signature, body: body as unknown[] | undefined }),
    );
    return reply?.body ?? [];
  }

  async prop(a: NodeAddr, iface: string, name: string): Promise<unknown> {
    const [v] = await this.call(a, PROPS, 'Get', 'ss', [iface, name]);
    return (v as { value?: unknown } | undefined)?.value;
  }

  async children(a: NodeAddr): Promise<NodeAddr[]> {
    const [list] = await this.call(a, ACCESSIBLE, 'GetChildren');
    return ((list as [string, string][] | undefined) ?? []).map(([bus, path]) => ({ bus, path }));
  }

  /** The pid behind an application's bus name, from the bus daemon itself. */
  async pidOf(bus: string): Promise<number | undefined> {
    try {
      const reply = await this.a11y.call(
        new Message({
          destination: 'org.freedesktop.DBus',
          path: '/org/freedesktop/DBus',
          interface: 'org.freedesktop.DBus',
          member: 'GetConnectionUnixProcessID',
          signature: 's',
          body: [bus],
        }),
      );
      const pid = Number(reply?.body[0]);
      return Number.isInteger(pid) && pid > 0 ? pid : undefined;
    } catch {
      return undefined;
    }
  }

  close(): void {
    this.a11y.disconnect();
    this.session.disconnect();
  }
}
