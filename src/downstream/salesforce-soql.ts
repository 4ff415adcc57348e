import { FieldError } from './rest-engine.js';

/** The SOQL the simulated Salesforce understands: enough for the usual passthrough queries. */
export interface Soql {
  fields: string[];
  from: string;
  where?: { field: string; value: string };
  orderBy?: { field: string; descending: boolean };
  limit?: number;
  offset?: number;
}

const SOQL =
  /^\s*SELECT\s+(.+?)\s+FROM\s+(\w+)(?:\s+WHERE\s+(\w+)\s*=\s*'((?:[^'\\]|\\.)*)')?(?:\s+ORDER\s+BY\s+(\w+)(?:\s+(ASC|DESC))?)?(?:\s+LIMIT\s+(\d+))?(?:\s+OFFSET\s+(\d+))?\s*$/i;

const malformed = (message: string) => new FieldError('q', message, 'param', 'MALFORMED_QUERY');

/**
 * `SELECT f1, f2 FROM Object [WHERE Field = 'value'] [ORDER BY Field [ASC|DESC]] [LIMIT n] [OFFSET m]`.
 * Anything else is Salesforce's MALFORMED_QUERY.
 */
export function parseSoql(query: string | undefined): Soql {
  if (!query || query.trim() === '') throw malformed('unexpected token: <EOF>');
  const m = SOQL.exec(query);
  if (!m) {
    const near = /FROM\s+\w+\s+(.*)$/i.exec(query)?.[1] ?? query.trim().split(/\s+/)[0];
    throw malformed(`unexpected token: '${near}'`);
  }
  const fields = m[1]!.split(',').map((name) => name.trim());
  const bad = fields.find((name) => !/^\w+$/.test(name));
  if (bad !== undefined) throw malformed(`unexpected token: '${bad || ','}'`);
  return {
    fields,
    from: m[2]!,
    ...(m[3] ? { where: { field: m[3], value: m[4]!.replace(/\\(.)/g, '$1') } } : {}),
    ...(m[5] ? { orderBy: { field: m[5], descending: (m[6] ?? '').toUpperCase() === 'DESC' } } : {}),
    ...(m[7] ? { limit: Number(m[7]) } : {}),
    ...(m[8] ? { offset: Number(m[8]) } : {}),
  };
}
