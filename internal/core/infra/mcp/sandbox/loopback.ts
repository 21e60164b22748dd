import { BlockList, isIP } from 'node:net';

/** Addresses that reach this machine's own listeners, in any spelling (`::ffff:7f00:1` is 127.0.0.1). */
const LOCAL = new BlockList();
LOCAL.addSubnet('127.0.0.0', 8, 'ipv4');
LOCAL.addAddress('0.0.0.0', 'ipv4');
LOCAL.addAddress('::1', 'ipv6');
LOCAL.addAddress('::', 'ipv6');

export function isLoopbackAddress(address: string): boolean {
  const family = isIP(address);
  return family !== 0 && LOCAL.check(address, family === 6 ? 'ipv6' : 'ipv4');
}

/**
 * Loopback hosts are reached only when a rule names one of them literally (not through `*` or a name that
 * resolves there). An IP literal counts by its address: `0.0.0.0` and `[::]` reach local listeners too.
 */
export function isLoopbackName(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  return h === 'localhost' || isLoopbackAddress(h);
}
