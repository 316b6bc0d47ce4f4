import dgram from 'node:dgram';
import { isIPv6 } from 'node:net';

/** A bound listener; `address` is what Caddy's net writer dials (the real port when 0 was asked). */
export interface AccessLogListener {
  address: string;
  close(): Promise<void>;
}

/**
 * Receives Caddy's access log over UDP on a loopback address (see access-log.ts for why UDP)
 * and hands every line to `onLine`. Caddy sends one entry per datagram; lines are split anyway.
 * The receive buffer is raised so a burst of requests is not dropped while the agent is busy; a
 * line lost in a flood costs nothing, one line per site per idle period is all that matters.
 */
export function listenForAccessLog(listen: string, onLine: (line: string) => void): Promise<AccessLogListener> {
  const separator = listen.lastIndexOf(':');
  const host = listen.slice(0, separator).replace(/^\[|\]$/g, '');
  const port = Number(listen.slice(separator + 1));
  const socket = dgram.createSocket({ type: isIPv6(host) ? 'udp6' : 'udp4', recvBufferSize: 4 * 1024 * 1024 });
  socket.on('message', (message) => {
    for (const line of message.toString('utf8').split('\n')) if (line.trim() !== '') onLine(line);
  });
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(port, host, () => {
      socket.off('error', reject);
      // A failing socket later (it should not) must not crash the agent.
      socket.on('error', () => undefined);
      const bound = socket.address();
      resolve({
        address: `${bound.family === 'IPv6' ? `[${bound.address}]` : bound.address}:${bound.port}`,
        close: () => new Promise((done) => socket.close(() => done())),
      });
    });
  });
}
