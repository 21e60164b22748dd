import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { PromptListChangedNotificationSchema, ResourceListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ControlPlaneClient } from '../../internal/contract/gen/mcpd/control/v1/control.js';
import type * as pb from '../../internal/contract/gen/mcpd/control/v1/control.js';
import { callUnary, collectStream, createControlClient } from '../../internal/contract/grpc/control-client.js';
import type { McpdError } from '../../internal/shared/errors.js';
import { coreWorld } from '../support/core-world.js';
import { callersWithResourceRules } from '../support/policy-rules.js';
import { waitFor } from '../support/procs.js';
import { everythingServer, profile } from '../support/profiles.js';

const STATIC = 'demo://resource/static/document/instructions.md';
const TEXT_TEMPLATE = 'demo://resource/dynamic/text/{resourceId}';
const BLOB_TEMPLATE = 'demo://resource/dynamic/blob/{resourceId}';
const COMPLETE_TEXT = { ref: { type: 'ref/resource', uri: TEXT_TEMPLATE }, argument: { name: 'resourceId', value: '12' } };
const COMPLETE_PROMPT = { ref: { type: 'ref/prompt', name: 'ev__completable-prompt' }, argument: { name: 'department', value: 'Sa' } };

/** How a face answered: ok, or the rule that refused it and the words it used. */
type Outcome = 'ok' | { rule: string; reason: string; message: string };

const ruleIn = (message: string) => /policy rule "([^"]+)"/.exec(message)?.[1] ?? `(no rule named in: ${message})`;

/** One face onto the core, for one caller: the lists it is shown and how it is answered. */
interface Face {
  resources(): Promise<string[]>;
  templates(): Promise<string[]>;
  prompts(): Promise<string[]>;
  read(uri: string): Promise<Outcome>;
  /** Refusals only: an allowed subscription is taken back at once. */
  subscribe(uri: string): Promise<Outcome>;
  getPrompt(name: string, args: Record<string, string>): Promise<Outcome>;
  complete(params: Record<string, unknown>): Promise<Outcome>;
  callTool(name: string, args: Record<string, unknown>): Promise<Outcome>;
}

const demo = (uris: string[]) => uris.filter((u) => u.startsWith('demo://')).sort();
const ev = (names: string[]) => names.filter((n) => n.startsWith('ev__')).sort();

/** The MCP gateway (mcpdmcp over stdio): a refusal is JSON-RPC error -32003 naming the rule in its data. */
function gatewayFace(client: Client): Face {
  const outcome = async (run: () => Promise<unknown>): Promise<Outcome> => {
    try {
      const r = (await run()) as { isError?: boolean } | undefined;
      return r?.isError ? { rule: '', reason: 'isError', message: JSON.stringify(r) } : 'ok';
    } catch (e) {
      const err = e as { code?: number; message: string; data?: { reason?: string; details?: { policyRule?: string } } };
      expect(err.code, err.message).toBe(-32003);
      expect(err.data?.details?.policyRule, err.message).toBe(ruleIn(err.message));
      // The SDK puts "MCP error -32003: " before the words the gateway sent.
      const message = err.message.replace(/^MCP error -?\d+: /, '');
      return { rule: err.data?.details?.policyRule ?? '', reason: err.data?.reason ?? '', message };
    }
  };
  return {
    resources: async () => demo((await client.listResources()).resources.map((r) => r.uri)),
    templates: async () => demo((await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate)),
    prompts: async () => ev((await client.listPrompts()).prompts.map((p) => p.name)),
    read: (uri) => outcome(() => client.readResource({ uri })),
    subscribe: (uri) =>
      outcome(async () => {
        await client.subscribeResource({ uri });
        await client.unsubscribeResource({ uri });
      }),
    getPrompt: (name, args) => outcome(() => client.getPrompt({ name, arguments: args })),
    complete: (params) => outcome(() => client.complete(params as Parameters<Client['complete']>[0])),
    callTool: (name, args) => outcome(() => client.callTool({ name, arguments: args })),
  };
}

/** gRPC: a refusal is status PERMISSION_DENIED with the rule in the trailing metadata (McpdError details). */
function grpcFace(grpc: ControlPlaneClient, caller: string): Face {
  const outcome = async (run: () => Promise<unknown>): Promise<Outcome> => {
    try {
      await run();
      return 'ok';
    } catch (e) {
      const err = e as McpdError;
      if (!err.details) throw e;
      expect((err.details.data as { policyRule?: string } | undefined)?.policyRule, err.message).toBe(ruleIn(err.message));
      return { rule: ruleIn(err.message), reason: err.reason, message: err.message };
    }
  };
  const json = (v: unknown) => Buffer.from(JSON.stringify(v));
  const page = { caller, cursor: '', pageSize: 0 };
  return {
    resources: async () =>
      demo(
        (await callUnary<pb.ListResourcesRequest, pb.ListResourcesResponse>((r, cb) => grpc.listResources(r, cb), page)).resources.map(
          (r) => r.uri,
        ),
      ),
    templates: async () =>
      demo(
        (
          await callUnary<pb.ListResourceTemplatesRequest, pb.ListResourceTemplatesResponse>(
            (r, cb) => grpc.listResourceTemplates(r, cb),
            page,
          )
        ).templates.map((t) => t.uriTemplate),
      ),
    prompts: async () =>
      ev(
        (await callUnary<pb.ListPromptsRequest, pb.ListPromptsResponse>((r, cb) => grpc.listPrompts(r, cb), page)).prompts.map(
          (p) => p.name,
        ),
      ),
    read: (uri) =>
      outcome(() => callUnary<pb.ReadResourceRequest, pb.ReadResourceResponse>((r, cb) => grpc.readResource(r, cb), { caller, uri })),
    subscribe: (uri) =>
      outcome(
        // A refused subscription ends the stream with an error; an allowed one stays open: only refusals are asked here.
        () => collectStream(grpc.subscribeResource({ caller, uri }), () => {}),
      ),
    getPrompt: (name, args) =>
      outcome(() =>
        callUnary<pb.GetPromptRequest, pb.GetPromptResponse>((r, cb) => grpc.getPrompt(r, cb), { caller, name, argumentsJson: json(args) }),
      ),
    complete: (params) =>
      outcome(() =>
        callUnary<pb.CompleteRequest, pb.CompleteResponse>((r, cb) => grpc.complete(r, cb), { caller, paramsJson: json(params) }),
      ),
    callTool: (name, args) =>
      outcome(() => collectStream(grpc.callTool({ caller, name, argumentsJson: json(args), routingKey: '', timeoutMs: 0 }), () => {})),
  };
}

// Generous: every test goes through both faces in turn, and a loaded machine is slow.
describe(
  'policy on resources, templates, prompts and completions (a real core, server-everything, the gateway and gRPC)',
  { timeout: 180_000 },
  () => {
    const world = coreWorld({
      'profiles/default.yaml': profile(everythingServer('ev', { idleSeconds: 300 })),
      'callers.yaml': callersWithResourceRules(),
      // A loaded machine may take a while to start the server: the first listing waits for it.
      'runtime.yaml': 'metricsAddress: ""\nlistingBudgetSeconds: 60\n',
    });
    const faces = new Map<string, { alice: Face; bob: Face }>();
    let gateway: Client;
    let grpc: ControlPlaneClient;
    const changed = { resources: 0, prompts: 0 };

    beforeAll(async () => {
      gateway = await world.gateway('alice');
      gateway.setNotificationHandler(ResourceListChangedNotificationSchema, () => void changed.resources++);
      gateway.setNotificationHandler(PromptListChangedNotificationSchema, () => void changed.prompts++);
      grpc = createControlClient(world.socket);
      faces.set('MCP gateway (stdio)', { alice: gatewayFace(gateway), bob: gatewayFace(await world.gateway('bob')) });
      faces.set('gRPC', { alice: grpcFace(grpc, 'alice'), bob: grpcFace(grpc, 'bob') });
      // The server is started by the first listing; wait until bob sees what the rules are about.
      await waitFor('server-everything listed', async () => (await faces.get('gRPC')!.bob.templates()).includes(TEXT_TEMPLATE));
    }, 120_000);
    afterAll(() => grpc?.close());

    it('an unconditional resources: deny hides the resource and its template, and refuses read, subscribe and completion', async () => {
      for (const [face, { alice, bob }] of faces) {
        expect(await bob.resources(), face).toContain(STATIC);
        expect(await bob.templates(), face).toEqual(expect.arrayContaining([TEXT_TEMPLATE, BLOB_TEMPLATE]));
        expect(await alice.resources(), face).not.toContain(STATIC);
        expect((await alice.resources()).length, face).toBe((await bob.resources()).length - 1);
        expect(await alice.templates(), face).toEqual([BLOB_TEMPLATE]);

        for (const [what, refused] of [
          ['read of the static resource', await alice.read(STATIC)],
          ['read through the template', await alice.read('demo://resource/dynamic/text/42')],
          ['subscription', await alice.subscribe('demo://resource/dynamic/text/1')],
          ['completion of the template', await alice.complete(COMPLETE_TEXT)],
        ] as const) {
          expect(refused, `${face}: ${what}`).toMatchObject({ rule: 'no-text-resources', reason: 'PERMISSION_DENIED' });
          expect(refused === 'ok' ? '' : refused.message, `${face}: ${what}`).toMatch(
            /^denied by policy rule "no-text-resources" \(callers\.yaml line 3\): alice may not use resource demo:\/\/resource\//,
          );
        }
        // The same requests are bob's to make.
        expect(await bob.read(STATIC), face).toBe('ok');
        expect(await bob.read('demo://resource/dynamic/text/42'), face).toBe('ok');
        expect(await bob.complete(COMPLETE_TEXT), face).toBe('ok');
      }
      expect(await faces.get('MCP gateway (stdio)')!.bob.subscribe('demo://resource/dynamic/text/1')).toBe('ok');
    });

    it('a prompts: deny hides the prompt and refuses prompts/get and the completion of its arguments', async () => {
      for (const [face, { alice, bob }] of faces) {
        expect(await bob.prompts(), face).toContain('ev__completable-prompt');
        const listed = await alice.prompts();
        expect(listed, face).not.toContain('ev__completable-prompt');
        expect(listed, face).toContain('ev__args-prompt');

        const get = await alice.getPrompt('ev__completable-prompt', { department: 'Sales', name: 'Alice' });
        const complete = await alice.complete(COMPLETE_PROMPT);
        for (const refused of [get, complete]) {
          expect(refused, face).toMatchObject({ rule: 'no-completable-prompt', reason: 'PERMISSION_DENIED' });
          expect(refused === 'ok' ? '' : refused.message, face).toMatch(
            /^denied by policy rule "no-completable-prompt" \(callers\.yaml line \d+\): alice may not use prompt ev__completable-prompt$/,
          );
        }
        expect(await bob.getPrompt('ev__completable-prompt', { department: 'Sales', name: 'Alice' }), face).toBe('ok');
        expect(await bob.complete(COMPLETE_PROMPT), face).toBe('ok');
      }
    });

    it('a rule with `when` keeps the resource or prompt listed and refuses only the requests it matches, naming the rule', async () => {
      for (const [face, { alice }] of faces) {
        expect(await alice.templates(), face).toContain(BLOB_TEMPLATE);
        expect(await alice.read('demo://resource/dynamic/blob/3'), face).toBe('ok');
        expect(await alice.read('demo://resource/dynamic/blob/2'), face).toMatchObject({
          rule: 'no-blob-2',
          message: expect.stringMatching(
            /^denied by policy rule "no-blob-2" \(callers\.yaml line \d+\): alice may not use resource/,
          ) as unknown,
        });

        expect(await alice.prompts(), face).toContain('ev__args-prompt');
        expect(await alice.getPrompt('ev__args-prompt', { city: 'Lyon' }), face).toBe('ok');
        expect(await alice.getPrompt('ev__args-prompt', { city: 'Paris' }), face).toMatchObject({
          rule: 'no-paris',
          reason: 'PERMISSION_DENIED',
        });
      }
    });

    it('a condition that cannot be evaluated refuses (fails closed), saying why', async () => {
      for (const [face, { alice }] of faces) {
        const refused = await alice.callTool('ev__echo', { message: 'no path' });
        expect(refused, face).toMatchObject({ rule: 'echo-under-tmp', reason: 'PERMISSION_DENIED' });
        expect(refused === 'ok' ? '' : refused.message, face).toMatch(
          /^denied by policy rule "echo-under-tmp" \(callers\.yaml line \d+\): its condition could not be evaluated for tool ev__echo \(field not found: path\), and a rule that cannot be evaluated denies$/,
        );
        // With the field it evaluates: refused under /tmp, allowed elsewhere.
        expect(await alice.callTool('ev__echo', { message: 'x', path: '/tmp/a' }), face).toMatchObject({ rule: 'echo-under-tmp' });
        expect(await alice.callTool('ev__echo', { message: 'x', path: '/home/a' }), face).toBe('ok');
      }
    });

    it('an edit of callers.yaml sends resources and prompts list_changed, and the lists and refusals follow it', async () => {
      const alice = faces.get('MCP gateway (stdio)')!.alice;
      // The gateway tells a client of a change to a list it holds: take both lists first.
      await alice.resources();
      await alice.templates();
      await alice.prompts();
      const before = { ...changed };
      world.write(
        'callers.yaml',
        callersWithResourceRules()
          .replace(`"${STATIC}", `, '')
          .replace('prompts: ["ev__completable-prompt"]', 'prompts: ["ev__simple-prompt"]'),
      );
      // The core applies the edit (seen on gRPC, not through the gateway), then the gateway's client is told.
      const grpcAlice = faces.get('gRPC')!.alice;
      await waitFor('the edited rules to apply', async () => (await grpcAlice.read(STATIC)) === 'ok');
      await waitFor('resources/list_changed', () => changed.resources > before.resources);
      await waitFor('prompts/list_changed', () => changed.prompts > before.prompts);
      for (const [face, f] of faces) {
        expect(await f.alice.resources(), face).toContain(STATIC);
        expect(await f.alice.read(STATIC), face).toBe('ok');
        expect(await f.alice.templates(), face).toEqual([BLOB_TEMPLATE]);
        const prompts = await f.alice.prompts();
        expect(prompts, face).toContain('ev__completable-prompt');
        expect(prompts, face).not.toContain('ev__simple-prompt');
        expect(await f.alice.getPrompt('ev__simple-prompt', {}), face).toMatchObject({ rule: 'no-completable-prompt' });
      }
    });
  },
);
