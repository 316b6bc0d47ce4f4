import { Readable } from 'node:stream';
import * as grpc from '@grpc/grpc-js';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { AgentError } from './agent-error.ts';
import { streamCall, type StreamMetrics } from './grpc-stream.ts';

/** A stand-in for a grpc-js ClientReadableStream: a readable of messages, then an end or an error. */
function fakeCall(messages: number[], failWith?: grpc.status): grpc.ClientReadableStream<number> {
  let index = 0;
  const readable = new Readable({
    objectMode: true,
    read() {
      if (index < messages.length) this.push(messages[index++]);
      else if (failWith !== undefined) this.destroy(Object.assign(new Error('stream failed'), { code: failWith, details: 'docker is down' }));
      else this.push(null);
    },
  });
  return Object.assign(readable, { cancel: () => readable.destroy() }) as unknown as grpc.ClientReadableStream<number>;
}

function recorder(): StreamMetrics & { log: string[] } {
  const log: string[] = [];
  return {
    log,
    streamOpened: (rpc) => log.push(`open ${rpc}`),
    streamMessage: (rpc) => log.push(`message ${rpc}`),
    streamEnded: (rpc, outcome) => log.push(`end ${rpc} ${outcome}`),
  };
}

const silent = pino({ level: 'silent' });

describe('streamCall metrics', () => {
  it('counts the messages of a stream that ends normally', async () => {
    const metrics = recorder();
    const seen: number[] = [];
    for await (const value of streamCall('WatchContainerEvents', () => fakeCall([1, 2]), (m: number) => m * 10, new grpc.Metadata(), {}, silent, metrics)) seen.push(value);
    expect(seen).toEqual([10, 20]);
    expect(metrics.log).toEqual(['open WatchContainerEvents', 'message WatchContainerEvents', 'message WatchContainerEvents', 'end WatchContainerEvents ok']);
  });

  it('records the error code of a stream that fails', async () => {
    const metrics = recorder();
    const iterate = async () => {
      for await (const value of streamCall('FollowContainerLogs', () => fakeCall([1], grpc.status.UNAVAILABLE), (m: number) => m, new grpc.Metadata(), {}, silent, metrics)) void value;
    };
    await expect(iterate()).rejects.toBeInstanceOf(AgentError);
    expect(metrics.log.at(-1)).toBe('end FollowContainerLogs UNAVAILABLE');
  });

  it('counts a stream the consumer leaves early as cancelled', async () => {
    const metrics = recorder();
    for await (const value of streamCall('PullImage', () => fakeCall([1, 2, 3]), (m: number) => m, new grpc.Metadata(), {}, silent, metrics)) {
      if (value === 1) break;
    }
    expect(metrics.log).toEqual(['open PullImage', 'message PullImage', 'end PullImage cancelled']);
  });
});
