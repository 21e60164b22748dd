import type { ContextApi, ContextChange, DesktopView, FinderQuery, FinderView, Subscription } from '../domain/control-areas.js';
import type { AreaDeps } from './area-deps.js';
import { notYet } from './resource-service.js';

/** The Desktop (window://) and Finder (dpe://) channels built from downstream resources. */
export class ContextService implements ContextApi {
  constructor(private readonly deps: AreaDeps) {}

  desktop(_caller: string, _size: number | undefined, _window: string | undefined): Promise<DesktopView> {
    return Promise.reject(notYet('GetDesktop'));
  }
  watchDesktop(_caller: string): Subscription<ContextChange> {
    throw notYet('WatchDesktop');
  }
  finder(_caller: string, _query: FinderQuery): Promise<FinderView> {
    return Promise.reject(notYet('GetFinder'));
  }
  watchFinder(_caller: string): Subscription<ContextChange> {
    throw notYet('WatchFinder');
  }
}
