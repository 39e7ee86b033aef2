// Drives a WebSocket server with the `ws` package: node client.mjs URL SCENARIO
// Prints one JSON line with what it saw and exits 0, or prints the error and exits 1.
import WebSocket from 'ws';

const [url, scenario] = process.argv.slice(2);
const timer = setTimeout(() => fail(new Error('timed out after 20 s')), 20000);

function fail(error) {
  console.log(JSON.stringify({ ok: false, error: String(error && error.stack || error) }));
  process.exit(1);
}

function open(options) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, options);
    const queue = [];
    const waiting = [];
    ws.on('message', (data, isBinary) => {
      const message = { data: Buffer.from(data), isBinary };
      if (waiting.length) waiting.shift()(message); else queue.push(message);
    });
    ws.next = () => new Promise((res) => (queue.length ? res(queue.shift()) : waiting.push(res)));
    ws.closed = new Promise((res) => ws.on('close', (code, reason) => res({ code, reason: reason.toString() })));
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

function sendFragments(ws, pieces, binary) {
  pieces.forEach((piece, i) => ws.send(piece, { binary, fin: i === pieces.length - 1, compress: false }));
}

async function main() {
  const result = { ok: true };
  if (scenario === 'echo') {
    const ws = await open({ perMessageDeflate: false });
    const text = 'héllo wörld ' + '€'.repeat(1000);
    const binary = Buffer.from(Array.from({ length: 70000 }, (_, i) => (i * 31) % 256));
    ws.send(text);
    const a = await ws.next();
    ws.send(binary);
    const b = await ws.next();
    ws.send('');
    const c = await ws.next();
    result.text = !a.isBinary && a.data.toString('utf8') === text;
    result.binary = b.isBinary && b.data.equals(binary);
    result.empty = !c.isBinary && c.data.length === 0;
    ws.close(1000, 'bye');
    result.close = await ws.closed;
  } else if (scenario === 'fragments') {
    const ws = await open({ perMessageDeflate: false });
    sendFragments(ws, ['frag', 'men', 'ted ', 'κόσμε'], false);
    const a = await ws.next();
    // A UTF-8 character split between two fragments.
    const euro = Buffer.from('€', 'utf8');
    sendFragments(ws, [Buffer.concat([Buffer.from('cost: '), euro.subarray(0, 1)]), euro.subarray(1)], false);
    const b = await ws.next();
    sendFragments(ws, [Buffer.alloc(3000, 1), Buffer.alloc(0), Buffer.alloc(5000, 2)], true);
    const c = await ws.next();
    ws.ping('between');
    result.text = a.data.toString('utf8') === 'fragmented κόσμε';
    result.splitCharacter = b.data.toString('utf8') === 'cost: €';
    result.binary = c.isBinary && c.data.length === 8000 && c.data[0] === 1 && c.data[7999] === 2;
    ws.close(1000);
    result.close = await ws.closed;
  } else if (scenario === 'compression') {
    const ws = await open({ perMessageDeflate: { threshold: 0, clientNoContextTakeover: false } });
    result.extensions = ws.extensions;
    const text = 'compress me, please. '.repeat(5000);
    const messages = 10;
    let same = true;
    for (let i = 0; i < messages; i++) {
      ws.send(text);
      const echo = await ws.next();
      same = same && echo.data.toString('utf8') === text;
    }
    result.echo = same;
    result.plainBytes = text.length * messages;
    result.bytesWritten = ws._socket.bytesWritten;
    result.bytesRead = ws._socket.bytesRead;
    ws.close(1000);
    result.close = await ws.closed;
  } else {
    throw new Error('unknown scenario ' + scenario);
  }
  clearTimeout(timer);
  console.log(JSON.stringify(result));
  process.exit(0);
}

main().catch(fail);
