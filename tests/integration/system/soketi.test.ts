/*
 * Proves the realtime path works on this machine: the control plane's server library (`pusher`)
 * triggers through soketi's HTTP API, and the browser library (`pusher-js`, node build) receives
 * it over the websocket. Uses the soketi published by the global setup (tests/support/services.ts) and
 * also checks that a soketi of its own starts and stops.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Pusher from 'pusher';
import { createRequire } from 'node:module';
import type * as PusherJs from 'pusher-js';
import { startSoketi, type SoketiServer } from '../../support/soketi.ts';
import { testSoketi, type TestSoketi } from '../../support/services.ts';

// pusher-js is CommonJS (module.exports = the class) whose typings declare an ES default export.
// Under NodeNext TypeScript types the default import as the module object (`.default` is the
// class), while Node hands over the class itself; require + the typings' inner default agree.
const PusherClient = createRequire(import.meta.url)('pusher-js') as typeof PusherJs.default.default;

async function triggerAndReceive(soketi: TestSoketi): Promise<unknown> {
  const server = new Pusher({
    appId: soketi.appId,
    key: soketi.key,
    secret: soketi.secret,
    host: soketi.host,
    port: String(soketi.port),
    useTLS: false,
  });
  const client = new PusherClient(soketi.key, {
    cluster: '',
    wsHost: soketi.host,
    wsPort: soketi.port,
    forceTLS: false,
    enabledTransports: ['ws'],
    disableStats: true,
  });
  try {
    const channelName = `public-test-${Math.random().toString(36).slice(2)}`;
    const channel = client.subscribe(channelName);
    await new Promise<void>((resolve, reject) => {
      channel.bind('pusher:subscription_succeeded', () => resolve());
      channel.bind('pusher:subscription_error', (error: unknown) => reject(new Error(`subscription failed: ${JSON.stringify(error)}`)));
    });
    const received = new Promise<unknown>((resolve) => channel.bind('DockerEventSent', resolve));
    const response = await server.trigger(channelName, 'DockerEventSent', { message: 'hallo' });
    expect(response.status).toBe(200);
    return await received;
  } finally {
    client.disconnect();
  }
}

describe('soketi (realtime server)', () => {
  it('delivers an event triggered with the pusher server library to a pusher-js subscriber', async () => {
    await expect(triggerAndReceive(testSoketi())).resolves.toEqual({ message: 'hallo' });
  });

  describe('a soketi of its own', () => {
    let own: SoketiServer;
    beforeAll(async () => {
      own = await startSoketi();
    });
    afterAll(async () => {
      await own?.stop();
    });

    it('starts on loopback, delivers events, and stops', async () => {
      expect(own.host).toBe('127.0.0.1');
      await expect(triggerAndReceive(own)).resolves.toEqual({ message: 'hallo' });
      await own.stop();
      await expect(fetch(`http://${own.host}:${own.port}/`)).rejects.toThrow();
    });
  });
});
