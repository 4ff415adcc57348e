import type { IncomingMessage } from 'node:http';
import { verifySignature } from '../../src/webhooks/signature.js';

/** A webhook delivery as a receiver reads it: its body, the connection it names, and whether it is signed with that connection's access token. */
export interface SignedDelivery {
  body: string;
  connectionId: string;
  signed: boolean;
}

/** Reads a delivery's body and checks its signature against `tokens` (access token by connection id), as the spec's receiver does. */
export function readSignedDelivery(req: IncomingMessage, tokens: ReadonlyMap<string, string>, toleranceSeconds?: number): Promise<SignedDelivery> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('error', reject);
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const connectionId = String(req.headers['x-service-connection-id']);
      const accessToken = tokens.get(connectionId);
      const signed =
        accessToken !== undefined &&
        verifySignature({
          accessToken,
          body,
          timestamp: String(req.headers['x-service-timestamp']),
          signature: String(req.headers['x-service-signature']),
          ...(toleranceSeconds === undefined ? {} : { toleranceSeconds }),
        });
      resolve({ body, connectionId, signed });
    });
  });
}
