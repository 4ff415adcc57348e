/** What one POST to a webhook came to. */
export type PostOutcome = { status: number; error?: undefined } | { status?: undefined; error: string };

/** Posts a delivery; never throws: failures come back as `{ error }`. `signal` aborts it (the sandbox closing). */
export type HttpTransport = (url: string, headers: Record<string, string>, body: string, timeoutMs: number, signal?: AbortSignal) => Promise<PostOutcome>;
