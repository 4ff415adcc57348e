// A server process that a script or the bench spawned: the address it prints, and the status of a
// GET to it. Here, not in bench/, because the build runs scripts/startup-hints.mjs (in the image's
// build too, whose context has no bench/); bench/lib/http.mjs passes these on. No side effect at import.
import { get } from 'node:http';

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
