import * as grpc from '@grpc/grpc-js';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { AgentError } from './agent-error.ts';
import { createContainerEventRelay } from './container-event-relay.ts';
import { ContainerNotices, type RealtimeTrigger } from '../services/container-notices.ts';
import type { ContainerEventView, ContainerView } from './container-views.ts';
import type { ContainerApi } from './clients/container.ts';
import type { AgentClient } from './agent-client.ts';
import type { BackoffPolicy } from './backoff.ts';

const event = (containerName: string, action: string, state: string): ContainerEventView => ({
  containerId: 'c1',
  containerName,
  projectId: 1,
  action,
  state,
  status: '',
  time: null,
  attributes: {},
  autoStop: null,
});

const container = (name: string, state: string): ContainerView => ({
  id: 'c1',
  names: [`/${name}`],
  name,
  image: 'x',
  state,
  status: '',
  labels: {},
  createdAt: null,
  projectId: 1,
  domain: '',
  managed: true,
  autoStop: null,
  exit: null,
});

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(condition()).toBe(true);
}

/**
 * An agent whose event streams are scripted: each call to watchContainerEvents takes the next script.
 * `listed` is what ListContainers answers: a list, or a function (which may throw, e.g. while the agent is away).
 */
function scriptedAgent(
  scripts: Array<{ events: ContainerEventView[]; thenFail?: boolean; hang?: boolean }>,
  listed: ContainerView[] | (() => ContainerView[]) = [],
) {
  let calls = 0;
  const containers = {
    listContainers: async () => (typeof listed === 'function' ? listed() : listed),
    watchContainerEvents: (_filter: unknown, options?: { signal?: AbortSignal }) => {
      const script = scripts[Math.min(calls, scripts.length - 1)] ?? { events: [], hang: true };
      calls += 1;
      return (async function* () {
        for (const item of script.events) yield item;
        if (script.thenFail) throw new AgentError(grpc.status.UNAVAILABLE, 'gone');
        if (script.hang) {
          await new Promise<void>((resolve) => options?.signal?.addEventListener('abort', () => resolve(), { once: true }));
        }
      })();
    },
  } as unknown as ContainerApi;
  return { agent: { containers }, calls: () => calls };
}

/** A realtime server fake from one trigger function: a batch is its events triggered one by one. */
function realtimeOf(trigger: RealtimeTrigger['trigger']): RealtimeTrigger {
  return {
    trigger,
    triggerBatch: async (batch) => {
      for (const entry of batch) await trigger(entry.channel, entry.name, entry.data);
    },
  };
}

/** Which names are the relay's server's, with their product states (null: Docker's state stands). */
type Placement = (names: readonly string[]) => Promise<ReadonlyMap<string, string | null>>;

/** Every name is a project placed on the relay's server, each approved (Docker's state stands). */
const allPlaced: Placement = async (names) => new Map(names.map((name) => [name, null]));

/** A relay on `agent` whose realtime messages are collected in `sent` as 'channel=message'. */
function recordingRelay(agent: Pick<AgentClient, 'containers'>, backoff: Partial<BackoffPolicy>, placed: Placement = allPlaced) {
  const sent: string[] = [];
  const relay = createContainerEventRelay({
    agent,
    notices: new ContainerNotices(realtimeOf((channel, _name, data) => (sent.push(`${channel}=${(data as { message: string }).message}`), Promise.resolve())), pino({ level: 'silent' })),
    logger: pino({ level: 'silent' }),
    backoff,
    placed,
  });
  return { relay, sent };
}

describe('container event relay', () => {
  it('sends each event as DockerEventSent {message: state}, destroy as Nog niet gecreëerd', async () => {
    const sent: Array<[string, string, unknown]> = [];
    const { agent } = scriptedAgent([{ events: [event('blog', 'start', 'running'), event('blog', 'destroy', '')], hang: true }]);
    const relay = createContainerEventRelay({
      agent,
      notices: new ContainerNotices(realtimeOf((channel, name, data) => (sent.push([channel, name, data]), Promise.resolve())), pino({ level: 'silent' })),
      logger: pino({ level: 'silent' }),
      placed: allPlaced,
    });
    relay.start();
    await until(() => sent.length === 2);
    relay.stop();
    expect(sent).toEqual([
      ['private-container.blog', 'DockerEventSent', { message: 'running' }],
      ['private-container.blog', 'DockerEventSent', { message: 'Nog niet gecreëerd' }],
    ]);
  });

  it('sends a state once when Docker reports it twice in a row (a new container’s create and start, both inspected as running)', async () => {
    const { agent } = scriptedAgent([
      { events: [event('blog', 'create', 'running'), event('blog', 'start', 'running'), event('blog', 'die', 'exited'), event('blog', 'start', 'running')], hang: true },
    ]);
    const { relay, sent } = recordingRelay(agent, {});
    relay.start();
    await until(() => sent.length === 3);
    relay.stop();
    expect(sent).toEqual(['private-container.blog=running', 'private-container.blog=exited', 'private-container.blog=running']);
  });

  it('reads on while soketi answers: the events that came meanwhile go in one triggerBatch after it', async () => {
    const requests: string[][] = [];
    let answerFirst: () => void = () => undefined;
    const text = (channel: string, data: unknown) => `${channel}=${(data as { message: string }).message}`;
    const realtime: RealtimeTrigger = {
      trigger: (channel, _name, data) => {
        requests.push([text(channel, data)]);
        return requests.length === 1 ? new Promise((resolve) => (answerFirst = () => resolve({}))) : Promise.resolve({});
      },
      triggerBatch: async (batch) => void requests.push(batch.map((entry) => text(entry.channel, entry.data))),
    };
    let read = 0;
    const containers = {
      listContainers: async () => [],
      watchContainerEvents: (_filter: unknown, options?: { signal?: AbortSignal }) =>
        (async function* () {
          for (const name of ['a', 'b', 'c']) {
            yield event(name, 'start', 'running');
            // Counted once the relay asks for the next one: it handled this one.
            read += 1;
          }
          await new Promise<void>((resolve) => options?.signal?.addEventListener('abort', () => resolve(), { once: true }));
        })(),
    } as unknown as ContainerApi;
    const relay = createContainerEventRelay({ agent: { containers }, notices: new ContainerNotices(realtime, pino({ level: 'silent' })), logger: pino({ level: 'silent' }), placed: allPlaced });
    relay.start();
    // The first trigger has not answered, yet the relay read the whole stream.
    await until(() => read === 3 && requests.length === 1);
    answerFirst();
    await until(() => requests.length === 2);
    relay.stop();
    expect(requests).toEqual([['private-container.a=running'], ['private-container.b=running', 'private-container.c=running']]);
  });

  it('shows the product state instead of Docker’s for a project that is not approved', async () => {
    const sent: string[] = [];
    const { agent } = scriptedAgent([
      { events: [event('afgekeurd', 'die', 'exited'), event('goed', 'start', 'running'), event('afgekeurd', 'destroy', ''), event('goed', 'die', 'exited')], hang: true },
    ]);
    const relay = createContainerEventRelay({
      agent,
      notices: new ContainerNotices(realtimeOf((channel, _name, data) => (sent.push(`${channel}=${(data as { message: string }).message}`), Promise.resolve())), pino({ level: 'silent' })),
      logger: pino({ level: 'silent' }),
      placed: async (names) => new Map(names.map((name) => [name, name === 'afgekeurd' ? 'Afgekeurd' : null])),
    });
    relay.start();
    // Events are relayed in order: once the last one is out, the destroy (again 'Afgekeurd') was left out.
    await until(() => sent.includes('private-container.goed=exited'));
    relay.stop();
    expect(sent).toEqual(['private-container.afgekeurd=Afgekeurd', 'private-container.goed=running', 'private-container.goed=exited']);
  });

  it('reconnects with backoff after a failure and resyncs what changed meanwhile', async () => {
    const { agent, calls } = scriptedAgent(
      [{ events: [event('blog', 'start', 'running'), event('shop', 'start', 'running')], thenFail: true }, { events: [], hang: true }],
      [container('blog', 'exited')],
    );
    const { relay, sent } = recordingRelay(agent, { initialMs: 5, maxMs: 10, jitter: 0 });
    relay.start();
    await until(() => calls() === 2 && sent.length === 4);
    relay.stop();
    expect(sent.slice(2).sort()).toEqual(['private-container.blog=exited', 'private-container.shop=Nog niet gecreëerd']);
    expect(relay.connections).toBe(2);
  });

  it('survives a realtime server that fails', async () => {
    let attempts = 0;
    const { agent } = scriptedAgent([{ events: [event('a', 'start', 'running'), event('b', 'start', 'running')], hang: true }]);
    const relay = createContainerEventRelay({
      agent,
      notices: new ContainerNotices(realtimeOf(() => (attempts++, Promise.reject(new Error('soketi down')))), pino({ level: 'silent' })),
      logger: pino({ level: 'silent' }),
      placed: allPlaced,
    });
    relay.start();
    await until(() => attempts === 2);
    relay.stop();
  });

  it("says 'onbereikbaar' on every known channel when the stream breaks and the agent does not answer, then the true states", async () => {
    let agentAnswers = true;
    let breakStream: () => void = () => undefined;
    let streams = 0;
    const unavailable = () => new AgentError(grpc.status.UNAVAILABLE, 'the Docker engine does not answer');
    const containers = {
      listContainers: async () => {
        if (!agentAnswers) throw unavailable();
        return [container('blog', 'exited'), container('shop', 'running')];
      },
      watchContainerEvents: (_filter: unknown, options?: { signal?: AbortSignal }) => {
        streams += 1;
        const first = streams === 1;
        return (async function* () {
          if (!agentAnswers) throw unavailable();
          if (first) yield event('blog', 'die', 'exited');
          await new Promise<void>((resolve) => {
            breakStream = resolve;
            options?.signal?.addEventListener('abort', () => resolve(), { once: true });
          });
          if (!options?.signal?.aborted) throw unavailable();
        })();
      },
    } as unknown as ContainerApi;
    const { relay, sent } = recordingRelay({ containers }, { initialMs: 20, maxMs: 20, jitter: 0 });
    relay.start();
    // 'shop' was never the subject of an event: the first connection's listing made it known, silently.
    await until(() => sent.length === 1);
    expect(sent).toEqual(['private-container.blog=exited']);
    agentAnswers = false;
    breakStream();
    await until(() => sent.length === 3);
    expect(sent.slice(1).sort()).toEqual(['private-container.blog=onbereikbaar', 'private-container.shop=onbereikbaar']);
    // Told once: the failed attempts while the agent is away send nothing new.
    const attempts = streams;
    await until(() => streams >= attempts + 2);
    expect(sent).toHaveLength(3);
    agentAnswers = true;
    await until(() => sent.length === 5);
    relay.stop();
    expect(sent.slice(3).sort()).toEqual(['private-container.blog=exited', 'private-container.shop=running']);
  });

  it('a stream that breaks while the agent still answers only sends what changed', async () => {
    const { agent, calls } = scriptedAgent(
      [{ events: [event('blog', 'start', 'running')], thenFail: true }, { events: [], hang: true }],
      [container('blog', 'running')],
    );
    const { relay, sent } = recordingRelay(agent, { initialMs: 5, maxMs: 10, jitter: 0 });
    relay.start();
    await until(() => calls() === 2);
    relay.stop();
    expect(sent).toEqual(['private-container.blog=running']);
  });

  it('relays only containers of projects placed on its dev server: another server’s project, or a name no project has, is dropped (issue 35)', async () => {
    // This relay's server holds 'eigen' (approved) and 'wacht' (awaiting approval); 'ander' is another server's project.
    const placedHere: Placement = async (names) =>
      new Map(names.filter((name) => name === 'eigen' || name === 'wacht').map((name) => [name, name === 'wacht' ? 'Nog niet goed gekeurd!' : null]));
    const { agent, calls } = scriptedAgent(
      [
        { events: [event('ander', 'die', 'exited'), event('verzonnen', 'start', 'running'), event('eigen', 'start', 'running'), event('ander', 'destroy', '')], thenFail: true },
        { events: [event('wacht', 'start', 'running')], hang: true },
      ],
      // What a compromised agent lists after the reconnect: the other server's project too.
      [container('eigen', 'exited'), container('ander', 'running')],
    );
    const { relay, sent } = recordingRelay(agent, { initialMs: 5, maxMs: 10, jitter: 0 }, placedHere);
    relay.start();
    // In the stream's order: once the second stream's event is out, the resync before it was too.
    await until(() => calls() === 2 && sent.some((message) => message.startsWith('private-container.wacht=')));
    relay.stop();
    expect(sent).toEqual(['private-container.eigen=running', 'private-container.eigen=exited', 'private-container.wacht=Nog niet goed gekeurd!']);
  });

  it('relays no event while it is not known whether its project is the server’s (the lookup failed)', async () => {
    let lookups = 0;
    // The first lookup fails (the database away a moment), the next ones answer.
    const flaky: Placement = async (names) => {
      lookups += 1;
      if (lookups === 1) throw new Error('database away');
      return allPlaced(names);
    };
    // The listing is empty (no lookup): the first lookup is the first event's.
    const { agent } = scriptedAgent([{ events: [event('eerst', 'die', 'exited'), event('daarna', 'start', 'running')], hang: true }]);
    const { relay, sent } = recordingRelay(agent, {}, flaky);
    relay.start();
    // Events are relayed in order: once the second is out, the first was dropped.
    await until(() => sent.some((message) => message.startsWith('private-container.daarna=')));
    relay.stop();
    expect(sent).toEqual(['private-container.daarna=running']);
  });
});
