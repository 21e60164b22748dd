import type { ClientRequestsApi } from '../../../contract/control/client-requests.js';
import type { CoreLog } from '../area-deps.js';
import type { PoolPort } from '../pool-port.js';
import { PassthroughTasks } from './passthrough-tasks.js';

/**
 * Pass-through of servers' own tasks, where the pools can hold a task's instance (pins and requests on
 * a pinned instance: the scheduler's PoolManager can; absent, every task is hosted by the core).
 */
export function passthroughTasks(pools: PoolPort, clientRequests: ClientRequestsApi, log: CoreLog): PassthroughTasks | undefined {
  const { pin, unpin, pinnedRequest, onPinLost, pinnedInstance } = pools;
  if (!pin || !unpin || !pinnedRequest || !onPinLost || !pinnedInstance) return undefined;
  const tasks = new PassthroughTasks({
    pools: {
      capabilities: (fp) => pools.capabilities(fp),
      pin: pin.bind(pools),
      unpin: unpin.bind(pools),
      pinnedRequest: pinnedRequest.bind(pools),
      pinnedInstance: pinnedInstance.bind(pools),
      request: (fp, method, params, opts) => pools.request(fp, method, params, opts),
    },
    clientRequests,
    log,
  });
  onPinLost.call(pools, (fp, key) => tasks.pinLost(fp, key));
  pools.onNotification((fp, instance, method, params) => tasks.notified(fp, instance, method, params));
  return tasks;
}
