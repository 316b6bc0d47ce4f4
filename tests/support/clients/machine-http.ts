/**
 * HTTP from inside a test server (tests/support/stacks/debian-machine.ts): the server has a network of
 * its own, so a browser's requests are made there, with curl, and handed back as a fetch Response
 * (HttpSession takes this as its transport). Requests to the app's public URL (APP_URL, https)
 * go to the control plane's own port with the headers Caddy adds in front of it (Host,
 * X-Forwarded-Proto/-Host/-For): the server has no certificate for the school's name (no ACME
 * without a network), and that hop is the only part of production left out.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { DebianMachine } from '../stacks/debian-machine.ts';

/** A word for bash: single-quoted, with any single quote closed, escaped and reopened. */
export const shellWord = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

export interface MachineFetchOptions {
  /** The app's public URL, e.g. https://devplein.school.nl (APP_URL). */
  appUrl: string;
  /** Where the control plane listens inside the server, e.g. http://127.0.0.1:8080 (HOST:PORT). */
  appAddress: string;
}

/** The status line and headers of the last response curl wrote with -D (after any 100 Continue). */
function parseHeaders(raw: string): { status: number; headers: Headers } {
  const blocks = raw.split(/\r?\n\r?\n/).filter((block) => block.startsWith('HTTP/'));
  const [statusLine = '', ...lines] = (blocks.at(-1) ?? '').split(/\r?\n/);
  const status = Number(/^HTTP\/[\d.]+ (\d{3})/.exec(statusLine)?.[1] ?? 0);
  const headers = new Headers();
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  return { status, headers };
}

/** A fetch (redirects never followed: `redirect: 'manual'` is what it does) that runs curl inside `machine`. */
export function machineFetch(machine: DebianMachine, options: MachineFetchOptions): typeof fetch {
  const app = new URL(options.appUrl);
  const exchange = path.join(machine.tree, 'root', 'http-exchange');
  return async (input, init = {}) => {
    if (input instanceof Request) throw new Error('machineFetch takes a URL, not a Request');
    const url = new URL(input);
    if (init.body !== undefined && init.body !== null && typeof init.body !== 'string') throw new Error('machineFetch sends string bodies only');
    const headers = new Headers(init.headers);
    let target = url;
    if (url.origin === app.origin) {
      target = new URL(`${url.pathname}${url.search}`, options.appAddress);
      headers.set('Host', app.host);
      headers.set('X-Forwarded-Proto', app.protocol.replace(':', ''));
      headers.set('X-Forwarded-Host', app.host);
      headers.set('X-Forwarded-For', '127.0.0.1');
    }
    const name = randomBytes(6).toString('hex');
    await mkdir(exchange, { recursive: true });
    const inside = (file: string) => `/root/http-exchange/${name}.${file}`;
    const args = ['curl', '-sS', '--max-time', '120', '-o', inside('body'), '-D', inside('head'), '-X', init.method ?? 'GET'];
    for (const [header, value] of headers) args.push('-H', `${header}: ${value}`);
    if (typeof init.body === 'string') {
      await writeFile(path.join(exchange, `${name}.request`), init.body);
      args.push('--data-binary', `@${inside('request')}`);
    }
    args.push(target.toString());
    try {
      const result = await machine.run(args.map(shellWord).join(' '), 150_000);
      if (result.code !== 0) throw new TypeError(`fetch ${init.method ?? 'GET'} ${url} inside the ${machine.release} server failed: ${result.output}`);
      const { status, headers: answer } = parseHeaders(await readFile(path.join(exchange, `${name}.head`), 'utf8'));
      const body = await readFile(path.join(exchange, `${name}.body`)).catch(() => Buffer.alloc(0));
      const empty = status === 204 || status === 304 || (init.method ?? 'GET') === 'HEAD';
      return new Response(empty ? null : new Uint8Array(body), { status, headers: answer });
    } finally {
      for (const file of ['request', 'head', 'body']) await rm(path.join(exchange, `${name}.${file}`), { force: true });
    }
  };
}
