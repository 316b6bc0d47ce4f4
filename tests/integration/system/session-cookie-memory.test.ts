/**
 * Attacker-chosen session cookies cost the control plane no memory that stays: 10,000
 * unauthenticated requests, each with a session cookie of its own of about 16 KB (node's header
 * limit) and a made-up signature, leave its resident memory where it was. The signer before
 * koa-session remembered the signature of every value it was shown (10,000 × 16 KB).
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSeededControlPlane, type SeededControlPlane } from '../../support/services/control-plane.ts';

const REQUESTS = 10_000;
const PARALLEL = 16;
/** The whole Cookie header, inside node's 16 KiB limit for all headers together. */
const COOKIE_BYTES = 16_000;
/** What "flat" allows: garbage not yet collected, the allocator's own slack. */
const ALLOWED_GROWTH_MB = 40;

let stack: SeededControlPlane;

beforeAll(async () => {
  stack = await startSeededControlPlane();
});

afterAll(async () => {
  await stack?.stop();
});

async function rssMb(pid: number | undefined): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1]) / 1024;
}

/** A session cookie no one signed: a value of its own every time, a made-up signature. */
function bigCookie(): string {
  const name = 'devplein_session';
  const signature = `; ${name}.sig=${randomBytes(20).toString('base64url')}`;
  const valueLength = COOKIE_BYTES - name.length - 1 - signature.length;
  return `${name}=${randomBytes(Math.ceil((valueLength * 3) / 4)).toString('base64url').slice(0, valueLength)}${signature}`;
}

/** Sends `count` GET /api/user with big cookies, PARALLEL at a time; every answer must be 401. */
async function send(url: string, count: number): Promise<void> {
  let next = 0;
  const statuses = new Map<number, number>();
  await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      while (next < count) {
        next += 1;
        const response = await fetch(`${url}/api/user`, { headers: { Accept: 'application/json', Cookie: bigCookie() } });
        await response.body?.cancel();
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      }
    }),
  );
  expect(Object.fromEntries(statuses)).toEqual({ 401: count });
}

describe('unauthenticated requests with 16 KB session cookies', () => {
  it(`leave the control plane's memory flat (${REQUESTS.toLocaleString('en')} requests)`, { timeout: 180_000 }, async () => {
    const { app } = stack;
    // Warm up with as many requests first: code compiled, pools, buffers and the heap at their
    // working size (after 1,000 the heap of Node 24 still grew by ~50 MB of garbage in the next
    // 10,000 under load). A cache of the values would grow by another 160 MB in the measured round.
    await send(app.url, REQUESTS);
    const before = await rssMb(app.pid());
    await send(app.url, REQUESTS);
    const after = await rssMb(app.pid());
    console.log(`control plane RSS: ${before.toFixed(0)} MB after ${REQUESTS} warm-up requests, ${after.toFixed(0)} MB after ${REQUESTS} more`);
    expect(after - before).toBeLessThan(ALLOWED_GROWTH_MB);
  });
});
