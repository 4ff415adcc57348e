// HTTP helpers of the bench. The two a spawned server needs live in scripts/server-process.mjs (the build uses them
// too) and are passed on from here. No side effect at import: the test that runs scripts/serve-loads.mjs imports them.
import { createServer } from 'node:net';

export { httpStatus, listeningUrl } from '../../scripts/server-process.mjs';

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
