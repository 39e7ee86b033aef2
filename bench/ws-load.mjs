// The WebSocket load generator of `petrel bench websocket`, on node's `ws` package (the one
// tests/Interop/node installs: npm install --prefix tests/Interop/node). It runs in its own
// process, like wrk for HTTP, and prints one JSON object on stdout.
//
//   node bench/ws-load.mjs echo   URL N SECONDS   N connections, each sends a 32-byte text
//                                                 message and waits for its echo, again and
//                                                 again: round trips/s and their latency
//   node bench/ws-load.mjs hold   URL N SECONDS   opens N connections, holds them idle for
//                                                 SECONDS, closes them (the server's RSS is
//                                                 read meanwhile by petrel bench)
//   node bench/ws-load.mjs fanout URL N SECONDS   N members of examples/chat; one sends a
//                                                 message, timed until all N have it; again
//                                                 until SECONDS are up (at least 3 times)
//
// Connections are opened 100 at a time; compression is off (perMessageDeflate: false) so
// the figures are the server's framing and scheduling, not zlib. Latency figures are in ms.
// Every wait is bounded: the whole run gives up after SECONDS + 60 s.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '..', 'tests', 'Interop', 'node', 'package.json'));
let WebSocket;
try {
  WebSocket = require('ws');
} catch {
  console.log(JSON.stringify({ ok: false, error: 'the ws package is not installed: npm install --prefix tests/Interop/node' }));
  process.exit(1);
}

const [mode, url, countArg, secondsArg] = process.argv.slice(2);
const count = Number(countArg);
const seconds = Number(secondsArg);
if (!['echo', 'hold', 'fanout'].includes(mode) || !url || !(count > 0) || !(seconds > 0)) {
  console.error('usage: node ws-load.mjs echo|hold|fanout URL N SECONDS');
  process.exit(2);
}
const BATCH = 100;
setTimeout(() => fail(new Error(`gave up after ${seconds + 60} s`)), (seconds + 60) * 1000).unref();

function fail(error) {
  console.log(JSON.stringify({ ok: false, error: String((error && error.message) || error) }));
  process.exit(1);
}

const now = () => Number(process.hrtime.bigint()) / 1e6; // ms
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Opens one connection; resolves with it, or with null when it failed (counted by the caller). */
function connect(onMessage) {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { perMessageDeflate: false, handshakeTimeout: 20000 });
    ws.on('message', (data) => onMessage(ws, data));
    ws.once('open', () => resolve(ws));
    ws.once('error', () => resolve(null));
  });
}

/** N connections, BATCH at a time: [open sockets, failures, seconds it took]. */
async function openAll(onMessage) {
  const started = now();
  const open = [];
  let failed = 0;
  for (let i = 0; i < count; i += BATCH) {
    const batch = await Promise.all(Array.from({ length: Math.min(BATCH, count - i) }, () => connect(onMessage)));
    for (const ws of batch) ws === null ? failed++ : open.push(ws);
  }
  if (open.length === 0) fail(new Error(`could not open any connection to ${url} (${failed} failed)`));
  return [open, failed, (now() - started) / 1000];
}

function percentile(sorted, p) {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function latencies(samples) {
  const sorted = Float64Array.from(samples).sort();
  const round = (v) => Math.round(v * 1000) / 1000;
  return {
    p50_ms: round(percentile(sorted, 50)),
    p90_ms: round(percentile(sorted, 90)),
    p99_ms: round(percentile(sorted, 99)),
    max_ms: round(sorted.length ? sorted[sorted.length - 1] : 0),
  };
}

function closeAll(sockets) {
  for (const ws of sockets) ws.terminate();
}

async function echo() {
  const payload = 'x'.repeat(32);
  const sentAt = new Map();
  const samples = [];
  let measuring = false;
  let stopped = false;
  let errors = 0;
  const send = (ws) => {
    sentAt.set(ws, now());
    ws.send(payload);
  };
  const [open, failed, openSeconds] = await openAll((ws, data) => {
    if (data.length !== payload.length) errors++;
    if (measuring) samples.push(now() - sentAt.get(ws));
    if (!stopped) send(ws);
  });
  for (const ws of open) ws.on('close', () => { if (!stopped) errors++; });
  for (const ws of open) send(ws);
  await sleep(Math.min(1000, seconds * 200)); // every connection is in its loop before counting
  measuring = true;
  const started = now();
  await sleep(seconds * 1000);
  measuring = false;
  const elapsed = (now() - started) / 1000;
  stopped = true;
  closeAll(open);
  return { connections: count, opened: open.length, connect_failures: failed, open_seconds: openSeconds,
    seconds: elapsed, round_trips: samples.length, rps: samples.length / elapsed, errors: errors + failed, ...latencies(samples) };
}

async function hold() {
  const [open, failed, openSeconds] = await openAll(() => {});
  let closedEarly = 0;
  for (const ws of open) ws.on('close', () => closedEarly++);
  await sleep(seconds * 1000);
  const stillOpen = open.length - closedEarly;
  closeAll(open);
  return { connections: count, opened: open.length, connect_failures: failed, open_seconds: openSeconds,
    rps: open.length / openSeconds, held: stillOpen, errors: failed + closedEarly };
}

async function fanout() {
  let current = null; // { text, left, started, done }
  let welcomes = 0;
  let errors = 0;
  const [open, failed, openSeconds] = await openAll((ws, data) => {
    let message;
    try { message = JSON.parse(data.toString()); } catch { errors++; return; }
    if (message.type === 'welcome') welcomes++;
    else if (message.type === 'message' && current !== null && message.text === current.text && --current.left === 0) current.done();
    else if (message.type === 'error') errors++;
  });
  const deadline = now() + 20000;
  while (welcomes < open.length && now() < deadline) await sleep(10);
  let dropped = 0;
  for (const ws of open) ws.on('close', () => dropped++);
  const samples = [];
  const started = now();
  for (let i = 0; now() - started < seconds * 1000 || i < 3; i++) {
    const text = `broadcast ${i}`;
    const all = new Promise((resolve) => { current = { text, left: open.length - dropped, done: resolve }; });
    current.started = now();
    open[0].send(JSON.stringify({ text }));
    const timedOut = await Promise.race([all.then(() => false), sleep(10000).then(() => true)]);
    if (timedOut) { errors++; break; }
    samples.push(now() - current.started);
  }
  const elapsed = (now() - started) / 1000;
  closeAll(open);
  return { connections: count, opened: open.length, connect_failures: failed, open_seconds: openSeconds,
    welcomed: welcomes, broadcasts: samples.length, seconds: elapsed, rps: samples.length / elapsed,
    deliveries_per_s: (samples.length * open.length) / elapsed, errors: errors + failed + dropped, ...latencies(samples) };
}

try {
  const result = await { echo, hold, fanout }[mode]();
  console.log(JSON.stringify({ ok: true, mode, ...result }));
  process.exit(0);
} catch (error) {
  fail(error);
}
