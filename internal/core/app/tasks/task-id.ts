import { randomBytes } from 'node:crypto';

/**
 * A new task id: 128 random bits in base64url (an id cannot be guessed, and is looked up under its caller
 * anyway), never starting with `-`. People copy ids into commands (`mcpdctl tasks alice <id> --cancel`),
 * where one starting with `-` (1 draw in 64) reads as an option; such a draw
 * is drawn again.
 */
export function newTaskId(random: (n: number) => Buffer = randomBytes): string {
  for (;;) {
    const id = random(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}
