/**
 * POST /broadcasting/auth and /broadcasting/user-auth (routes/broadcasting): who may sign which
 * private channel, and a subscription through the test soketi with the control plane's signature.
 */
import { describe, expect, it } from 'vitest';
import { seededControlPlane } from '../../support/stacks/seeded-control-plane.ts';
import { HttpSession, signedInSessions } from '../../support/clients/http-session.ts';
import { testSoketi } from '../../support/services/services.ts';
import { subscribeContainerChannel } from '../../support/clients/container-channel.ts';

const as = signedInSessions(() => stack.app.url);

const stack = seededControlPlane();

describe('POST /broadcasting/auth and /broadcasting/user-auth', () => {
  const socket = '1234.5678';

  it('refuses anonymous and not-activated callers', async () => {
    const anonymous = new HttpSession(stack.app.url);
    await anonymous.primeCsrf();
    expect((await anonymous.api('POST', '/broadcasting/auth', { socket_id: socket, channel_name: 'private-container.zonnebloem' })).status).toBe(401);
    const newcomer = await as('nieuw@devplein.test');
    expect((await newcomer.api('POST', '/broadcasting/user-auth', { socket_id: socket })).status).toBe(403);
  });

  it('refuses unknown channels and projects that do not exist', async () => {
    const admin = await as('admin@devplein.test');
    for (const channel_name of ['private-users', 'presence-x', 'private-container.', 'private-container.Bad_Name', 'private-container.bestaat-niet']) {
      expect((await admin.api('POST', '/broadcasting/auth', { socket_id: socket, channel_name })).status, channel_name).toBe(403);
    }
    expect((await admin.api('POST', '/broadcasting/auth', { socket_id: 'x', channel_name: 'private-container.a' })).status).toBe(422);
  });

  it('signs a container channel for the project’s members and admins, and refuses other students', async () => {
    const project = await stack.database.knex('projects as p')
      .join('project_user as pu', 'pu.project_id', 'p.id')
      .join('users as u', 'u.id', 'pu.user_id')
      .whereNotNull('u.email_verified_at')
      .whereNull('u.disabled_at')
      .select('p.name', 'u.email')
      .first<{ name: string; email: string }>();
    const memberEmails = (
      await stack.database.knex('project_user as pu').join('users as u', 'u.id', 'pu.user_id').join('projects as p', 'p.id', 'pu.project_id').where('p.name', project.name).select('u.email')
    ).map((row: { email: string }) => row.email);
    const outsider = ['student@devplein.test', 'ontwikkelaar@devplein.test', 'zonderklas@devplein.test'].find((email) => !memberEmails.includes(email));
    expect(outsider).toBeDefined();
    const channel_name = `private-container.${project.name}`;
    const member = await as(project.email);
    const signed = await member.json<{ auth: string }>('POST', '/broadcasting/auth', { socket_id: socket, channel_name });
    expect(signed.status).toBe(200);
    expect(signed.body.auth).toMatch(/^[^:]+:[0-9a-f]{64}$/);
    expect((await (await as('admin@devplein.test')).json('POST', '/broadcasting/auth', { socket_id: socket, channel_name })).status).toBe(200);
    expect((await (await as(outsider as string)).json('POST', '/broadcasting/auth', { socket_id: socket, channel_name })).status).toBe(403);
  });

  it('lets a member subscribe through soketi with the control plane’s signature and receive DockerEventSent', async () => {
    const soketi = testSoketi();
    const project = await stack.database.knex('projects as p')
      .join('project_user as pu', 'pu.project_id', 'p.id')
      .join('users as u', 'u.id', 'pu.user_id')
      .whereNotNull('u.email_verified_at')
      .select('p.name', 'u.email')
      .first<{ name: string; email: string }>();
    const member = await as(project.email);
    const channel = await subscribeContainerChannel({ session: member, name: project.name, soketi });
    try {
      const { createRealtime } = await import('../../../control-plane/src/realtime/pusher.ts');
      const server = createRealtime({ appId: soketi.appId, key: soketi.key, secret: soketi.secret, host: soketi.host, port: soketi.port, useTLS: false });
      await server.trigger(`private-container.${project.name}`, 'DockerEventSent', { message: 'running' });
      await channel.waitFor('running');
      expect(channel.messages).toEqual(['running']);
    } finally {
      channel.close();
    }
  });
});
