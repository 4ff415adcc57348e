import { ApiError } from '../shared/errors.js';
import { fromBase64Url, toBase64Url } from '../shared/text-codec.js';

/**
 * Opaque page cursors (base64url). A cursor names its list and connection and the last record
 * sequence it showed, so a walk sees each record once even while records are added, and a
 * cursor from another list or connection is refused rather than misread.
 */
export function encodeCursor(list: string, connectionId: string, lastSeq: number): string {
  if (list.includes(':')) throw new Error(`list names must not contain ":" (${list})`);
  return toBase64Url(`${list}:${connectionId}:${lastSeq}`);
}

/** The sequence a cursor stands after; a 400 naming `cursor` if it is malformed or foreign. */
export function decodeCursor(cursor: string, list: string, connectionId: string): number {
  const bad = (why: string) => ApiError.invalidField('cursor', `cursor ${why}; pass back a nextPageCursor unchanged`);
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw bad('is not a valid cursor');
  const [kind, owner, seq, ...rest] = fromBase64Url(cursor).split(':');
  if (rest.length > 0 || seq === undefined || !/^\d+$/.test(seq)) throw bad('is not a valid cursor');
  if (kind !== list || owner !== connectionId) throw bad('belongs to another list or connection');
  return Number(seq);
}
