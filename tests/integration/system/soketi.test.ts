/*
 * Proves the realtime path works on this machine: the control plane's server library (`pusher`)
 * triggers through soketi's HTTP API, and the browser library (`pusher-js`, node build) receives
 * it over the websocket. Uses the soketi published by the global setup (tests/support/services/services.ts) and
 * also checks that a soketi of its own starts and stops.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSoketi, type SoketiServer } from '../../support/services/soketi.ts';
import { triggerAndReceive } from '../../support/clients/realtime-event.ts';
import { testSoketi } from '../../support/services/services.ts';

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
