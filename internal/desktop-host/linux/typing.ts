/**
 * Typing with xdotool in bounded chunks. One `xdotool type` of the whole text could not be stopped: after an
 * abort or the request's deadline every key still arrived (600 keys, 309 of them 200 ms after the abort),
 * and a fixed 10 s cap cut long text half-way without saying how much was typed. Here the request's signal
 * is checked before each chunk and kills the chunk under way, so no key is sent after a stop, and every
 * failure says how many characters were typed.
 */
import { BridgeError, toBridgeError } from '../../contract/desktop-bridge/errors.js';
import { run } from './x-tools.js';

/**
 * Characters (code points) per `xdotool type`. Each run costs a second or more of setup on a loaded machine,
 * so chunks are large; a stop does not wait for a chunk's end anyway (the signal kills it).
 */
const CHUNK_CHARS = 512;
/** A single chunk that takes this long means xdotool is stuck, whatever the request's own timeout. */
const CHUNK_TIMEOUT_MS = 60_000;

/** Splits into chunks of at most `size` code points, never between the halves of a surrogate pair. */
function chunks(text: string, size = CHUNK_CHARS): string[] {
  const points = Array.from(text);
  const out: string[] = [];
  for (let i = 0; i < points.length; i += size) out.push(points.slice(i, i + size).join(''));
  return out;
}

/** `beforeChunk` runs right before each chunk and throws when the input must not go on (the focus moved). */
export async function typeInChunks(
  text: string,
  env: NodeJS.ProcessEnv,
  signal: AbortSignal | undefined,
  beforeChunk: () => Promise<void> = async () => undefined,
): Promise<void> {
  const total = Array.from(text).length;
  let typed = 0;
  for (const chunk of chunks(text)) {
    if (signal?.aborted) throw partial(signal.reason, typed, total, 0);
    await beforeChunk().catch((e: unknown) => {
      throw partial(e, typed, total, 0);
    });
    if (signal?.aborted) throw partial(signal.reason, typed, total, 0);
    const size = Array.from(chunk).length;
    try {
      await run('xdotool', ['type', '--delay', '5', '--', chunk], env, CHUNK_TIMEOUT_MS, signal);
    } catch (e) {
      throw partial(signal?.aborted ? signal.reason : e, typed, total, size);
    }
    typed += size;
  }
}

/** The stop or failure, saying how much of the text the application received (`cut`: characters of a chunk cut short). */
function partial(cause: unknown, typed: number, total: number, cut: number): BridgeError {
  const e = toBridgeError(cause);
  const done = `${typed} of ${total} characters were typed`;
  const maybe = cut > 0 ? `, and part of the next ${cut} may have arrived` : '';
  return new BridgeError(e.code, `${e.message}; ${done}${maybe}`, { ...e.details, typedChars: typed, totalChars: total });
}
