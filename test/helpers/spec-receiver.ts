import { createHash } from 'node:crypto';
import { type Received, Receiver } from './receiver.js';

/** A flaw a receiver may have; receiver-check must find each. */
export type Flaw = 'accepts-forged' | 'skips-unsigned' | 'no-timestamp-check' | 'fails-duplicates' | 'too-slow';

/**
 * A webhook receiver written from the spec alone (section 5): it recomputes
 * sha256(accessToken + raw body + x-service-timestamp), rejects stale timestamps (5 min) and
 * answers a repeated eventId with a 200 without processing it again. `flaws` break it on purpose;
 * `failFirst` makes it answer 503 to its first requests, as a receiver still starting up in CI.
 */
export class SpecReceiver extends Receiver {
  accessToken = '';
  readonly processed: Received[] = [];
  private readonly seen = new Set<string>();

  constructor(flaws: Flaw[] = [], options: { toleranceSeconds?: number; failFirst?: number } = {}) {
    super();
    const tolerance = options.toleranceSeconds ?? 300;
    const failFirst = options.failFirst ?? 0;
    this.behaviour = (request, index) => {
      if (index < failFirst) return 503;
      if (flaws.includes('too-slow')) return 'hang';
      const signature = request.headers['x-service-signature'];
      const timestamp = request.headers['x-service-timestamp'];
      if (typeof signature !== 'string' || typeof timestamp !== 'string') {
        if (!flaws.includes('skips-unsigned')) return 401;
      } else {
        const expected = createHash('sha256')
          .update(this.accessToken + request.body + timestamp)
          .digest('hex');
        const matches = flaws.includes('accepts-forged') ? /^[0-9a-f]{64}$/.test(signature) : signature === expected;
        if (!matches) return 401;
        if (!flaws.includes('no-timestamp-check') && Math.abs(Date.now() / 1000 - Number(timestamp)) > tolerance) return 400;
      }
      const eventId = request.json.eventId as string;
      if (this.seen.has(eventId)) return flaws.includes('fails-duplicates') ? 500 : 200;
      this.seen.add(eventId);
      this.processed.push(request);
      return 200;
    };
  }
}
