import { isRealInstant } from '../../shared/calendar.js';
import { FieldError } from '../rest-engine.js';

/**
 * The SOQL the simulated Salesforce understands, from the SOQL reference
 * (https://developer.salesforce.com/docs/atlas.en-us.soql_sosl.meta/soql_sosl/):
 *
 * `SELECT field, Parent.Field, … | COUNT() FROM Object
 *  [WHERE cond] [ORDER BY field [ASC|DESC] [NULLS FIRST|LAST], …] [LIMIT n] [OFFSET m]`
 *
 * where `cond` is comparisons (`=`, `!=`, `<>`, `<`, `<=`, `>`, `>=`, `LIKE`, `IN (…)`,
 * `NOT IN (…)`) joined by `AND`, `OR`, `NOT` and parentheses. As in Salesforce, `AND` and `OR`
 * may not be mixed at one level without parentheses. Anything else is MALFORMED_QUERY.
 */

/** A literal: a quoted string, a number, a boolean, null, a date or date-time, or a date literal (`TODAY`, `LAST_N_DAYS:7`). */
export type SoqlValue =
  /** `literalAt`: in a LIKE pattern, where `\%` or `\_` stood (the character itself, not a wildcard). */
  | { kind: 'string'; value: string; literalAt?: ReadonlySet<number> }
  | { kind: 'number'; value: number }
  | { kind: 'boolean'; value: boolean }
  | { kind: 'null' }
  | { kind: 'date'; value: string }
  | { kind: 'datetime'; value: string }
  | { kind: 'dateLiteral'; name: string; n?: number };

export type Comparator = '=' | '!=' | '<' | '<=' | '>' | '>=' | 'LIKE' | 'IN' | 'NOT IN';

export type Condition =
  | { kind: 'compare'; field: string; op: Comparator; value: SoqlValue | SoqlValue[] }
  | { kind: 'and' | 'or'; parts: Condition[] }
  | { kind: 'not'; part: Condition };

export interface OrderItem {
  field: string;
  descending: boolean;
  nullsLast: boolean;
}

/** A child relationship subquery in the select list: `(SELECT LastName FROM Contacts)`. */
export interface SubQuery {
  /** The child relationship name as written (`Contacts`). */
  relationship: string;
  query: Soql;
}

export interface Soql {
  /** Field paths as written (`Name`, `Account.Name`); empty for `COUNT()`. */
  fields: string[];
  /** Child relationship subqueries, in the order written (top-level queries only). */
  subqueries?: SubQuery[];
  count: boolean;
  from: string;
  where?: Condition;
  orderBy: OrderItem[];
  limit?: number;
  offset?: number;
}

/** The largest OFFSET Salesforce takes. */
export const MAX_OFFSET = 2000;

/**
 * Salesforce's documented limits ("SOQL and SOSL Limits for Search Queries"): a statement of at
 * most 100,000 characters, strings in a WHERE clause of at most 4,000. NOT and parentheses nest
 * at most 100 deep: Salesforce documents no depth; no hand-written or generated query comes near
 * it, and the parser (a recursive descent) must stop long before the stack does.
 */
export const SOQL_LIMITS = { queryLength: 100_000, whereString: 4000, nesting: 100 } as const;

const malformed = (message: string) => new FieldError('q', message, 'param', 'MALFORMED_QUERY');

/** A string's `raw` is its text between the quotes as written; `literalAt` where `\%` or `\_` stood in its value. */
type Token = { type: 'word' | 'string' | 'number' | 'op' | 'punct'; text: string; value?: string; raw?: string; literalAt?: Set<number> };

/**
 * What each escape sequence of a quoted string stands for (Salesforce's "Quoted String Escape Sequences"): `\n` `\N`
 * new line, `\r` `\R` carriage return, `\t` `\T` tab, `\b` `\B` backspace (U+0008: the page says "Bell", its
 * translations and Java, whose escapes these are, say backspace), `\f` `\F` form feed, `\"`, `\'` and `\\` the
 * character itself. `\%` and `\_` (a LIKE pattern's literal `%` and `_`) and `\uXXXX` are read apart; any other
 * is an error.
 */
const ESCAPES: Record<string, string> = {
  n: '\n',
  N: '\n',
  r: '\r',
  R: '\r',
  t: '\t',
  T: '\t',
  b: '\b',
  B: '\b',
  f: '\f',
  F: '\f',
  '"': '"',
  "'": "'",
  '\\': '\\',
};

/**
 * A quoted string from `start` (its opening quote): its value, where `\%` and `\_` stood in it, and where it ends.
 * Salesforce's errors for a bad escape, word for word.
 */
function quotedString(query: string, start: number): { value: string; literalAt: Set<number>; end: number } {
  let value = '';
  const literalAt = new Set<number>();
  let i = start + 1;
  let from = i;
  for (;;) {
    if (i >= query.length) throw malformed(`line 1:${i} mismatched character '<EOF>' expecting '''`);
    const d = query[i]!;
    if (d === "'") break;
    if (d !== '\\') {
      i++;
      continue;
    }
    value += query.slice(from, i);
    const next = query[i + 1] ?? '';
    const raw = () => query.slice(start + 1, Math.max(query.indexOf("'", i + 2), i + 2));
    if (next === '%' || next === '_') {
      literalAt.add(value.length);
      value += next;
      i += 2;
    } else if (next === 'u') {
      const hex = query.slice(i + 2, i + 6);
      if (!/^[0-9A-Fa-f]{4}$/.test(hex)) throw malformed(`Invalid string literal '${raw()}'. Illegal unicode sequence. '\\u${hex}' in string literal.`);
      value += String.fromCharCode(Number.parseInt(hex, 16));
      i += 6;
    } else if (Object.hasOwn(ESCAPES, next)) {
      value += ESCAPES[next];
      i += 2;
    } else {
      if (i + 1 >= query.length) throw malformed(`line 1:${i + 1} mismatched character '<EOF>' expecting '''`);
      throw malformed(`Invalid string literal '${raw()}'. Illegal character sequence '\\${next}' in string literal.`);
    }
    from = i;
  }
  return { value: value + query.slice(from, i), literalAt, end: i + 1 };
}

function tokenize(query: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < query.length) {
    const c = query[i]!;
    if (/\s/.test(c)) {
      i++;
    } else if (c === "'") {
      const { value, literalAt, end } = quotedString(query, i);
      tokens.push({ type: 'string', text: `'${value}'`, value, raw: query.slice(i + 1, end - 1), ...(literalAt.size > 0 ? { literalAt } : {}) });
      i = end;
    } else if (/[<>!=]/.test(c)) {
      const two = query.slice(i, i + 2);
      const op = ['<=', '>=', '!=', '<>'].includes(two) ? two : c;
      if (op === '!') throw malformed(`unexpected token: '!'`);
      tokens.push({ type: 'op', text: op === '<>' ? '!=' : op });
      i += op.length;
    } else if (/[(),]/.test(c)) {
      tokens.push({ type: 'punct', text: c });
      i++;
    } else {
      const m = /^[A-Za-z0-9_.:+-]+/.exec(query.slice(i));
      if (!m) throw malformed(`unexpected token: '${c}'`);
      const text = m[0];
      tokens.push({ type: /^[+-]?\d+(\.\d+)?$/.test(text) ? 'number' : 'word', text });
      i += text.length;
    }
  }
  return tokens;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const DATE_LITERALS = new Set([
  'YESTERDAY',
  'TODAY',
  'TOMORROW',
  'LAST_WEEK',
  'THIS_WEEK',
  'NEXT_WEEK',
  'LAST_MONTH',
  'THIS_MONTH',
  'NEXT_MONTH',
  'THIS_YEAR',
  'LAST_YEAR',
  'NEXT_YEAR',
]);
const DATE_N = /^(LAST_N_DAYS|NEXT_N_DAYS):(\d+)$/i;
const FIELD = /^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)*$/;
const KEYWORDS = new Set([
  'SELECT',
  'FROM',
  'WHERE',
  'ORDER',
  'BY',
  'LIMIT',
  'OFFSET',
  'AND',
  'OR',
  'NOT',
  'IN',
  'LIKE',
  'ASC',
  'DESC',
  'NULLS',
  'FIRST',
  'LAST',
]);

class Parser {
  private at = 0;
  /** How many NOTs and parentheses enclose the condition being read. */
  private depth = 0;
  constructor(private readonly tokens: Token[]) {}

  /** Reads one level deeper: a MALFORMED_QUERY past the limit, never a stack overflow. */
  nested<T>(read: () => T): T {
    if (this.depth >= SOQL_LIMITS.nesting) throw malformed(`the WHERE clause nests NOT and parentheses more than ${SOQL_LIMITS.nesting} deep`);
    this.depth++;
    const out = read();
    this.depth--;
    return out;
  }

  peek(offset = 0): Token | undefined {
    return this.tokens[this.at + offset];
  }
  isWord(word: string, offset = 0): boolean {
    const token = this.peek(offset);
    return token?.type === 'word' && token.text.toUpperCase() === word;
  }
  next(): Token {
    const token = this.tokens[this.at++];
    if (!token) throw malformed('unexpected token: <EOF>');
    return token;
  }
  expectWord(word: string): void {
    const token = this.next();
    if (token.type !== 'word' || token.text.toUpperCase() !== word) throw malformed(`unexpected token: '${token.text}'`);
  }
  expectPunct(text: string): void {
    const token = this.next();
    if (token.text !== text || token.type !== 'punct') throw malformed(`unexpected token: '${token.text}'`);
  }
  done(): boolean {
    return this.at >= this.tokens.length;
  }

  field(): string {
    const token = this.next();
    if (token.type !== 'word' || !FIELD.test(token.text) || KEYWORDS.has(token.text.toUpperCase())) throw malformed(`unexpected token: '${token.text}'`);
    return token.text;
  }

  /** A literal; `like`: a LIKE pattern, the one place `\%` and `\_` may stand. */
  value(like = false): SoqlValue {
    const token = this.next();
    if (token.type === 'string') {
      if (token.value!.length > SOQL_LIMITS.whereString)
        throw malformed(`Strings in a WHERE clause can't exceed ${SOQL_LIMITS.whereString} characters, got ${token.value!.length}`);
      if (token.literalAt && !like) {
        const escaped = token.value![Math.min(...token.literalAt)];
        throw malformed(`Invalid string literal '${token.raw}'. Illegal character sequence '\\${escaped}' in string literal.`);
      }
      return { kind: 'string', value: token.value!, ...(token.literalAt ? { literalAt: token.literalAt } : {}) };
    }
    if (token.type === 'number') return { kind: 'number', value: Number(token.text) };
    if (token.type === 'word') {
      const upper = token.text.toUpperCase();
      if (upper === 'TRUE' || upper === 'FALSE') return { kind: 'boolean', value: upper === 'TRUE' };
      if (upper === 'NULL') return { kind: 'null' };
      // A date that reads as one but names no real day or time (2025-02-30, hour 25) is refused, as Salesforce refuses it.
      if (DATE.test(token.text)) {
        if (!isRealInstant(token.text)) throw malformed(`Invalid date: ${token.text}`);
        return { kind: 'date', value: token.text };
      }
      if (DATETIME.test(token.text)) {
        if (!isRealInstant(token.text)) throw malformed(`Invalid datetime: ${token.text}`);
        return { kind: 'datetime', value: token.text };
      }
      if (DATE_LITERALS.has(upper)) return { kind: 'dateLiteral', name: upper };
      const n = DATE_N.exec(token.text);
      if (n) return { kind: 'dateLiteral', name: n[1]!.toUpperCase(), n: Number(n[2]) };
    }
    throw malformed(`unexpected token: '${token.text}'`);
  }

  /** `a AND b AND …` or `a OR b OR …`, never both at one level. */
  condition(): Condition {
    const parts = [this.unary()];
    let joiner: 'AND' | 'OR' | undefined;
    while (this.isWord('AND') || this.isWord('OR')) {
      const word = this.next().text.toUpperCase() as 'AND' | 'OR';
      if (joiner && joiner !== word) throw malformed(`unexpected token: '${word}'`);
      joiner = word;
      parts.push(this.unary());
    }
    return parts.length === 1 ? parts[0]! : { kind: joiner === 'OR' ? 'or' : 'and', parts };
  }

  unary(): Condition {
    if (this.isWord('NOT')) {
      this.next();
      return this.nested(() => ({ kind: 'not', part: this.unary() }));
    }
    if (this.peek()?.text === '(' && this.peek()?.type === 'punct') {
      this.next();
      const inner = this.nested(() => this.condition());
      this.expectPunct(')');
      return inner;
    }
    const field = this.field();
    if (this.isWord('NOT') && this.isWord('IN', 1)) {
      this.next();
      this.next();
      return { kind: 'compare', field, op: 'NOT IN', value: this.list() };
    }
    if (this.isWord('IN')) {
      this.next();
      return { kind: 'compare', field, op: 'IN', value: this.list() };
    }
    if (this.isWord('LIKE')) {
      this.next();
      const value = this.value(true);
      if (value.kind !== 'string') throw malformed('LIKE operator only valid on string field');
      return { kind: 'compare', field, op: 'LIKE', value };
    }
    const op = this.next();
    if (op.type !== 'op') throw malformed(`unexpected token: '${op.text}'`);
    return { kind: 'compare', field, op: op.text as Comparator, value: this.value() };
  }

  list(): SoqlValue[] {
    this.expectPunct('(');
    const values = [this.value()];
    while (this.peek()?.text === ',') {
      this.next();
      values.push(this.value());
    }
    this.expectPunct(')');
    return values;
  }

  integer(what: string): number {
    const token = this.next();
    if (token.type !== 'number' || !/^\d+$/.test(token.text)) throw malformed(`unexpected token: '${token.text}'`);
    const n = Number(token.text);
    if (what === 'OFFSET' && n > MAX_OFFSET) {
      throw new FieldError('q', `Maximum SOQL offset allowed is ${MAX_OFFSET}`, 'param', 'NUMBER_OUTSIDE_VALID_RANGE');
    }
    return n;
  }
}

/** Parses a SOQL query; a FieldError with Salesforce's code (MALFORMED_QUERY) when it is not one. */
export function parseSoql(query: string | undefined): Soql {
  if (!query || query.trim() === '') throw malformed('unexpected token: <EOF>');
  if (query.length > SOQL_LIMITS.queryLength) throw malformed(`SOQL statements can not be longer than ${SOQL_LIMITS.queryLength} characters.`);
  const p = new Parser(tokenize(query));
  const out = parseQuery(p, false);
  if (!p.done()) throw malformed(`unexpected token: '${p.peek()!.text}'`);
  return out;
}

/** One SELECT; `nested` for a subquery, which ends at its closing parenthesis. */
function parseQuery(p: Parser, nested: boolean): Soql {
  p.expectWord('SELECT');
  const out: Soql = { fields: [], count: false, from: '', orderBy: [] };
  const subqueries: SubQuery[] = [];
  if (p.isWord('COUNT') && p.peek(1)?.text === '(') {
    p.next();
    p.expectPunct('(');
    p.expectPunct(')');
    out.count = true;
  } else {
    do {
      if (out.fields.length > 0 || subqueries.length > 0) p.next();
      if (!nested && p.peek()?.type === 'punct' && p.peek()?.text === '(') {
        p.next();
        const query = parseQuery(p, true);
        p.expectPunct(')');
        subqueries.push({ relationship: query.from, query });
      } else {
        out.fields.push(p.field());
      }
    } while (p.peek()?.text === ',');
  }
  if (subqueries.length > 0) out.subqueries = subqueries;
  p.expectWord('FROM');
  const from = p.next();
  if (from.type !== 'word' || !/^\w+$/.test(from.text)) throw malformed(`unexpected token: '${from.text}'`);
  out.from = from.text;
  if (p.isWord('WHERE')) {
    p.next();
    out.where = p.condition();
  }
  if (p.isWord('ORDER')) {
    p.next();
    p.expectWord('BY');
    do {
      if (p.peek()?.text === ',') p.next();
      const item: OrderItem = { field: p.field(), descending: false, nullsLast: false };
      if (p.isWord('ASC') || p.isWord('DESC')) item.descending = p.next().text.toUpperCase() === 'DESC';
      // Nulls sort first ascending and last descending unless told otherwise.
      item.nullsLast = item.descending;
      if (p.isWord('NULLS')) {
        p.next();
        const which = p.next().text.toUpperCase();
        if (which !== 'FIRST' && which !== 'LAST') throw malformed(`unexpected token: '${which}'`);
        item.nullsLast = which === 'LAST';
      }
      out.orderBy.push(item);
    } while (p.peek()?.text === ',');
  }
  if (p.isWord('LIMIT')) {
    p.next();
    out.limit = p.integer('LIMIT');
  }
  if (p.isWord('OFFSET')) {
    p.next();
    out.offset = p.integer('OFFSET');
  }
  return out;
}

/** Every field path a query reads, in the order written (for INVALID_FIELD checks). */
export function fieldsOf(soql: Soql): string[] {
  const out = [...soql.fields, ...soql.orderBy.map((item) => item.field)];
  const walk = (condition: Condition | undefined) => {
    if (!condition) return;
    if (condition.kind === 'compare') out.push(condition.field);
    else if (condition.kind === 'not') walk(condition.part);
    else condition.parts.forEach(walk);
  };
  walk(soql.where);
  return out;
}
