/** Text fields over AT-SPI: the focused one in a window, and its text, for typed text to be read back. */
import type { Clock } from '../clock.js';
import type { AtspiBus, NodeAddr } from './atspi-bus.js';
import type { FieldText } from './typed-check.js';

const I = {
  accessible: 'org.a11y.atspi.Accessible',
  text: 'org.a11y.atspi.Text',
};
/** AT-SPI's ATSPI_STATE_FOCUSED. */
const STATE_FOCUSED = 12;
/** Nodes looked at for the focused field: past this the window is too big to search, and the text goes unverified. */
const MAX_NODES = 2000;
/** Texts longer than this are not read back (the check would cost more than the typing). */
const MAX_FIELD_CHARS = 100_000;
/** How long the focused field is looked for: the application takes the X focus change in at its own pace. */
const FIND_FOCUS_MS = 1000;

/** The field's text and caret; undefined when it has no readable text, or a password role (it shows bullets). */
export async function readField(bus: AtspiBus, a: NodeAddr): Promise<FieldText | undefined> {
  try {
    const [[role], [ifaces]] = await Promise.all([bus.call(a, I.accessible, 'GetRoleName'), bus.call(a, I.accessible, 'GetInterfaces')]);
    if (role === 'password text' || !(ifaces as string[]).includes(I.text)) return undefined;
    const count = Number(await bus.prop(a, I.text, 'CharacterCount'));
    if (!Number.isInteger(count) || count < 0 || count > MAX_FIELD_CHARS) return undefined;
    const [[text], caret] = await Promise.all([
      count === 0 ? Promise.resolve(['']) : bus.call(a, I.text, 'GetText', 'ii', [0, count]),
      bus.prop(a, I.text, 'CaretOffset'),
    ]);
    return typeof text === 'string' ? { text, caret: Number(caret ?? -1) } : undefined;
  } catch {
    return undefined; // gone, or no Text after all: the typed text goes unverified, saying so
  }
}

/**
 * The focused node with a Text interface in the application's window titled `windowTitle`, looked for until
 * the application reports the focus (bounded by FIND_FOCUS_MS), or undefined.
 */
export async function focusedField(
  bus: AtspiBus,
  app: NodeAddr,
  windowTitle: string,
  clock: Clock,
  signal: AbortSignal = new AbortController().signal,
): Promise<NodeAddr | undefined> {
  const until = clock.now() + FIND_FOCUS_MS;
  for (;;) {
    const found = await searchFocused(bus, app, windowTitle);
    if (found || clock.now() >= until) return found;
    await clock.sleep(50, signal);
  }
}

async function searchFocused(bus: AtspiBus, app: NodeAddr, windowTitle: string): Promise<NodeAddr | undefined> {
  const windows = await bus.children(app);
  // Ignored: a window that closed meanwhile has no name, so it is not the one looked for.
  const names = await Promise.all(windows.map((w) => bus.prop(w, I.accessible, 'Name').catch(() => undefined)));
  let level = windows.filter((_, i) => names[i] === windowTitle);
  let seen = 0;
  while (level.length > 0 && seen < MAX_NODES) {
    seen += level.length;
    const read = await Promise.all(
      level.map(async (a) => {
        // Ignored: a node that vanished meanwhile is simply not the focused one.
        const [state] = await bus.call(a, I.accessible, 'GetState').catch(() => [[]]);
        const low = Array.isArray(state) ? Number(state[0] ?? 0) : 0;
        const focused = (low & (1 << STATE_FOCUSED)) !== 0;
        return { a, focused, children: focused ? [] : await bus.children(a).catch(() => []) };
      }),
    );
    const hit = read.find((r) => r.focused);
    if (hit) return hit.a;
    level = read.flatMap((r) => r.children);
  }
  return undefined;
}
