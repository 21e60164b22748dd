import type { Profile } from '../../contract/model/profile.js';
import type { CallerHistories } from '../domain/history/tool-call-history.js';
import type { ReloadProgress } from './reload-retry.js';
import type { PoolPort } from './pool-port.js';
import type { StoreState } from './store-state.js';
import type { ToolService } from './tool-service.js';
import type { ListingBudget } from './listing-budget.js';
import type { ItemPinsSet } from './item-pins.js';

export type CoreLog = (level: 'debug' | 'info' | 'warning' | 'error', event: string, fields?: Record<string, unknown>) => void;

/** What every area service (resources, prompts, logs, context) gets from the core. */
export interface AreaDeps {
  pools: PoolPort;
  store: StoreState;
  tools: ToolService;
  /** How long listings wait for servers still starting; shared by every area's listings (tools too). */
  listingBudget: ListingBudget;
  /** Tool-call history per caller: server order for the Desktop and Finder. */
  history: CallerHistories;
  /** The caller's profile under the current store (unknown callers → default). */
  profileOf(caller: string): Profile;
  log: CoreLog;
  /** Requests resolving a name or URI that a reload overtook resolve again after it (absent: no retry). */
  reloads?: ReloadProgress;
  /** Prompts', resources' and templates' pins (absent without a state directory: nothing pinned). */
  itemPins?: ItemPinsSet;
}
