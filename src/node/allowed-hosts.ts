import { ApiError, ErrorCode, SandboxConfigError } from '../shared/errors.js';

/**
 * The dev server's guard against DNS rebinding: a web page on another site can point its own
 * host name at 127.0.0.1 and then read a loopback server as if it were the page's origin. Its
 * requests still carry that host name in `Host`, so the server answers only the names it is
 * known by: loopback names (`localhost`, `*.localhost`, `127.0.0.1`, `[::1]`), the address it
 * is bound to, and the names allowed on top (`--allowed-host`); `*` allows any. Every port.
 *
 * A request without a `Host` header (HTTP/1.0) is answered: browsers always send one, and the
 * guard is against browsers.
 */
export type HostCheck = (host: string | undefined) => boolean;

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** A host name as the guard compares it: lowercase, without a trailing dot, an IPv6 address in brackets. */
function normalised(name: string): string {
  const lower = name.toLowerCase().replace(/\.$/, '');
  return lower.includes(':') && !lower.startsWith('[') ? `[${lower}]` : lower;
}

const NAME = /^(?:\[[0-9a-f:.]+\]|[a-z0-9_](?:[a-z0-9_.-]*[a-z0-9_])?)$/;

/**
 * Checks one allowed name (`crm-sandbox`, `sandbox.lan`, `192.168.1.5`, `::1`, or `*`); a port,
 * a scheme or a path is refused with a SandboxConfigError naming `option`.
 *
 * @example parseAllowedHost('crm-sandbox', '--allowed-host') // 'crm-sandbox'
 */
export function parseAllowedHost(text: string, option: string): string {
  const name = text.trim();
  if (name === '*') return name;
  const host = normalised(name);
  if (!NAME.test(host)) {
    throw new SandboxConfigError(
      `${option} takes a host name or address without a scheme, port or path (every port is allowed), or * for any; got ${JSON.stringify(text)}`,
    );
  }
  return host;
}

/** The name part of a `Host` header: `Example.test:4010` → `example.test`, `[::1]:4010` → `[::1]`. */
function hostName(header: string): string {
  const end = header.startsWith('[') ? header.indexOf(']') + 1 : header.lastIndexOf(':');
  return normalised(end > 0 ? header.slice(0, end) : header);
}

/**
 * The check of a server bound to `boundHost` that also allows `allowed` (checked with
 * {@link parseAllowedHost}; a bad one throws naming `allowedHosts`).
 *
 * @example const allowed = hostCheck('127.0.0.1', ['crm-sandbox']); allowed('crm-sandbox:4010') // true
 */
export function hostCheck(boundHost: string, allowed: readonly string[] = []): HostCheck {
  const names = new Set([...LOOPBACK, normalised(boundHost), ...allowed.map((name, i) => parseAllowedHost(name, `allowedHosts[${i}]`))]);
  if (names.has('*')) return () => true;
  // A client sends the same Host on every request: the last one allowed is allowed again without a look.
  let lastAllowed: string | undefined;
  return (header) => {
    if (header === undefined || header === lastAllowed) return true;
    const name = hostName(header);
    const allowedName = names.has(name) || name.endsWith('.localhost');
    if (allowedName) lastAllowed = header;
    return allowedName;
  };
}

/** The 421 for a request whose `Host` is not allowed: the error body, naming the host and the flag. */
export function hostNotAllowed(host: string): ApiError {
  return new ApiError(
    421,
    ErrorCode.HOST_NOT_ALLOWED,
    `this server does not answer requests for host ${JSON.stringify(host)} (a guard against DNS rebinding); if you reach it by that name, start it with --allowed-host ${hostName(host) || '<name>'} (CRM_SANDBOX_ALLOWED_HOST, or allowedHosts in startDevServer)`,
    { host },
  );
}
