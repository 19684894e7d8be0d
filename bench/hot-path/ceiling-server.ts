/**
 * The hot-path benchmark's ceiling: a plain Express handler answering GET /lookup/v1/ with the same
 * JSON body the service gives, from memory, with no key check, no database and no metering. Run as
 * its own process (like the service) so the two are measured alike:
 *   node dist/bench/hot-path/ceiling-server.js BODY_FILE PORT
 */
import { readFileSync } from 'node:fs';
import express from 'express';

const [bodyFile, port] = process.argv.slice(2);
const body = readFileSync(bodyFile, 'utf8');
const app = express();
app.get('/lookup/v1/', (_req, res) => {
  res.type('application/json').send(body);
});
app.get('/healthz', (_req, res) => {
  res.json({ status: 'ok' });
});
app.listen(Number(port), '127.0.0.1', () => console.log(`listening on ${port}`));
