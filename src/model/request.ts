/**
 * A request as the core sees it: what both adapters (MSW and the dev server) fill in, with no
 * transport object in sight. Cheap to build: no Fetch `Request`, no stream.
 */
export interface SandboxRequest {
  method: string;
  /** Path below the base URL, without the query: `/engagement/users`. */
  path: string;
  /** The query string without its `?`. */
  query: string;
  /** Header names in lower case. */
  headers: Record<string, string | undefined>;
  /** The raw body text, or undefined when the request had none. */
  body?: string | undefined;
}

/** A response as the core answers it: the body is already serialised JSON. */
export interface SandboxResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** `body` already encoded as UTF-8 (cached pages), for a transport to send as is. */
  encoded?: Uint8Array | undefined;
}
