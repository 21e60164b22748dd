import { MIN_NODE_SECRET_LENGTH } from './redis-message-seal.js';

/**
 * What is wrong with the node secret of a node on Redis, or undefined. It keys the seal of every message the
 * nodes exchange there, so it must be the nodes' alone: never the client API key, which every agent and
 * computer holds.
 */
export function nodeSecretProblem(secret: string | undefined, apiKey: string | undefined, envName: string): string | undefined {
  const make = `set ${envName} to the same random value on every node (e.g. "openssl rand -base64 32"), known to the nodes only`;
  if (!secret) return `refusing to share offices through Redis without a node secret: ${envName} is unset; ${make}`;
  if (secret.length < MIN_NODE_SECRET_LENGTH)
    return `the node secret in ${envName} is too short (${secret.length} characters, at least ${MIN_NODE_SECRET_LENGTH}); ${make}`;
  if (secret === apiKey) return `the node secret in ${envName} equals the client API key: every agent and computer holds that key; ${make}`;
  return undefined;
}
