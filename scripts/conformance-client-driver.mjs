#!/usr/bin/env node
// Runs the client scenarios of one scripts/conformance-client.sh run in one process, for the clients
// the suite starts (scripts/conformance-client.mjs with CONFORMANCE_CLIENT_DRIVER set): the MCP SDK and
// the core's control client load once per run instead of once per scenario. Each scenario still has
// its own store, core, gateway and `mcpdctl auth` (scripts/conformance-client-scenario.mjs).
//
//   node scripts/conformance-client-driver.mjs <socket> <jobs> <timeout-ms> [scenario …]
//
// At most <jobs> scenarios run at once; the others wait their turn. <timeout-ms> bounds each scenario
// from its start (the suite's own timeout also counts the wait). Scenarios not in the list (when one is
// given) are refused at once: `client --requirements` also starts scenarios that revision does not
// score. Prints "ready" on stdout once it listens, and each scenario's name on stderr as it starts;
// SIGTERM stops every scenario, then the driver.
import { createServer } from 'node:net';
import { runScenario } from './conformance-client-scenario.mjs';

const [path, jobsArg, timeoutArg, ...wanted] = process.argv.slice(2);
const jobs = Number(jobsArg);
const timeoutMs = Number(timeoutArg);
if (!path || !(jobs >= 1) || !(timeoutMs > 0)) {
  process.stderr.write('usage: conformance-client-driver.mjs <socket> <jobs> <timeout-ms> [scenario …]\n');
  process.exit(2);
}

const running = new Set();
const queue = [];
const server = createServer((socket) => {
  let buf = '';
  const onData = (d) => {
    buf += d;
    const i = buf.indexOf('\n');
    if (i < 0) return;
    socket.off('data', onData); // one request per connection
    let request;
    try {
      request = JSON.parse(buf.slice(0, i));
    } catch (e) {
      // Only this run's clients connect (the socket's folder is the runner's alone); a bad line ends that connection.
      return refuse(socket, `conformance-client-driver: the request is not JSON (${e.message})\n`, 2);
    }
    admit(request, socket);
  };
  socket.setEncoding('utf8').on('data', onData);
  socket.on('error', () => {}); // the client went away: its close stops the scenario
});
server.listen(path, () => process.stdout.write('ready\n'));
process.once('SIGTERM', () => {
  queue.length = 0;
  server.close();
  for (const r of running) r.stop.abort('the run is stopping');
  void Promise.allSettled([...running].map((r) => r.done)).then(() => process.exit(143));
});

const answerer = (socket) => (m) => socket.writable && socket.write(JSON.stringify(m) + '\n');

/** Answers a request the driver does not run: why, on the client's stderr, and its exit code. */
function refuse(socket, stderr, exit) {
  const answer = answerer(socket);
  answer({ stderr });
  answer({ exit });
  socket.end();
}

function admit(request, socket) {
  if (wanted.length > 0 && !wanted.includes(request.scenario))
    return refuse(socket, `conformance-client: ${request.scenario} is not one of this run's scenarios: not run\n`, 1);
  queue.push({ request, socket, answer: answerer(socket) });
  next();
}

function next() {
  while (running.size < jobs && queue.length > 0) {
    const { request, socket, answer } = queue.shift();
    if (socket.destroyed) continue; // the suite gave up on it while it waited
    process.stderr.write(`conformance: client scenario ${request.scenario}\n`);
    const stop = new AbortController();
    const timer = setTimeout(() => stop.abort(`timed out after ${timeoutMs} ms`), timeoutMs);
    socket.once('close', () => stop.abort('the client under test ended'));
    const run = { stop };
    run.done = runScenario({
      url: request.url,
      context: request.context,
      output: (text) => answer({ stderr: text }),
      signal: stop.signal,
    }).then((exit) => {
      clearTimeout(timer);
      answer({ exit });
      socket.end();
      running.delete(run);
      next();
    });
    running.add(run);
  }
}
