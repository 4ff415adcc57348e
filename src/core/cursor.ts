import { ApiError } from '../shared/errors.js';

/**
 * Opaque page cursors (base64url). A cursor names its list and connection and the last record
 * sequence it showed, so a walk sees each record once even while records are added, and a
 * cursor from another list or connection is refused rather than misread.
 */
export function encodeCursor(list: string, connectionId: string, lastSeq: number): string {
  if (list.includes(':')) throw new Error(`list names must not contain ":" (${list})`);
  return Buffer.from(`${list}:${connectionId}:${lastSeq}`, 'utf8').toString('base64url');
}

/** The sequence a cursor stands after; a 400 naming `cursor` if it is malformed or foreign. */
export function decodeCursor(cursor: string, list: string, connectionId: string): number {
  const bad = (why: string) => ApiError.invalidField('cursor', `cursor ${why}; pass back a nextPageCursor unchanged`);
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw bad('is not a valid cursor');
  const [kind, owner, seq, ...rest] = Buffer.from(cursor, 'base64url').toString('utf8').split(':');
  if (rest.length > 0 || seq === undefined || !/^\d+$/.test(seq)) throw bad('is not a valid cursor');
  if (kind !== list || owner !== connectionId) throw bad('belongs to another list or connection');
  return Number(seq);
}
