import { describe, expect, it } from 'vitest';
import type { ResourceSnapshot } from '../../../contract/control/control-areas.js';
import { LatestWins } from './newest-wins.js';
import { ClientToolListWatch, clientToolListEtag } from '../../../contract/session/tool-list-watch.js';

const resources = (etag: string, ...uris: string[]): ResourceSnapshot =>
  ({ etag, resources: uris.map((uri) => ({ uri })), templates: [], collisions: [] }) as unknown as ResourceSnapshot;

describe('ClientToolListWatch', () => {
  it('yields a new etag when only the Finder channel moves, and none for other resource changes', async () => {
    const tools = new LatestWins<{ etag: string }>();
    const res = new LatestWins<ResourceSnapshot>();
    tools.publish({ etag: 't1' });
    res.publish(resources('r1', 'file:///a'));
    const w = new ClientToolListWatch(tools.subscribe(), res.subscribe());
    expect((await w.next()).value).toEqual({ etag: 't1' });

    res.publish(resources('r2', 'file:///a', 'file:///b'));
    res.publish(resources('r3', 'file:///a', 'dpe://docs/x'));
    expect((await w.next()).value).toEqual({ etag: clientToolListEtag('t1', { desktop: false, finder: true }) });

    tools.publish({ etag: 't2' });
    expect((await w.next()).value).toEqual({ etag: 't2+finder' });

    res.publish(resources('r4', 'window://w/x'));
    expect((await w.next()).value).toEqual({ etag: 't2' });
    await w.return();
    expect(tools.subscriberCount).toBe(0);
    expect(res.subscriberCount).toBe(0);
    expect((await w.next()).done).toBe(true);
  });

  it('ends, and releases both watches, when one source ends', async () => {
    const tools = new LatestWins<{ etag: string }>();
    const res = new LatestWins<ResourceSnapshot>();
    tools.publish({ etag: 't1' });
    const w = new ClientToolListWatch(tools.subscribe(), res.subscribe());
    const pending = w.next();
    res.close();
    expect((await pending).done).toBe(true);
    expect(tools.subscriberCount).toBe(0);
  });
});
