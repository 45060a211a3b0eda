// The Express 4 upstream of the edge tests (Debian's node-express: NODE_PATH=/usr/share/nodejs node express_app.js PORT).
// Express routes loosely (case-insensitive, a trailing / ignored, HEAD answered by the GET handler): the proxies in
// front must judge every spelling it would route here. GET /__runs (asked directly, never through a proxy) tells how
// often each protected handler ran and the Gatehouse-* headers of the last call each handler saw.
'use strict';
const express = require('express');

const runs = { payments: 0, orders: 0, echo: 0 };
const seen = {};
const NAMES = ['gatehouse-outcome', 'gatehouse-route', 'gatehouse-receipt', 'gatehouse-platform', 'gatehouse-attestation'];

function record(name, req) {
  runs[name] += 1;
  seen[name] = Object.fromEntries(NAMES.filter((h) => h in req.headers).map((h) => [h, req.headers[h]]));
}

const app = express();
app.post('/api/payments', (req, res) => { record('payments', req); res.json({ handler: 'payments' }); });
app.get('/api/orders/:id', (req, res) => { record('orders', req); res.json({ handler: 'orders', id: req.params.id }); });
app.get('/api/echo', (req, res) => { record('echo', req); res.json({ handler: 'echo', headers: seen.echo }); });
app.get('/__runs', (req, res) => res.json({ runs, seen }));

const server = app.listen(Number(process.argv[2]), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
