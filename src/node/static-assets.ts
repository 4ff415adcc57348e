import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * The browser parts of the dev server: the link widget a customer's frontend loads
 * (`/link/init.js`, the `/link/widget` iframe) and the inspector (`/sandbox/ui`). The files are
 * built into `dist/ui` by `npm run build` and found relative to this module, so the server
 * serves them from whatever directory it was started in.
 */
const UI_DIR = new URL('../ui/', import.meta.url);
/**
 * Run from the sources (src/node/, as the tests do), ../ui/ is src/ui/, where the inspector is
 * TypeScript modules: its script is then the one `npm run build` bundled, in dist/ui/.
 */
const BUILT = { 'inspector.js': new URL('../../dist/ui/inspector.js', import.meta.url) };
const fromSources = import.meta.url.endsWith('.ts');

/** Public path → file in the ui directory, and who may frame it. */
const ASSETS: Record<string, { file: string; framable: boolean }> = {
  '/link/init.js': { file: 'init.js', framable: true },
  '/link/widget': { file: 'widget.html', framable: true },
  '/link/widget.js': { file: 'widget.js', framable: true },
  '/link/dom.js': { file: 'dom.js', framable: true },
  '/link/ui.css': { file: 'ui.css', framable: true },
  '/sandbox/ui': { file: 'inspector.html', framable: false },
  '/sandbox/ui/': { file: 'inspector.html', framable: false },
  '/sandbox/ui/inspector.js': { file: 'inspector.js', framable: false },
  '/sandbox/ui/dom.js': { file: 'dom.js', framable: false },
  '/sandbox/ui/ui.css': { file: 'ui.css', framable: false },
};

const CONTENT_TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
};

const cache = new Map<string, Buffer>();

function read(file: string): Buffer | undefined {
  let content = cache.get(file);
  if (content) return content;
  try {
    content = readFileSync(fromSources && file in BUILT ? BUILT[file as keyof typeof BUILT] : new URL(file, UI_DIR));
  } catch {
    return undefined;
  }
  cache.set(file, content);
  return content;
}

/**
 * Reads every file now, to serve it from memory from then on: a server started from a checkout
 * goes on serving the files of its own build after `npm run build` there publishes new ones
 * (scripts/build.mjs). The dev server calls it a moment after it starts listening.
 */
export function holdAssets(): void {
  for (const { file } of Object.values(ASSETS)) read(file);
}

/**
 * Express-style middleware: answers GET and HEAD of the widget's and the inspector's files and
 * passes every other request on (to `sandbox.handle`). The API routes under `/link/widget/…`
 * and `/sandbox/…` are not assets and pass through. `log` gets one line per file served, as
 * the dev server logs its API requests.
 *
 * @example
 * app.use(staticAssets({ log: console.log }));
 * app.use((req, res) => … sandbox.handle(…));
 */
export function staticAssets(options: { log?: ((line: string) => void) | undefined; defaultKey?: string | undefined } = {}) {
  return (req: IncomingMessage, res: ServerResponse, next: () => void): void => {
    const url = req.url ?? '/';
    const queryAt = url.indexOf('?');
    const path = queryAt === -1 ? url : url.slice(0, queryAt);
    const asset = ASSETS[path];
    const readOnly = req.method === 'GET' || req.method === 'HEAD';
    if (path === '/' && readOnly && wantsHtml(req)) {
      // A browser at the server's address gets the inspector; an API client still gets the JSON 404.
      const body = '<!doctype html><title>crm-sandbox</title><a href="/sandbox/ui">The inspector: /sandbox/ui</a>\n';
      res
        .writeHead(302, {
          location: '/sandbox/ui',
          'content-type': 'text/html; charset=utf-8',
          'content-length': Buffer.byteLength(body),
          'cache-control': 'no-cache',
          'x-content-type-options': 'nosniff',
        })
        .end(req.method === 'HEAD' ? undefined : body);
      options.log?.(`${req.method} ${url} 302 0.0ms`);
      return;
    }
    if (!asset || !readOnly) {
      next();
      return;
    }
    const started = performance.now();
    send(req, res, asset, options.defaultKey);
    options.log?.(`${req.method} ${url} ${res.statusCode} ${(performance.now() - started).toFixed(1)}ms`);
  };
}

/** Whether the request asks for a page (a browser sends `Accept: text/html,…`), not for JSON (curl sends any type, a client JSON). */
function wantsHtml(req: IncomingMessage): boolean {
  return /\btext\/html\b/.test(req.headers.accept ?? '');
}

/** The inspector's page telling it the server takes the default key (so it opens without asking, on a loopback address). */
const withDefaultKey = new Map<string, Buffer>();
function inspectorPage(content: Buffer, key: string): Buffer {
  let page = withDefaultKey.get(key);
  if (!page) {
    const meta = `<meta name="crm-sandbox-default-key" content="${key.replace(/[&"<>]/g, '')}">`;
    page = Buffer.from(content.toString('utf8').replace('<head>', `<head>\n  ${meta}`));
    withDefaultKey.set(key, page);
  }
  return page;
}

function send(req: IncomingMessage, res: ServerResponse, asset: { file: string; framable: boolean }, defaultKey?: string): void {
  const file = read(asset.file);
  const content = file && defaultKey !== undefined && asset.file === 'inspector.html' ? inspectorPage(file, defaultKey) : file;
  if (!content) {
    const body = JSON.stringify({ message: `${asset.file} is missing: build the package first (npm run build)`, errorCode: 'INTERNAL_ERROR' });
    res
      .writeHead(500, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), 'x-content-type-options': 'nosniff' })
      .end(body);
    return;
  }
  res.writeHead(200, {
    'content-type': CONTENT_TYPES[asset.file.slice(asset.file.lastIndexOf('.') + 1)]!,
    'content-length': content.length,
    'cache-control': 'no-cache',
    'x-content-type-options': 'nosniff',
    // The widget opens inside the customer's page, whatever its origin (also file:// and
    // about:blank, which `frame-ancestors *` would refuse); the inspector is never framed.
    'content-security-policy': `default-src 'self'; style-src 'self'${asset.framable ? '' : "; frame-ancestors 'none'"}`,
  });
  res.end(req.method === 'HEAD' ? undefined : content);
}
