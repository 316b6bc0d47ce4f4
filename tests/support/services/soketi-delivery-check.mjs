/* global setTimeout, clearTimeout, URLSearchParams, fetch, WebSocket */
// Run inside a test server with the bundle's Node 24 (its global WebSocket): subscribes to a
// channel on soketi's websocket (127.0.0.1:6001, as Caddy passes /app/* on), triggers an event
// through soketi's HTTP API signed as the control plane signs it (Pusher protocol), and prints
// 'delivered' once the event arrives over the websocket; exit 1 after 20 s without it.
// Settings: SOKETI_DEFAULT_APP_ID/KEY/SECRET from the environment (/etc/devplein/soketi.env).
import { createHash, createHmac } from 'node:crypto';

const { SOKETI_DEFAULT_APP_ID: appId, SOKETI_DEFAULT_APP_KEY: key, SOKETI_DEFAULT_APP_SECRET: secret } = process.env;
const base = 'http://127.0.0.1:6001';
const channel = 'ops-check';
const started = Date.now();
const timer = setTimeout(() => {
  console.log(`no event over the websocket within 20 s`);
  process.exit(1);
}, 20_000);

async function trigger() {
  const body = JSON.stringify({ name: 'ops-event', channel, data: JSON.stringify({ message: 'hallo' }) });
  const path = `/apps/${appId}/events`;
  const query = new URLSearchParams({ auth_key: key, auth_timestamp: String(Math.floor(Date.now() / 1000)), auth_version: '1.0', body_md5: createHash('md5').update(body).digest('hex') });
  const signed = [...query.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([name, value]) => `${name}=${value}`).join('&');
  query.set('auth_signature', createHmac('sha256', secret).update(`POST\n${path}\n${signed}`).digest('hex'));
  const answer = await fetch(`${base}${path}?${query}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  if (!answer.ok) {
    console.log(`trigger answered ${answer.status}: ${await answer.text()}`);
    process.exit(1);
  }
}

const socket = new WebSocket(`ws://127.0.0.1:6001/app/${key}?protocol=7&client=js&version=8.4.0`);
socket.addEventListener('error', (event) => {
  console.log(`websocket error: ${event.message ?? event.type}`);
  process.exit(1);
});
socket.addEventListener('message', (message) => {
  const frame = JSON.parse(String(message.data));
  if (frame.event === 'pusher:connection_established') socket.send(JSON.stringify({ event: 'pusher:subscribe', data: { channel } }));
  else if (frame.event === 'pusher_internal:subscription_succeeded') void trigger();
  else if (frame.event === 'ops-event') {
    clearTimeout(timer);
    console.log(`delivered ${frame.data} in ${Date.now() - started} ms`);
    socket.close();
    process.exit(0);
  }
});
