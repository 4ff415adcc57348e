/**
 * Requests built from the service's v1 document as a client generated from it builds them (the
 * service's own Python SDK was one): every parameter and body member its schema lists, in one of
 * two forms. `set`: every optional member given a value of its type, spelt as that client spells
 * query values (a boolean `True`, a number `2.0`). `null`: every optional member `null` (the
 * generator's "not set"), at every depth, and every optional query parameter left out. Values
 * that name records come from `ids` (records of the connection's seed); the rest are made up by
 * the member's name and type.
 */

/** The seeded records a request may name, by kind: `Contact`, `engagement.contact`, `mailbox`… */
export type SeededIds = Record<string, string>;

export type Form = 'set' | 'null';

export interface BuiltRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  body?: unknown;
}

const ISO = '2025-03-04T10:00:00Z';
const END = '2025-03-04T11:00:00Z';

/** A value for a member by its name, where its type alone says too little (an id, a date, an address). */
function namedValue(name: string, ids: SeededIds, family: 'crm' | 'engagement'): unknown {
  const id = (kind: string) => {
    const value = ids[family === 'engagement' ? `engagement.${kind}` : kind] ?? ids[kind];
    if (value === undefined) throw new Error(`no seeded id of ${kind} for ${name}`);
    return value;
  };
  switch (name) {
    case 'accountId':
      return id(family === 'crm' ? 'Account' : 'account');
    case 'dealId':
      return id('Deal');
    case 'contactId':
    case 'associationId':
      return id(family === 'crm' ? 'Contact' : 'contact');
    case 'leadId':
      return id('Lead');
    case 'eventId':
      return id('Event');
    case 'userId':
    case 'ownerUserId':
      return id(family === 'crm' ? 'User' : 'user');
    case 'mailboxId':
      return id('mailbox');
    case 'dispositionKey':
      return id('dispositionKey');
    case 'closeDate':
    case 'dueDate':
    case 'startDateTime':
    case 'messageDate':
      return ISO;
    case 'endDateTime':
      return END;
    case 'email':
    case 'from':
    case 'address':
      return 'ada@analytical.example';
    case 'probability':
      return '0.5';
    case 'stage':
      return 'Negotiation';
    case 'priority':
      return 'High';
    case 'website':
      return 'https://analytical.example';
    case 'phone':
    case 'mobilePhone':
    case 'number':
      return '+1 555 0100';
    default:
      return undefined;
  }
}

/** The members of an object schema a form gives, for a generated client: every one, `null` when optional and the form is `null`. */
export function memberValue(
  schema: any,
  name: string,
  form: Form,
  context: { document: any; ids: SeededIds; family: 'crm' | 'engagement'; object?: string; dates?: boolean; needed?: ReadonlySet<string> },
): unknown {
  const resolved = resolve(schema, context.document);
  // A DateFilter's operands are dates.
  if (schema?.$ref?.endsWith('/DateFilter')) context = { ...context, dates: true };
  else if (schema?.$ref) context = { ...context, dates: false };
  if (context.dates && resolved.type === 'string') return ISO;
  if (context.dates && resolved.type === 'array') return [ISO];
  if (resolved.enum) return resolved.enum[0];
  if (resolved.type === 'object' && resolved.properties) {
    const required = new Set<string>(Array.isArray(resolved.required) ? resolved.required : []);
    const out: Record<string, unknown> = {};
    for (const [key, member] of Object.entries<any>(resolved.properties)) {
      // An email's participant names a lead or a contact by id.
      if (key === 'id' && (name === 'lead' || name === 'contact')) {
        out.id = namedValue(`${name}Id`, context.ids, context.family);
        continue;
      }
      if (form === 'null' && !required.has(key) && !(name === '' && context.needed?.has(key))) {
        out[key] = null;
        continue;
      }
      out[key] = memberValue(member, key, form, context);
    }
    return out;
  }
  if (resolved.type === 'object') return name === 'additional' ? {} : {};
  if (resolved.type === 'array') {
    const item = resolve(resolved.items ?? {}, context.document);
    if (item.type === 'string' || item.type === undefined) return [String(namedValue(singular(name), context.ids, context.family) ?? 'ada@analytical.example')];
    return [memberValue(item, singular(name), form, context)];
  }
  const named = namedValue(name, context.ids, context.family);
  if (named !== undefined) return named;
  switch (resolved.type) {
    case 'boolean':
      return true;
    case 'number':
    case 'integer':
      return name === 'durationSeconds' ? 95 : 42;
    default:
      return objectString(name, context.object);
  }
}

/** A string member's value where its name says what it holds in this object. */
function objectString(name: string, object: string | undefined): string {
  if (name === 'status') return ({ Task: 'In Progress', EventAttendee: 'Confirmed', Email: 'SENT' } as Record<string, string>)[object ?? ''] ?? 'Confirmed';
  if (name === 'type') return 'Meeting';
  if (name === 'associatedObjectType') return 'Contact';
  return `Generated ${name}`;
}

const singular = (name: string) => (name.endsWith('s') ? name.slice(0, -1) : name);

/** A schema with its `$ref` followed (one level at a time). */
export function resolve(schema: any, document: any): any {
  let out = schema ?? {};
  while (out.$ref) {
    const path = String(out.$ref).replace(/^#\//, '').split('/');
    out = path.reduce((node: any, key) => node[key], document);
  }
  return out;
}

/** A query parameter's value as the generated client writes it: `True`, `2.0`, text as it is. */
export function queryText(value: unknown): string {
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'number') return Number.isInteger(value) ? `${value}.0` : String(value);
  return String(value);
}
