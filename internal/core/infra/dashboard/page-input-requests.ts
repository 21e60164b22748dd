import {
  ClientRequestError,
  JSONRPC_INTERNAL_ERROR,
  JSONRPC_REQUEST_TIMEOUT,
  type ClientChannel,
} from '../../../contract/control/client-requests.js';
import type { DashboardPushes, InputMethod } from '../../../contract/dashboard/dashboard-events.js';
import { elicitFields, elicitProblems } from '../../../contract/dashboard/elicitation-form.js';
import type { JsonObject } from '../../../shared/json.js';
import { cappedTimeout } from '../../../shared/timer-limit.js';
import type { Args } from './socket-args.js';

/** What a dashboard page can answer: it declares these to the core, which refuses the rest (roots) for it. */
export const PAGE_CAPABILITIES: JsonObject = { elicitation: { form: {} }, sampling: {} };

/** The MCP error a client gives when its user refuses a sampling request. */
const USER_REJECTED = -1;

interface Waiting {
  callId: string;
  method: InputMethod;
  params: JsonObject;
  resolve: (v: JsonObject) => void;
  reject: (e: ClientRequestError) => void;
}

type Push = <E extends 'input-request' | 'input-withdrawn'>(event: E, payload: DashboardPushes[E]) => void;

/**
 * The server→client requests of one page's try-it calls. Each call gets its own channel: the core's
 * routing rule (a request goes only to the caller whose call it belongs to) hands it the requests of
 * that call only, which the page sees under that call and answers with `input-answer`. A request whose
 * call ended, or whose page left, is refused to the server; it is never shown anywhere else.
 */
export class PageInputRequests {
  private readonly waiting = new Map<string, Waiting>();
  private seq = 0;

  constructor(private readonly push: Push) {}

  /** The channel of one call; `close` refuses what is still waiting once the call is over. */
  channel(callId: string): ClientChannel & { close(why: string): void } {
    let closed: string | undefined;
    const mine = new Set<string>();
    return {
      request: (method, params, opts) => {
        if (closed !== undefined) return Promise.reject(gone(method, closed));
        if (method !== 'elicitation/create' && method !== 'sampling/createMessage') {
          return Promise.reject(new ClientRequestError(JSONRPC_INTERNAL_ERROR, `the mcpd dashboard cannot answer ${method}`));
        }
        return this.ask(callId, method, params, opts, mine);
      },
      close: (why) => {
        closed = why;
        for (const id of [...mine]) this.withdraw(id, why, gone('its request', why));
      },
    };
  }

  private ask(
    callId: string,
    method: InputMethod,
    params: JsonObject,
    opts: { signal?: AbortSignal; timeoutMs: number },
    mine: Set<string>,
  ): Promise<JsonObject> {
    if (opts.signal?.aborted)
      return Promise.reject(new ClientRequestError(JSONRPC_INTERNAL_ERROR, `${method} was cancelled by the server`));
    const request = `input-${++this.seq}`;
    return new Promise<JsonObject>((resolve, reject) => {
      const onAbort = () =>
        this.withdraw(
          request,
          'the server withdrew its request',
          new ClientRequestError(JSONRPC_INTERNAL_ERROR, `${method} was cancelled by the server`),
        );
      // A page left open and unanswered must not hold the server forever: the server's call timeout bounds it.
      const timer = cappedTimeout(
        () =>
          this.withdraw(
            request,
            `not answered within ${opts.timeoutMs} ms`,
            new ClientRequestError(JSONRPC_REQUEST_TIMEOUT, `the mcpd dashboard did not answer ${method} within ${opts.timeoutMs} ms`),
          ),
        opts.timeoutMs,
      );
      const settle = () => {
        clearTimeout(timer);
        opts.signal?.removeEventListener('abort', onAbort);
        mine.delete(request);
        this.waiting.delete(request);
      };
      this.waiting.set(request, {
        callId,
        method,
        params,
        resolve: (v) => (settle(), resolve(v)),
        reject: (e) => (settle(), reject(e)),
      });
      mine.add(request);
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      this.push('input-request', { id: callId, request, method, params });
    });
  }

  private withdraw(request: string, reason: string, err: ClientRequestError): void {
    const w = this.waiting.get(request);
    if (!w) return;
    w.reject(err);
    this.push('input-withdrawn', { id: w.callId, request, reason });
  }

  /** `input-answer`: checks the answer against the request it names, then gives the server its result. */
  answer(a: Args): void {
    const request = a.str('request');
    const w = this.waiting.get(request);
    if (!w) {
      throw new Error(
        `input-answer: no input request "${request}" is waiting on this page (it was answered, withdrawn, or its call ended)`,
      );
    }
    const action = a.str('action');
    if (action !== 'accept' && action !== 'decline' && action !== 'cancel') {
      throw new Error(`input-answer: "action" must be accept, decline or cancel, not "${action}"`);
    }
    if (w.method === 'sampling/createMessage') {
      if (action !== 'accept') {
        return w.reject(
          new ClientRequestError(
            USER_REJECTED,
            `the user ${action === 'decline' ? 'declined' : 'cancelled'} the sampling request in the mcpd dashboard`,
          ),
        );
      }
      return w.resolve({
        role: 'assistant',
        model: 'mcpd-dashboard',
        stopReason: 'endTurn',
        content: { type: 'text', text: a.str('text') },
      });
    }
    if (action !== 'accept' || w.params.mode === 'url') return w.resolve({ action });
    const content = a.object('content');
    const problems = elicitProblems(elicitFields(w.params.requestedSchema), content);
    if (problems.length) throw new Error(`input-answer: the content does not fit the server's requestedSchema: ${problems.join('; ')}`);
    w.resolve({ action, content });
  }

  /** The page left: every request still waiting is refused to its server. */
  close(): void {
    for (const request of [...this.waiting.keys()]) this.withdraw(request, 'the page closed', gone('its request', 'the page closed'));
  }
}

function gone(method: string, why: string): ClientRequestError {
  return new ClientRequestError(JSONRPC_INTERNAL_ERROR, `the mcpd dashboard cannot answer ${method}: ${why}`);
}
