// HTTP helpers shared by the bench and scripts/serve-loads.mjs (no side effect at import: the
// test that runs serve-loads imports this too).
import { get } from 'node:http';
import { createServer } from 'node:net';

/** The address a spawned server prints (`listening on http://127.0.0.1:PORT`, as `serve` does); rejects if it exits first. */
export function listeningUrl(child) {
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const match = /listening on (http:\/\/[\d.:]+)/.exec(out);
      if (match) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code} before it listened: ${out}`)));
  });
}

/** The status of a GET of `url` on a fresh connection (0 when it cannot connect): node:http, not fetch, whose first call loads undici. */
export function httpStatus(url) {
  return new Promise((resolve) => {
    get(url, { agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    }).on('error', () => resolve(0));
  });
}

/** A free port on 127.0.0.1, for what takes a port number and not 0 (a CLI's flag, a container's published port). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}
