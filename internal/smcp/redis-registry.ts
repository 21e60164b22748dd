/**
 * The shared registry of several mcpd-smcp nodes, in Redis. Each office is a hash of seats (`agent`,
 * `c:<name>`) holding the member as JSON with its node id. Each node keeps a heartbeat key with a TTL and a set
 * of the seats it claimed. A seat whose node has no heartbeat is free: claims take it over at once, lookups skip
 * it, and the periodic sweep (any node) deletes it and reports it so the office hears `notify:leave_office`.
 * So a node killed with SIGKILL disappears within the heartbeat TTL plus one sweep interval.
 */
import type { RedisClientType } from 'redis';
import { seatOf, type ClaimResult, type Member, type OfficeRegistry } from './registry.js';

const P = 'smcp:';
const officeKey = (office: string): string => `${P}o:${office}`;
const aliveKey = (node: string): string => `${P}n:${node}:alive`;
const claimsKey = (node: string): string => `${P}n:${node}:claims`;
const NODES = `${P}nodes`;
/** A claim entry in a node's set: office id and seat, separated by a newline (neither may contain one — validated). */
const entry = (m: Member): string => `${m.office_id}\n${seatOf(m)}`;

const ALIVE_FN = `local function alive(node) return redis.call('EXISTS', '${P}n:' .. node .. ':alive') == 1 end`;

// KEYS: office hash, own claims set. ARGV: seat, member JSON, sid, claim entry.
const CLAIM = `${ALIVE_FN}
local cur = redis.call('HGET', KEYS[1], ARGV[1])
if cur then
  local m = cjson.decode(cur)
  if m.sid ~= ARGV[3] then
    if alive(m.node) then return cur end
    redis.call('SREM', '${P}n:' .. m.node .. ':claims', ARGV[4])
  end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('SADD', KEYS[2], ARGV[4])
return false`;

// KEYS: office hash, own claims set. ARGV: seat, sid, claim entry.
const RELEASE = `local cur = redis.call('HGET', KEYS[1], ARGV[1])
if not cur then return 0 end
if cjson.decode(cur).sid ~= ARGV[2] then return 0 end
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('SREM', KEYS[2], ARGV[3])
return 1`;

// KEYS: office hash. Returns the JSON of live members only.
const LIST = `${ALIVE_FN}
local out = {}
local all = redis.call('HVALS', KEYS[1])
for _, v in ipairs(all) do if alive(cjson.decode(v).node) then table.insert(out, v) end end
return out`;

// KEYS: office hash. ARGV: seat.
const LOOKUP = `${ALIVE_FN}
local cur = redis.call('HGET', KEYS[1], ARGV[1])
if cur and alive(cjson.decode(cur).node) then return cur end
return false`;

// KEYS: office hashes. ARGV: seat. Returns the keys of the offices where a live member holds the seat.
const HOLDING = `${ALIVE_FN}
local out = {}
for _, k in ipairs(KEYS) do
  local cur = redis.call('HGET', k, ARGV[1])
  if cur and alive(cjson.decode(cur).node) then table.insert(out, k) end
end
return out`;

// No KEYS (walks the node set). Returns the JSON of every member removed from dead nodes.
const SWEEP = `${ALIVE_FN}
local out = {}
for _, node in ipairs(redis.call('SMEMBERS', '${NODES}')) do
  if not alive(node) then
    local ck = '${P}n:' .. node .. ':claims'
    for _, e in ipairs(redis.call('SMEMBERS', ck)) do
      local nl = string.find(e, '\\n', 1, true)
      local ok = '${P}o:' .. string.sub(e, 1, nl - 1)
      local seat = string.sub(e, nl + 1)
      local cur = redis.call('HGET', ok, seat)
      if cur and cjson.decode(cur).node == node then
        redis.call('HDEL', ok, seat)
        table.insert(out, cur)
      end
    end
    redis.call('DEL', ck)
    redis.call('SREM', '${NODES}', node)
  end
end
return out`;

export interface RedisRegistryOptions {
  client: RedisClientType;
  node: string;
  /** Heartbeat TTL; a node silent this long is dead. */
  ttlMs: number;
}

export class RedisRegistry implements OfficeRegistry {
  private readonly client: RedisClientType;
  private readonly node: string;
  private readonly ttlMs: number;

  constructor(o: RedisRegistryOptions) {
    this.client = o.client;
    this.node = o.node;
    this.ttlMs = o.ttlMs;
  }

  /**
   * Refreshes this node's heartbeat; called every ttl/3 by the server. Returns false when Redis did not
   * know this node any more (first beat, a beat missed past the TTL, or a Redis restarted empty): then the
   * others may have swept our seats, and the caller claims them again.
   */
  async heartbeat(): Promise<boolean> {
    const [previous] = await this.client
      .multi()
      .set(aliveKey(this.node), String(Date.now()), { expiration: { type: 'PX', value: this.ttlMs }, GET: true })
      .sAdd(NODES, this.node)
      .exec();
    return previous !== null;
  }

  async claim(m: Member): Promise<ClaimResult> {
    const cur = await this.client.eval(CLAIM, {
      keys: [officeKey(m.office_id), claimsKey(this.node)],
      arguments: [seatOf(m), JSON.stringify(m), m.sid, entry(m)],
    });
    return typeof cur === 'string' ? { ok: false, holder: JSON.parse(cur) as Member } : { ok: true };
  }

  async release(m: Member): Promise<boolean> {
    const n = await this.client.eval(RELEASE, {
      keys: [officeKey(m.office_id), claimsKey(this.node)],
      arguments: [seatOf(m), m.sid, entry(m)],
    });
    return n === 1;
  }

  async list(office: string): Promise<Member[]> {
    const all = (await this.client.eval(LIST, { keys: [officeKey(office)] })) as string[];
    return all.map((s) => JSON.parse(s) as Member);
  }

  async computer(office: string, name: string): Promise<Member | undefined> {
    const cur = await this.client.eval(LOOKUP, { keys: [officeKey(office)], arguments: [seatOf({ role: 'computer', name })] });
    return typeof cur === 'string' ? (JSON.parse(cur) as Member) : undefined;
  }

  /** Walks the office hashes with SCAN (not the hot path: the CLI's office lookup), in batches. */
  async officesOf(name: string, max: number): Promise<string[]> {
    const seat = seatOf({ role: 'computer', name });
    const found: string[] = [];
    for await (const keys of this.client.scanIterator({ MATCH: `${P}o:*`, COUNT: 500 })) {
      if (keys.length === 0) continue;
      const hits = (await this.client.eval(HOLDING, { keys, arguments: [seat] })) as string[];
      found.push(...hits.map((k) => k.slice(officeKey('').length)));
      if (found.length >= max) break;
    }
    // SCAN may return a key twice.
    return [...new Set(found)].sort().slice(0, max);
  }

  async sweep(): Promise<Member[]> {
    const all = (await this.client.eval(SWEEP)) as string[];
    return all.map((s) => JSON.parse(s) as Member);
  }

  /** A clean stop: this node's heartbeat goes, so its remaining seats are swept by the others. */
  async close(): Promise<void> {
    await this.client.del(aliveKey(this.node));
  }
}
