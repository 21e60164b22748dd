import { useEffect, useState } from 'preact/hooks';
import type { InputRequest } from '../internal/contract/dashboard/dashboard-events.js';
import { conn } from './conn.js';

/**
 * The input requests of this page's calls, kept from the moment the core pushes them (a request can
 * arrive before the view of its call has rendered), until answered or withdrawn.
 */
class InputRequests {
  private readonly byRequest = new Map<string, InputRequest>();
  private readonly listeners = new Set<() => void>();

  constructor() {
    conn.on('input-request', (r) => {
      this.byRequest.set(r.request, r);
      this.changed();
    });
    conn.on('input-withdrawn', (w) => this.drop(w.request));
    // A new socket is a new page for the core: what the old one was asked died with it.
    conn.socket.on('disconnect', () => {
      this.byRequest.clear();
      this.changed();
    });
  }

  of(callId: string): InputRequest[] {
    return [...this.byRequest.values()].filter((r) => r.id === callId);
  }

  drop(request: string): void {
    if (this.byRequest.delete(request)) this.changed();
  }

  /** Every request of a call: it ended, so none of them can be answered any more. */
  dropCall(callId: string): void {
    for (const r of this.of(callId)) this.byRequest.delete(r.request);
    this.changed();
  }

  subscribe(l: () => void): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  private changed(): void {
    for (const l of this.listeners) l();
  }
}

export const inputRequests = new InputRequests();

/** The requests waiting for an answer in one call of this page (none without a call). */
export function useInputRequests(callId: string | undefined): InputRequest[] {
  const [list, setList] = useState<InputRequest[]>(() => (callId ? inputRequests.of(callId) : []));
  useEffect(() => {
    if (!callId) return setList([]);
    setList(inputRequests.of(callId));
    return inputRequests.subscribe(() => setList(inputRequests.of(callId)));
  }, [callId]);
  return list;
}
