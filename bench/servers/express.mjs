// express answering the very bytes (status, headers, body) the sandbox answered, as an express app a team might write
// for a mock: one route, `res.set` and `res.send`, on node's defaults (no young-generation setting: a user's process).
// Usage: node bench/servers/express.mjs RESPONSE.json PATH   ({ status, headers, body }; PATH without its query)
import { readFileSync } from 'node:fs';
import express from 'express';

const [file, path] = process.argv.slice(2);
const { status, headers, body } = JSON.parse(readFileSync(file, 'utf8'));
const app = express();
app.get(path, (_req, res) => {
  res.status(status).set(headers).send(body);
});
const server = app.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ url: `http://127.0.0.1:${server.address().port}` })));
process.once('SIGTERM', () => process.exit(0));
