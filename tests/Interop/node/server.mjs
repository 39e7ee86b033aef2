// An echo server made with the `ws` package, for Petrel's client: node server.mjs
// Listens on 127.0.0.1, a free port, prints "PORT <n>", serves until stdin closes.
import { WebSocketServer } from 'ws';

const server = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: { threshold: 0 } });
server.on('connection', (ws) => {
  ws.on('message', (data, isBinary) => ws.send(data, { binary: isBinary }));
  ws.on('ping', () => {});
});
server.on('listening', () => console.log('PORT ' + server.address().port));
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
setTimeout(() => process.exit(0), 60000).unref();
