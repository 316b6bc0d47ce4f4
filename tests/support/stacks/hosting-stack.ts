/**
 * The stack of the container-hosting API tests: a seeded test database, a fake agent over mTLS
 * and the real control plane pointing at it (and at the test soketi), plus sessions per role and
 * a project factory. One per test file; stop() in afterAll.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import { createTestDatabase } from '../services/database.ts';
import { seedDemoData } from '../../../control-plane/src/db/seed.ts';
import { startControlPlane, type RunningControlPlane } from '../services/control-plane.ts';
import { HttpSession, signedInSessions } from '../clients/http-session.ts';
import { agentLinkEnv, makeTestCerts } from '../services/agent.ts';
import { startFakeAgent, type FakeAgent, type FakeAgentOptions } from '../fakes/fake-agent.ts';
import { testSoketi } from '../services/services.ts';
import { waitFor } from '../clients/ports.ts';
import { subscribeContainerChannel, type ContainerChannel } from '../clients/container-channel.ts';

export const SITE = 'dev.devplein.test';
export const ADMIN = 'admin@devplein.test';
export const DOCENT = 'docent@devplein.test';
export const DEVELOPER = 'ontwikkelaar@devplein.test';
export const STUDENT = 'student@devplein.test';
export const NO_GROUP = 'zonderklas@devplein.test';
export const NOT_ACTIVATED = 'nieuw@devplein.test';

/** Seeded image options (by name → id) the tests use. */
export const IMAGE = { php: 2, node: 3, wordpress: 4, static: 5 } as const;

export interface HostingStack {
  database: { url: string; knex: Knex; destroy: () => Promise<void> };
  agent: FakeAgent;
  app: RunningControlPlane;
  as(email: string): Promise<HttpSession>;
  anonymous(): Promise<HttpSession>;
  userId(email: string): Promise<number>;
  /** A new activated developer (not one of the demo accounts, so a test may disable or delete them), signed in. */
  newDeveloper(name: string): Promise<{ id: number; email: string; session: HttpSession }>;
  /** Inserts a project (validated true by default) with these members, first = owner. */
  project(input: { name: string; image?: number | null; validated?: boolean | null; members: string[]; repro?: string | null; branch?: string | null }): Promise<{ id: number; name: string }>;
  /** A pusher-js client subscribed to private-container.{name} as `session`; collects DockerEventSent messages. */
  subscribe(session: HttpSession, name: string): Promise<ContainerChannel>;
  /** Restarts the fake agent and waits until the control plane's channel to it works again. */
  restartAgent(): Promise<void>;
  stop(): Promise<void>;
}

export async function startHostingStack(options: Omit<FakeAgentOptions, 'certs'> & { env?: Record<string, string> } = {}): Promise<HostingStack> {
  const certDir = mkdtempSync(path.join(os.tmpdir(), 'devplein-hosting-'));
  const certs = await makeTestCerts(certDir);
  const database = await createTestDatabase();
  await seedDemoData(database.knex);
  const agent = await startFakeAgent({ certs, ...options });
  const app = await startControlPlane({
    databaseUrl: database.url,
    env: {
      SITE_DOMAIN: SITE,
      ...agentLinkEnv(agent.address, certs),
      // Dev servers may join (invitations sign with the test CA).
      AGENT_CA_KEY_FILE: certs.caKey,
      // The reconcile of unapproved containers would add ListContainers calls at every minute to
      // the fake agent's call log that tests count; the tests of it set their own schedule.
      UNAPPROVED_RECONCILE_CRON: '0 0 1 1 *',
      ...options.env,
    },
  });
  const clients: Array<{ disconnect(): void }> = [];
  let madeUsers = 0;

  const stack: HostingStack = {
    database,
    agent,
    app,
    as: signedInSessions(() => app.url),
    async anonymous() {
      const session = new HttpSession(app.url);
      await session.primeCsrf();
      return session;
    },
    async userId(email) {
      const row = await database.knex('users').where({ email }).first<{ id: number }>('id');
      return row.id;
    },
    async newDeveloper(name) {
      madeUsers += 1;
      const slug = `${name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-${madeUsers}-${Date.now()}`;
      const email = `${slug}@student.devplein.test`;
      const [row] = await database.knex('users').insert({ name, name_slug: slug, email, email_verified_at: new Date(), developer: true }).returning<{ id: number }[]>('id');
      const session = new HttpSession(app.url);
      const signedIn = await session.signIn(email);
      if (signedIn.status !== 200) throw new Error(`signing in ${email} answered ${signedIn.status}`);
      return { id: Number(row?.id), email, session };
    },
    async project(input) {
      const [row] = await database
        .knex('projects')
        .insert({
          name: input.name,
          domain: `${input.name}.${SITE}`,
          description: `Testproject ${input.name} voor de container-hosting tests van devplein.`,
          visible: false,
          docker_image_id: input.image === undefined ? IMAGE.php : input.image,
          validated: input.validated === undefined ? true : input.validated,
          repro: input.repro ?? null,
          deploy_branch: input.branch ?? null,
        })
        .returning<{ id: number }[]>('id');
      const id = Number(row?.id);
      let position = 0;
      for (const email of input.members) {
        await database.knex('project_user').insert({ project_id: id, user_id: await stack.userId(email), position: position++ });
      }
      return { id, name: input.name };
    },
    async subscribe(session, name) {
      const channel = await subscribeContainerChannel({ session, name, soketi: testSoketi() });
      clients.push({ disconnect: () => channel.close() });
      return channel;
    },
    async restartAgent() {
      await agent.stop();
      await agent.start();
      const admin = await stack.as(ADMIN);
      await waitFor(async () => (await admin.json<{ state: string }>('GET', '/api/admin/agent')).body.state === 'reachable', {
        description: 'the control plane reaching the fake agent again',
        timeoutMs: 30_000,
        intervalMs: 250,
      });
    },
    async stop() {
      for (const client of clients) client.disconnect();
      await app.stop();
      await agent.stop();
      await database.destroy();
      rmSync(certDir, { recursive: true, force: true });
    },
  };
  return stack;
}
