import { request } from 'node:http';
import { type AddressInfo, connect, createServer } from 'node:net';

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: () => any;
}

/**
 * One request over node:http, with every header as given (also `Host`, which fetch will not
 * send as asked), on a connection of its own.
 *
 * @example await send(server.url, 'GET', '/sandbox/health', { host: 'evil.test' })
 */
export function send(url: string, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, method, path, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text, json: () => JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Writes `text` on a new TCP connection and reads until the server closes it: for what an
 * HTTP client would not send (no Host, HTTP/1.0, headers that never end).
 *
 * @example await exchange(server.port, 'GET / HTTP/1.0\r\n\r\n')
 */
export function exchange(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(text));
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

/** A free port on 127.0.0.1, for a server restarted on the same one (`serve --port` takes a number). */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}
