/** What one POST to a webhook came to. */
export type PostOutcome = { status: number; error?: undefined } | { status?: undefined; error: string };

/**
 * Posts a delivery; never throws: failures come back as `{ error }`. `signal` aborts it (the sandbox closing).
 * `headers` are the event's own (content-type and the signed ones): the transport adds Content-Length, Host and,
 * for a URL with user info, Authorization after them, as node:http does.
 */
export type HttpTransport = (url: string, headers: Record<string, string>, body: string, timeoutMs: number, signal?: AbortSignal) => Promise<PostOutcome>;
