<?php

// bin/petrel start examples/chat/app.php — a chat room. GET / serves the page, /chat
// upgrades to WebSocket; every text message reaches every connected client. With
// REDIS_URL set, through Redis pub/sub: across every worker and every instance (see
// docs/websocket-scale-out.md). Without it, in-process: only clients of the same worker
// hear each other (run --workers=1; the start warns otherwise).
declare(strict_types=1);

require_once __DIR__ . '/autoload.php';

return Chat\Chat::app(getenv());
