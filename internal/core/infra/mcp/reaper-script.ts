/**
 * The reaper sidecar, run as `node -e REAPER_SCRIPT` in its own process group. Node has no
 * PR_SET_PDEATHSIG, so children cannot notice the core's death by themselves: the reaper holds a
 * pipe from the core, learns each server's process group (`+pgid` / `-pgid` lines) and, when the
 * pipe reaches EOF because the core died, SIGTERMs every group, waits a grace period, SIGKILLs
 * what is left and exits. Kept as a plain string so it runs without a build step.
 */
const REAPER_GRACE_MS = 2000;

export const REAPER_SCRIPT = String.raw`'use strict';
const fs = require('fs');
const GRACE = Number(process.env.MCPD_REAPER_GRACE_MS || ${REAPER_GRACE_MS});
const groups = new Set();
let buf = '';
let ending = false;
process.on('SIGINT', () => {});
process.on('SIGHUP', () => {});
function live(g) {
  let names;
  try { names = fs.readdirSync('/proc'); } catch (e) {
    try { process.kill(-g, 0); return true; } catch (err) { return err.code === 'EPERM'; }
  }
  for (const p of names) {
    if (!/^[0-9]+$/.test(p)) continue;
    let s;
    try { s = fs.readFileSync('/proc/' + p + '/stat', 'utf8'); } catch (e) { continue; }
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    if (Number(f[2]) === g && f[0] !== 'Z' && f[0] !== 'X') return true;
  }
  return false;
}
function signalAll(sig) {
  for (const g of groups) { try { process.kill(-g, sig); } catch (e) { /* already gone */ } }
}
function finish() {
  if (ending) return;
  ending = true;
  signalAll('SIGTERM');
  const until = Date.now() + GRACE;
  const tick = () => {
    for (const g of Array.from(groups)) if (!live(g)) groups.delete(g);
    if (groups.size === 0 || Date.now() >= until) { signalAll('SIGKILL'); process.exit(0); }
    setTimeout(tick, 50);
  };
  tick();
}
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => {
  buf += d;
  let i;
  while ((i = buf.indexOf('\n')) >= 0) {
    const line = buf.slice(0, i);
    buf = buf.slice(i + 1);
    const g = Number(line.slice(1));
    if (!Number.isInteger(g) || g <= 1) continue;
    if (line[0] === '+') groups.add(g); else if (line[0] === '-') groups.delete(g);
  }
});
process.stdin.on('end', finish);
process.stdin.on('error', finish);
`;
