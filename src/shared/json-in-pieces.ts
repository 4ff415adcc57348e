import { utf8Bytes } from './text-codec.js';

/**
 * JSON text put together from `parts`, each made when its turn comes, and its UTF-8 bytes, in
 * pieces (./pieces.ts): run with `runInTurns`, an answer of megabytes (a scenario run's report, a
 * connection's 10,000 deliveries) does not hold the server for the tens of milliseconds one
 * `JSON.stringify` and one encoding of it take; with `runToEnd`, the same text at once. The text is
 * put together as it goes (`+=`), not joined at the end: joining 11 MB is one piece of 10-15 ms,
 * and the dev server sends the bytes without ever reading the text.
 *
 * @example const { json, encoded } = await runInTurns(jsonInPieces(['[', '1', ',2', ']'])); // json === '[1,2]'
 */
export function* jsonInPieces(parts: Iterable<string>): Generator<void, { json: string; encoded: Uint8Array }, void> {
  let json = '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (const part of parts) {
    json += part;
    const bytes = utf8Bytes(part);
    chunks.push(bytes);
    size += bytes.length;
    yield;
  }
  const encoded = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    encoded.set(chunk, offset);
    offset += chunk.length;
    yield;
  }
  return { json, encoded };
}
