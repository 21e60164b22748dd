import { describe, expect, it } from 'vitest';
import type { Face } from '../../../contract/control/control.js';
import type { CallDone, StartedCall } from '../../../contract/model/downstream.js';
import type { ToolEntry } from '../../../contract/model/tool.js';
import type { JsonObject, JsonValue } from '../../../shared/json.js';
import type { Core } from '../core.js';
import { appOnlyInterceptor } from './app-only.js';
import { CoreDoor } from './door.js';
import type { CallEnd, CallNote, Interceptor } from './interceptor.js';

// The app-only interceptor on the door: which faces hide MCP Apps' app-only tools from their lists, and
// refuse a call once it reached one (as ToolCalls asks the note's `admit`), and how the refusal ends.

const tool = (name: string, visibility?: JsonValue): ToolEntry => ({
  name,
  server: 'fx',
  fingerprint: 'f',
  downstreamName: name,
  definition: { name, inputSchema: { type: 'object' }, ...(visibility === undefined ? {} : { _meta: { ui: { visibility } } }) },
  definitionHash: name,
});

const TOOLS = [
  tool('plain'),
  tool('both', ['model', 'app']),
  tool('model', ['model']),
  tool('app', ['app']),
  tool('nobody', []),
  tool('odd', 'app'), // not an array: taken as absent
];
const byName = new Map(TOOLS.map((t) => [t.name, t]));

/** The use cases behind the door: a tool call asks the door's `admit` as ToolCalls.dispatch does, then answers. */
function fakeCore(): { core: Core; sent: string[] } {
  const sent: string[] = [];
  const core = {
    toolCall: (_c: string, name: string, _a: JsonObject, _o: object, note: CallNote, done: CallDone): StartedCall => {
      const entry = byName.get(name);
      if (!entry) throw new Error(`no tool ${name}`);
      const refused = note.admit?.(entry);
      if (refused) done.error(refused);
      else {
        sent.push(name);
        done.result({ content: [] });
      }
      return { cancel: () => {} };
    },
    listTools: async () => ({ etag: 'e', tools: TOOLS, collisions: [] }),
    watchTools: () => once({ etag: 'e', tools: TOOLS.slice(0, 2), catalog: TOOLS, collisions: [] }),
    resources: {},
    prompts: {},
    context: {},
  };
  return { core: core as unknown as Core, sent };
}

async function* once<T>(snap: T): AsyncGenerator<T> {
  yield snap;
}

const names = (ts: readonly { name: string }[]) => ts.map((t) => t.name);

describe('app-only tools at the door', () => {
  it.each<Face>(['session', 'smcp'])('the %s face lists no tool without "model" in its visibility, in lists and watches', async (face) => {
    const api = new CoreDoor(fakeCore().core, [appOnlyInterceptor()]).for(face);
    expect(names((await api.listTools('alice')).tools)).toEqual(['plain', 'both', 'model', 'odd']);
    const snap = (await api.watchTools('alice').next()).value;
    expect(names(snap.tools)).toEqual(['plain', 'both']);
    expect(names(snap.catalog ?? [])).toEqual(['plain', 'both', 'model', 'odd']);
  });

  it.each<Face>(['dashboard', 'grpc'])('the %s face lists every tool (it hosts apps, or serves operators)', async (face) => {
    const api = new CoreDoor(fakeCore().core, [appOnlyInterceptor()]).for(face);
    expect(names((await api.listTools('alice')).tools)).toEqual(names(TOOLS));
  });

  it('a model face refuses a call that reached an app-only tool, before it is sent; the end says refused', async () => {
    const ends: CallEnd[] = [];
    const audit: Interceptor = { name: 'audit', enter: () => (end) => ends.push(end) };
    const { core, sent } = fakeCore();
    const door = new CoreDoor(core, [audit, appOnlyInterceptor()]);
    await expect(door.for('session').callTool('alice', 'app', {}, {})).rejects.toThrow(
      'tool app is for its MCP App only (its _meta.ui.visibility is ["app"]): alice\'s model may not call it; ' +
        'the app calls it from a host that renders it, such as the mcpd dashboard',
    );
    await expect(door.for('smcp').callTool('alice', 'nobody', {}, {})).rejects.toMatchObject({ reason: 'PERMISSION_DENIED' });
    await door.for('session').callTool('alice', 'both', {}, {});
    await door.for('dashboard').callTool('alice', 'app', {}, {});
    expect(sent).toEqual(['both', 'app']);
    expect(ends.map((e) => e.refused)).toEqual([true, true, false, false]);
  });

  it("gives a call's note the same judgement for the tools a use case answers with (tool search)", () => {
    const door = new CoreDoor(fakeCore().core, [appOnlyInterceptor()]);
    const seen = (face: Face) => {
      const note = door.callOf(face, { method: 'tools/call', caller: 'alice', target: 'mcpd_search_tools' }).note;
      return TOOLS.filter((t) => note.visible?.(t.name, t.definition)).map((t) => t.name);
    };
    expect(seen('session')).toEqual(['plain', 'both', 'model', 'odd']);
    expect(seen('dashboard')).toEqual(names(TOOLS));
  });
});
