import { mapPieces, type Pieces } from '../../shared/pieces.js';
import { fromBase64Url, toBase64Url } from '../../shared/text-codec.js';
import { findRecord, type NativeFields } from '../rest-engine.js';
import { type Route, reply } from '../router.js';
import type { DownstreamContext, DownstreamResponse } from '../types.js';
import { collectInPieces } from '../walk-in-pieces.js';
import { columnsOf, DEFAULT_VERSION, HEADERS, render, SOBJECTS, sfError, sobjectNamed, versioned } from './objects.js';
import { type QuerySchema, runSoql } from './query.js';
import { parseSoql } from './soql.js';

/**
 * The query resource: `query?q=SELECT …` and the next batches by query locator
 * (`query/{locator}`). https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/resources_query.htm
 */

/** The simulated sObjects as the query engine sees them. */
const SCHEMA: QuerySchema = {
  object: (name) => sobjectNamed(name),
  ofId: (nativeId, context) => {
    const object = SOBJECTS.find((candidate) => nativeId.startsWith(candidate.keyPrefix));
    const found = object ? findRecord([object], nativeId, context.data) : undefined;
    return object && found ? { name: object.name, row: render(object, found.entry.record, found.entry.extra, context) } : undefined;
  },
  columns: (name) => columnsOf(sobjectNamed(name)!),
  rows: (name, context, start, end) => {
    const object = sobjectNamed(name)!;
    return collectInPieces(context.data.crm[object.type].slice(start, Math.max(0, end - start)), (entry) => render(object, entry.record, entry.extra, context));
  },
  passing: (name, context, test) => {
    const object = sobjectNamed(name)!;
    return collectInPieces(context.data.crm[object.type].entries(), (entry) => {
      const row = render(object, entry.record, entry.extra, context);
      return test === undefined || test(row) ? row : undefined;
    });
  },
  count: (name, context) => context.data.crm[sobjectNamed(name)!.type].size,
};

/** The query is parsed at once; what walks the records goes in pieces (decision 0042). */
function runQuery(query: string, version: string, context: DownstreamContext, skip: number): Pieces<DownstreamResponse> {
  return mapPieces(runSoql(SCHEMA, parseSoql(query), context, skip), (answer) =>
    reply(
      200,
      {
        totalSize: answer.totalSize,
        done: answer.done,
        ...(answer.next === undefined ? {} : { nextRecordsUrl: `/services/data/${version}/query/${locator(query, answer.next)}` }),
        records: answer.records.map((row) => withVersion(row, version)),
      },
      HEADERS,
    ),
  );
}

/** Rows render with the default version's urls; a query on another version shows its own. */
function withVersion(row: NativeFields, version: string): NativeFields {
  if (version === DEFAULT_VERSION) return row;
  return JSON.parse(JSON.stringify(row).replaceAll(`/services/data/${DEFAULT_VERSION}/`, `/services/data/${version}/`)) as NativeFields;
}

// A query locator carries the query and where the next batch starts: no server-side state.
const locator = (query: string, next: number) => `${toBase64Url(query)}-${next}`;

export function queryRoutes(): Route[] {
  return [
    {
      method: 'GET',
      pattern: 'services/data/:version/query',
      run: versioned((version, _params, request, context) => runQuery(request.query.q ?? '', version, context, 0)),
    },
    {
      method: 'GET',
      pattern: 'services/data/:version/query/:locator',
      run: versioned((version, params, _request, context) => {
        const m = /^([A-Za-z0-9_-]+)-(\d+)$/.exec(params.locator!);
        const query = m ? fromBase64Url(m[1]!) : '';
        if (!m || !/^\s*select\s/i.test(query)) return sfError(400, 'INVALID_QUERY_LOCATOR', 'invalid query locator');
        return runQuery(query, version, context, Number(m[2]));
      }),
    },
  ];
}
