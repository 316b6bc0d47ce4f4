/**
 * The machinery of the property tests of the write endpoints: the stack (real control plane on a
 * throwaway PostgreSQL, the fake agent, a data dir of its own), one signed-in keep-alive HTTP
 * client per role, and the runner that sends an endpoint its generated requests in batches with
 * modest concurrency and checks every answer: never a 5xx, never a hang, every 4xx a JSON
 * `{message}` (422 also `errors: {field: [..]}`).
 *
 * Bodies come from fc.sample (a seed per endpoint and batch), not fc.assert: the runs of a batch
 * go out concurrently, and a batch may need fixtures made (or quotas reset) first. A failure
 * names the seed; PROPERTY_SEED=<seed> replays it, PROPERTY_RUNS=<n> lowers the 10,000 runs per
 * endpoint for local iteration.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import type { Knex } from 'knex';
import type { FakeAgent, FakeCall } from '../support/fakes/fake-agent.ts';
import { ADMIN, DEVELOPER, startHostingStack, type HostingStack } from '../support/stacks/hosting-stack.ts';
import type { HttpSession } from '../support/clients/http-session.ts';
import type { RouteEntry } from '../support/fixtures/route-table.ts';
import type { RequestBody } from './arbitraries.ts';

/** Who sends an endpoint's requests: a signed-in role, or phpMyAdmin's signon script (a bearer secret, no session). */
export type Sender = 'admin' | 'developer' | 'signon-script';

/** One generated request. */
export interface GeneratedRequest {
  /** Route parameters as (already encoded) path segments. */
  params?: Record<string, string>;
  /** Query string without '?', already encoded. */
  query?: string;
  body: RequestBody;
  headers?: Record<string, string>;
}

export interface EndpointSpec<Context = unknown> {
  /** `METHOD /path/:param`, as in the route table. */
  route: string;
  as: Sender;
  /** Runs per batch (default 500): smaller where a quota fills up and is reset by `prepare`. */
  batchSize?: number;
  /** Before each batch: fixtures, resets; returns what the batch's arbitraries draw from. */
  prepare?: (stack: PropertyStack) => Promise<Context>;
  request: (context: Context) => fc.Arbitrary<GeneratedRequest>;
}

/** Keeps each spec's Context type checked while the list holds them side by side. */
export const endpoint = <Context>(spec: EndpointSpec<Context>): EndpointSpec => spec as unknown as EndpointSpec;

export interface Answer {
  status: number;
  contentType: string;
  text: string;
  location?: string;
}

/** Runs per endpoint: 10,000 unless PROPERTY_RUNS says otherwise (for local iteration). */
export const RUNS = Number(process.env.PROPERTY_RUNS ?? 10_000);
/** Requests in flight at once per endpoint. */
const CONCURRENCY = 8;
/** An answer slower than this is a hang. */
const REQUEST_TIMEOUT_MS = 20_000;
const MAX_ANSWER_BYTES = 1024 * 1024;

/** A keep-alive HTTP/1.1 client with fixed headers (the session's cookies and CSRF token). */
export class PropertyClient {
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });

  constructor(
    private readonly port: number,
    private readonly fixedHeaders: Record<string, string>,
  ) {}

  send(method: string, pathAndQuery: string, body: RequestBody, headers: Record<string, string> = {}): Promise<Answer> {
    const payload = encodeBody(body);
    const allHeaders: Record<string, string> = { ...this.fixedHeaders, ...headers };
    if (payload) {
      if (payload.contentType) allHeaders['Content-Type'] = payload.contentType;
      allHeaders['Content-Length'] = String(payload.data.length);
    }
    return new Promise<Answer>((resolve, reject) => {
      const request = http.request({ host: '127.0.0.1', port: this.port, method, path: pathAndQuery, agent: this.agent, headers: allHeaders }, (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size <= MAX_ANSWER_BYTES) chunks.push(chunk);
        });
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            contentType: String(response.headers['content-type'] ?? ''),
            text: Buffer.concat(chunks).toString('utf8'),
            location: response.headers.location,
          }),
        );
        response.on('error', reject);
      });
      request.setTimeout(REQUEST_TIMEOUT_MS, () => request.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms`)));
      request.on('error', reject);
      request.end(payload?.data);
    });
  }

  /** A JSON call of a fixture step: must succeed. */
  async json<T>(method: string, pathAndQuery: string, value?: unknown): Promise<T> {
    const answer = await this.send(method, pathAndQuery, value === undefined ? { kind: 'none' } : { kind: 'json', value });
    if (answer.status >= 300) throw new Error(`fixture ${method} ${pathAndQuery} answered ${answer.status}: ${answer.text.slice(0, 300)}`);
    return (answer.text ? JSON.parse(answer.text) : null) as T;
  }

  close(): void {
    this.agent.destroy();
  }
}

function encodeBody(body: RequestBody): { data: Buffer; contentType?: string } | null {
  if (body.kind === 'none') return null;
  if (body.kind === 'raw') return { data: Buffer.from(body.data), contentType: body.contentType };
  // JSON.stringify gives undefined for undefined (fc.anything makes it): then the body is empty.
  const text = JSON.stringify(body.value) as string | undefined;
  return { data: Buffer.from(text ?? '', 'utf8'), contentType: 'application/json' };
}

function clientOf(session: HttpSession, port: number): PropertyClient {
  const cookies = ['devplein_session', 'devplein_session.sig', 'XSRF-TOKEN'].flatMap((name) => {
    const value = session.cookie(name);
    return value === undefined ? [] : [`${name}=${value}`];
  });
  const token = session.cookie('XSRF-TOKEN');
  if (cookies.length < 3 || !token) throw new Error('the signed-in session has no session cookie or CSRF token');
  return new PropertyClient(port, {
    Cookie: cookies.join('; '),
    'X-CSRF-TOKEN': decodeURIComponent(token),
    'X-Requested-With': 'XMLHttpRequest',
    Accept: 'application/json',
  });
}

export interface PropertyStack {
  hosting: HostingStack;
  knex: Knex;
  agent: FakeAgent;
  siteDomain: string;
  /** Everything the control plane may write to disk lives below this fresh directory. */
  root: string;
  /** The control plane's DATA_DIR (three levels below root, so a path that climbs out still lands inside root). */
  dataDir: string;
  userIds: { admin: number; developer: number };
  client(sender: Sender): PropertyClient;
  /** Calls the fake agent received since the last take (and forgets them). */
  takeAgentCalls(): FakeCall[];
  stop(): Promise<void>;
}

/** Images the fake agent's PullImage finds (the seeded image options' references). */
const PULLABLE = ['devplein/php:8.3', 'devplein/node:20', 'devplein/wordpress:6', 'devplein/static:latest', 'devplein/python:3.12'];

export async function startPropertyStack(): Promise<PropertyStack> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'devplein-property-'));
  const dataDir = path.join(root, 'a', 'b', 'data');
  mkdirSync(dataDir, { recursive: true });
  const signonSecret = randomBytes(24).toString('hex');
  const hosting = await startHostingStack({
    pullableImages: PULLABLE,
    env: {
      DATA_DIR: dataDir,
      // Thousands of writes a minute from one user are the point here, not abuse.
      RATE_LIMIT_WRITES_PER_MINUTE: '0',
      // No captures behind the test's back: a start would schedule one 20 s later.
      THUMBNAIL_AFTER_START_S: '3600',
      DB_ADMIN_SIGNON_URL: 'http://127.0.0.1:9/devplein-signon.php',
      DB_ADMIN_SIGNON_SECRET: signonSecret,
      LOG_LEVEL: 'error',
    },
  }).catch((error: unknown) => {
    rmSync(root, { recursive: true, force: true });
    throw error;
  });
  const port = hosting.app.port;
  const clients: Record<Sender, PropertyClient> = {
    admin: clientOf(await hosting.as(ADMIN), port),
    developer: clientOf(await hosting.as(DEVELOPER), port),
    'signon-script': new PropertyClient(port, { Authorization: `Bearer ${signonSecret}`, Accept: 'application/json' }),
  };
  const userIds = { admin: await hosting.userId(ADMIN), developer: await hosting.userId(DEVELOPER) };
  return {
    hosting,
    knex: hosting.database.knex,
    agent: hosting.agent,
    siteDomain: 'dev.devplein.test',
    root,
    dataDir,
    userIds,
    client: (sender) => clients[sender],
    takeAgentCalls: () => hosting.agent.calls.splice(0),
    async stop() {
      for (const client of Object.values(clients)) client.close();
      await hosting.stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** What is wrong with an answer, or null: never a 5xx; a 4xx is JSON `{message}`, a 422 also `{errors: {field: [..]}}`. */
export function answerProblem(answer: Answer): string | null {
  if (answer.status >= 500) return `status ${answer.status}`;
  if (answer.status < 400) {
    if (answer.contentType.includes('application/json') && answer.text !== '') {
      try {
        JSON.parse(answer.text);
      } catch {
        return `${answer.status} with a JSON content type but no JSON body`;
      }
    }
    return null;
  }
  if (!answer.contentType.includes('application/json')) return `${answer.status} without a JSON body (${answer.contentType || 'no content type'})`;
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    return `${answer.status} with a body that is not JSON`;
  }
  if (typeof body !== 'object' || body === null || typeof (body as { message?: unknown }).message !== 'string') return `${answer.status} without a message`;
  if (answer.status === 422) {
    const errors = (body as { errors?: unknown }).errors;
    if (typeof errors !== 'object' || errors === null || Array.isArray(errors)) return '422 without an errors object';
    const fields = Object.entries(errors);
    if (fields.length === 0) return '422 with an empty errors object';
    const bad = fields.find(([, messages]) => !Array.isArray(messages) || messages.length === 0 || messages.some((message) => typeof message !== 'string'));
    if (bad) return `422 whose errors.${bad[0]} is not a list of messages`;
  }
  return null;
}

export interface EndpointReport {
  route: string;
  seed: number;
  runs: number;
  /** Answers 2xx: the body passed validation and the route acted. */
  passed: number;
  statuses: Map<number, number>;
  failures: string[];
  ms: number;
}

/** The path of a route with its parameters filled in. */
function pathOf(route: RouteEntry, params: Record<string, string> = {}): string {
  return route.path.replace(/:([A-Za-z_]+)/g, (_match, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`the property spec of ${route.key} gives no :${name}`);
    return value;
  });
}

const clip = (text: string, length = 300): string => (text.length > length ? `${text.slice(0, length)}… (${text.length} chars)` : text);

function describeRequest(method: string, fullTarget: string, body: RequestBody): string {
  const target = clip(fullTarget, 200);
  if (body.kind === 'none') return `${method} ${target} (no body)`;
  if (body.kind === 'raw') return `${method} ${target} ${body.contentType ?? ''} ${clip(typeof body.data === 'string' ? JSON.stringify(body.data) : `bytes ${Buffer.from(body.data).toString('hex')}`)}`;
  return `${method} ${target} json ${clip(JSON.stringify(body.value) ?? 'undefined')}`;
}

async function inPool<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) {
        const item = items[next++] as T;
        await work(item);
      }
    }),
  );
}

/** A stable number per route, so each endpoint gets its own stream of values from one seed. */
function routeSalt(key: string): number {
  let hash = 0;
  for (const char of key) hash = (Math.imul(hash, 31) + char.charCodeAt(0)) | 0;
  return hash;
}

/** Sends one endpoint its RUNS generated requests and checks each answer. */
export async function runEndpoint(stack: PropertyStack, spec: EndpointSpec, route: RouteEntry, seed: number): Promise<EndpointReport> {
  const started = performance.now();
  const report: EndpointReport = { route: route.key, seed, runs: 0, passed: 0, statuses: new Map(), failures: [], ms: 0 };
  const client = stack.client(spec.as);
  const batchSize = spec.batchSize ?? 500;
  for (let batch = 0; report.runs < RUNS; batch++) {
    const context = spec.prepare ? await spec.prepare(stack) : undefined;
    const count = Math.min(batchSize, RUNS - report.runs);
    const requests = fc.sample(spec.request(context), { numRuns: count, seed: (seed + routeSalt(route.key) + batch * 7919) | 0 });
    await inPool(requests, CONCURRENCY, async (request) => {
      const target = pathOf(route, request.params) + (request.query !== undefined ? `?${request.query}` : '');
      let problem: string | null;
      let answer: Answer | undefined;
      try {
        answer = await client.send(route.method, target, request.body, request.headers);
        problem = answerProblem(answer);
      } catch (error) {
        problem = `no answer: ${(error as Error).message}`;
      }
      report.runs += 1;
      if (answer) {
        report.statuses.set(answer.status, (report.statuses.get(answer.status) ?? 0) + 1);
        if (answer.status >= 200 && answer.status < 300) report.passed += 1;
      }
      if (problem && report.failures.length < 20) {
        report.failures.push(`${problem}: ${describeRequest(route.method, target, request.body)} → ${clip(answer?.text ?? '')}`);
      }
    });
  }
  report.ms = performance.now() - started;
  return report;
}

/** One line per endpoint for the log: runs, how many reached the act step, the status histogram. */
export function formatReport(report: EndpointReport): string {
  const statuses = [...report.statuses].sort(([a], [b]) => a - b).map(([status, count]) => `${status}×${count}`).join(' ');
  const share = report.runs === 0 ? 0 : Math.round((report.passed / report.runs) * 100);
  return `[property] ${report.route}: ${report.runs} runs, ${report.passed} passed validation (2xx, ${share}%), ${statuses}; ${(report.ms / 1000).toFixed(1)} s, seed ${report.seed}`;
}

/** The seed of this run: PROPERTY_SEED to replay one, else a fresh one (printed with every report). */
export const SEED = process.env.PROPERTY_SEED ? Number(process.env.PROPERTY_SEED) : (Date.now() ^ (Math.random() * 0x7fffffff)) | 0;
