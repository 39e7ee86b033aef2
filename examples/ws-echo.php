<?php

// bin/petrel start examples/ws-echo.php — WebSocket echo: every text or binary message
// comes back unchanged. GET / without "Upgrade: websocket" answers a page to try it.
declare(strict_types=1);

use Petrel\Http\Request;
use Petrel\Http\Response;
use Petrel\WebSocket\WebSocket;
use Petrel\WebSocket\WebSocketServer;

$page = <<<'HTML'
<!doctype html>
<html lang="en">
<meta charset="utf-8">
<title>Petrel WebSocket echo</title>
<h1>WebSocket echo</h1>
<form id="form"><input id="text" autofocus size="40" value="Hello, Petrel!"> <button>Send</button></form>
<pre id="log"></pre>
<script>
  const log = (line) => { document.getElementById('log').textContent += line + '\n'; };
  const ws = new WebSocket((location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/');
  ws.onopen = () => log('connected' + (ws.extensions ? ' (' + ws.extensions + ')' : ''));
  ws.onmessage = (event) => log('< ' + event.data);
  ws.onclose = (event) => log('closed: ' + event.code + ' ' + event.reason);
  document.getElementById('form').onsubmit = (event) => {
    event.preventDefault();
    const text = document.getElementById('text').value;
    ws.send(text);
    log('> ' + text);
  };
</script>
</html>
HTML;

return static function (Request $request) use ($page): Response {
    if (WebSocketServer::isUpgradeRequest($request)) {
        return WebSocketServer::upgrade($request, static function (WebSocket $ws): void {
            foreach ($ws as $message) {
                $ws->send($message);
            }
        });
    }

    return $request->getPath() === '/' ? Response::html($page) : Response::text("Not Found\n", 404);
};
