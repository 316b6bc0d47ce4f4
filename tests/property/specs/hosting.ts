/**
 * Property specs of the write endpoints that reach the host through the agent: containers (the
 * student's and the admin's), image pulls, screenshots, databases, the VPN and phpMyAdmin's
 * sign-on. The fake agent answers every call and records it; tests/property/invariants.ts checks
 * what those calls carried.
 */
import fc from 'fast-check';
import type { AgentInvitationJson } from '@devplein/contract/agent-links';
import { CaptureOutcome } from '@devplein/proto/screenshot';
import { bodyOf, hostileString, idOnlyRequest, idSegment, idValue, pathSegment, queryOf, taint, type Fields } from '../arbitraries.ts';
import { ids, insertProjects, projectName } from '../fixtures.ts';
import { endpoint, type EndpointSpec, type PropertyStack } from '../harness.ts';

/** The sign-on page's browser nonce the property run's phpMyAdmin tickets are made for. */
const SIGNON_STATE = 'n'.repeat(43);

const ACTION = fc.constantFrom('start', 'stop', 'pause', 'unpause', 'restart');
const ACTION_HOSTILE = fc.oneof(hostileString(), fc.constantFrom('kill', 'START', 'start ', 'delete', 'exec', 'start&action=stop'));
const actionQuery = (): fc.Arbitrary<string> => queryOf({ action: { valid: ACTION, hostile: ACTION_HOSTILE } });

/** The developer's projects that may have a container, each with one on the fake agent. */
async function developerContainers(stack: PropertyStack): Promise<Array<{ id: number; name: string; image: string | null }>> {
  const { knex, agent, siteDomain, userIds } = stack;
  const rows: Array<{ id: number; name: string; image: string | null }> = await knex('projects as p')
    .join('project_user as pu', 'pu.project_id', 'p.id')
    .leftJoin('docker_images as di', 'di.id', 'p.docker_image_id')
    .where({ 'pu.user_id': userIds.developer, 'p.validated': true })
    .select('p.id', 'p.name', 'di.image');
  if (rows.length < 6) {
    await insertProjects(knex, 6, { members: [userIds.developer], siteDomain });
    return developerContainers(stack);
  }
  for (const row of rows) {
    const has = [...agent.containers.values()].some((container) => container.projectId === row.id);
    if (!has) agent.addManaged({ name: row.name, projectId: row.id, domain: `${row.name}.${siteDomain}`, image: row.image ?? undefined });
  }
  return rows.map((row) => ({ id: Number(row.id), name: row.name, image: row.image }));
}

/** A container name of the project rules' shape; every fifth one a Docker name no project may have (capitals, '_', '.'). */
const unmanagedName = (index: number): string => {
  const name = fc.sample(projectName(), { numRuns: 1 })[0] as string;
  return index % 5 === 0 ? `Oud_${name}.v2` : name;
};

/** Containers for the admin screens: managed ones of projects and unmanaged ones, refilled to `count` each. */
async function hostContainers(stack: PropertyStack, count: number): Promise<string[]> {
  const { agent } = stack;
  const unmanaged = [...agent.containers.values()].filter((container) => container.projectId === 0).length;
  for (let index = unmanaged; index < count; index++) agent.addUnmanaged(unmanagedName(index));
  await developerContainers(stack);
  return [...agent.containers.keys()];
}

const databaseFields: Fields = {
  db: { valid: fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABC'), minLength: 1, maxLength: 3 }), hostile: fc.oneof(taint(fc.constantFrom('abc', 'x')), fc.constantFrom('a_b', 'a%', 'a`', "a'", 'ab;', 'abcd', '', ' a', 'ä', 'İ', 'ǅ', 'u1_abc', '*', '%', '_', 'a b')) },
};

/** Forgets the developer's databases in the control plane and on the fake agent (the quota is 10). */
async function resetDatabases(stack: PropertyStack): Promise<void> {
  await stack.knex('databases').where({ user_id: stack.userIds.developer }).delete();
  for (const [name, database] of stack.agent.databases) if (database.ownerUserId === stack.userIds.developer) stack.agent.databases.delete(name);
}

/** Something shaped like a PEM certificate request, never a valid one (a wrong one keeps the token). */
const csrLike = (): fc.Arbitrary<string> =>
  fc.oneof(
    fc.base64String({ minLength: 4, maxLength: 400 }).map((body) => `-----BEGIN CERTIFICATE REQUEST-----\n${body}\n-----END CERTIFICATE REQUEST-----\n`),
    fc.constantFrom('-----BEGIN CERTIFICATE REQUEST-----', '-----BEGIN CERTIFICATE REQUEST-----\n\n-----END CERTIFICATE REQUEST-----'),
  );

/** Something shaped like a PEM certificate, never one of the link CA (the renewal answers 422). */
const certificateLike = (): fc.Arbitrary<string> =>
  fc.oneof(
    fc.base64String({ minLength: 4, maxLength: 400 }).map((body) => `-----BEGIN CERTIFICATE-----\n${body}\n-----END CERTIFICATE-----\n`),
    fc.constantFrom('-----BEGIN CERTIFICATE-----', '-----BEGIN CERTIFICATE-----\n\n-----END CERTIFICATE-----'),
  );

/** The static image option (web root /www, migration 0017) and a repository of an allowed host. */
const STATIC_IMAGE = 5;
const REPOSITORY = 'https://git.school.nl/klas/site.git';

/** The developer's projects git deploy is offered for (repository + web root), each with a running container; some of their deploys, for roll backs. */
async function deployProjects(stack: PropertyStack): Promise<{ projects: number[]; deploys: number[] }> {
  const { knex, agent, siteDomain, userIds } = stack;
  const mine = () =>
    ids(knex('projects as p').join('project_user as pu', 'pu.project_id', 'p.id').where({ 'pu.user_id': userIds.developer, 'p.validated': true, 'p.docker_image_id': STATIC_IMAGE }).whereNotNull('p.repro').select('p.id'));
  let projects = await mine();
  if (projects.length < 4) {
    const made = await insertProjects(knex, 4, { members: [userIds.developer], siteDomain, imageId: STATIC_IMAGE });
    await knex('projects').whereIn('id', made.map((each) => each.id)).update({ repro: REPOSITORY });
    for (const project of made) agent.addManaged({ name: project.name, projectId: project.id, domain: `${project.name}.${siteDomain}` });
    projects = await mine();
  }
  const deploys = await ids(knex('project_deploys').whereIn('project_id', projects).whereNotNull('commit_hash').select('id'));
  return { projects, deploys };
}

const BRANCH = fc.constantFrom('main', 'develop', 'release/2026', 'feature_x', null, '');
const BRANCH_HOSTILE = fc.oneof(hostileString(), fc.constantFrom('-x', 'a..b', 'a b', 'main.lock', '../x', 'HEAD', '@{-1}', 'a~1', 'a:b', '/main', 'main/'));
const AUTH = fc.constantFrom('none', 'deploy-key', 'token');

export const hostingSpecs: EndpointSpec[] = [
  endpoint({
    route: 'POST /api/user/dockers/:projectId/deploys',
    as: 'developer',
    batchSize: 200,
    prepare: deployProjects,
    request: ({ projects, deploys }) =>
      fc.record({ params: fc.record({ projectId: idSegment(projects) }), body: bodyOf({ rollbackOf: { valid: idValue(deploys), optional: true } }) }),
  }),
  endpoint({
    route: 'PUT /api/user/dockers/:projectId/deploy-settings',
    as: 'developer',
    prepare: deployProjects,
    request: ({ projects }) =>
      fc.record({
        params: fc.record({ projectId: idSegment(projects) }),
        body: bodyOf({
          branch: { valid: BRANCH, hostile: BRANCH_HOSTILE },
          auth: { valid: AUTH, hostile: fc.oneof(hostileString(), fc.constantFrom('ssh', 'Token', 'deploy_key', '')) },
          token: { valid: fc.stringMatching(/^[A-Za-z0-9_]{8,60}$/), hostile: fc.oneof(hostileString(), fc.constantFrom('a b', 'x'.repeat(501), 'tok\n')), optional: true },
        }),
      }),
  }),
  endpoint({
    route: 'POST /api/user/dockers/:projectId/webhook-secret',
    as: 'developer',
    batchSize: 200,
    prepare: deployProjects,
    request: ({ projects }) => fc.record({ params: fc.record({ projectId: idSegment(projects) }), body: bodyOf({}) }),
  }),
  endpoint({
    route: 'POST /api/user/dockers/:projectId/deploy-key',
    as: 'developer',
    batchSize: 200,
    prepare: deployProjects,
    request: ({ projects }) => fc.record({ params: fc.record({ projectId: idSegment(projects) }), body: bodyOf({}) }),
  }),
  endpoint({
    route: 'POST /api/hooks/deploy/:projectId',
    // No session: a git server's signature is the authority (none of these is signed: all 401, or 413).
    as: 'signon-script',
    prepare: deployProjects,
    request: ({ projects }) =>
      fc.record({
        params: fc.record({ projectId: idSegment(projects) }),
        body: bodyOf({ ref: { valid: fc.constantFrom('refs/heads/main', 'refs/tags/v1') }, after: { valid: fc.stringMatching(/^[0-9a-f]{40}$/) } }),
        headers: fc.oneof(
          fc.constant({}),
          fc.record({ 'X-Gitea-Event': fc.constant('push'), 'X-Gitea-Signature': fc.stringMatching(/^[0-9a-f]{64}$/) }),
          fc.record({ 'X-GitHub-Event': fc.constantFrom('push', 'ping'), 'X-Hub-Signature-256': fc.stringMatching(/^sha256=[0-9a-f]{64}$/) }),
          fc.record({ 'X-Gitlab-Event': fc.constant('Push Hook'), 'X-Gitlab-Token': fc.string({ maxLength: 80 }).filter((value) => /^[\x20-\x7e]*$/.test(value)) }),
        ),
      }),
  }),
  endpoint({
    route: 'POST /api/agents/renew',
    // No session: the agent's current certificate and a signature with its key are the authority.
    as: 'signon-script',
    request: () =>
      fc.record({
        body: bodyOf({
          certificate: { valid: certificateLike(), hostile: fc.oneof(hostileString(), certificateLike().map((pem) => pem.repeat(30))) },
          csr: { valid: csrLike(), hostile: hostileString() },
          signed_at: { valid: fc.date({ noInvalidDate: true, min: new Date('2000-01-01'), max: new Date('2100-01-01') }).map((date) => date.toISOString()), hostile: hostileString() },
          signature: { valid: fc.base64String({ minLength: 4, maxLength: 120 }), hostile: hostileString() },
        }),
      }),
  }),
  endpoint({
    route: 'POST /api/agents/join',
    // No session: the one-time token in Authorization is the authority (the signon client's header is replaced).
    as: 'signon-script',
    batchSize: 100,
    prepare: async (stack) => {
      const name = `join-${Date.now().toString(36)}`;
      const invitation = await stack.client('admin').json<AgentInvitationJson>('POST', '/api/admin/agents/invitations', {
        name,
        address: `${name}.school.nl:7443`,
        site_domain: `${name}.school.nl`,
      });
      const token = /#([A-Za-z0-9_-]{43})\./.exec(invitation.joinString)?.[1];
      if (!token) throw new Error(`no token in the join string ${invitation.joinString}`);
      return [token];
    },
    request: (tokens) =>
      fc.record({
        headers: fc.record({
          Authorization: fc.oneof(
            fc.constantFrom(...tokens).map((token) => `Bearer ${token}`),
            fc.string({ unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'), minLength: 43, maxLength: 43 }).map((token) => `Bearer ${token}`),
            // Whatever a client can send as a header value (printable, no line breaks).
            fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)), maxLength: 200 }),
          ),
        }),
        body: bodyOf({ csr: { valid: csrLike(), hostile: fc.oneof(hostileString(), csrLike().map((pem) => pem.repeat(30))) } }),
      }),
  }),
  endpoint({
    route: 'POST /api/user/dockers',
    as: 'developer',
    prepare: async (stack) => {
      await insertProjects(stack.knex, 2, { members: [stack.userIds.developer], siteDomain: stack.siteDomain, imageId: 5 });
      await insertProjects(stack.knex, 1, { members: [stack.userIds.developer], siteDomain: stack.siteDomain, validated: null });
      await insertProjects(stack.knex, 1, { members: [stack.userIds.developer], siteDomain: stack.siteDomain, imageId: null });
      const projects = await stack.knex('project_user').where({ user_id: stack.userIds.developer }).orderBy('project_id', 'desc').limit(30).pluck<number[]>('project_id');
      return projects.map(Number);
    },
    request: (projects) => bodyOf({ id: { valid: idValue(projects) } }, { form: true }).map((body) => ({ body })),
  }),
  endpoint({
    route: 'PUT /api/user/dockers/:projectId',
    as: 'developer',
    prepare: developerContainers,
    request: (projects) => fc.record({ params: fc.record({ projectId: idSegment(projects.map((project) => project.id)) }), query: actionQuery(), body: bodyOf({}) }),
  }),
  endpoint({
    route: 'POST /api/user/dockers_images',
    as: 'developer',
    prepare: developerContainers,
    request: (projects) =>
      fc.constantFrom(...projects).chain((project) =>
        bodyOf({
          image: {
            valid: fc.constantFrom(project.image ?? 'devplein/php:8.3', 'devplein/node:20'),
            hostile: fc.oneof(taint(fc.constant(project.image ?? 'devplein/php:8.3')), fc.constantFrom('evil.example/x:1', 'devplein/php:8.3;id', '../x', 'x@sha256:00', 'UPPER/x')),
          },
          project_id: { valid: idValue([project.id]) },
        }).map((body) => ({ body })),
      ),
  }),
  endpoint({
    route: 'POST /api/wordpress/passwordreset/:project',
    as: 'developer',
    prepare: async (stack) => {
      const { knex, agent, userIds, siteDomain } = stack;
      const wordpress = () =>
        knex('projects as p')
          .join('project_user as pu', 'pu.project_id', 'p.id')
          .join('docker_images as di', 'di.id', 'p.docker_image_id')
          .where({ 'pu.user_id': userIds.developer, 'di.wordpress': true })
          .pluck<string[]>('p.name');
      if ((await wordpress()).length < 3) await insertProjects(knex, 3, { members: [userIds.developer], siteDomain, imageId: 4 });
      const projects = await developerContainers(stack);
      // The WordPress sites' containers carry the agent's label (a reset elsewhere is refused by the agent).
      const names = new Set(await wordpress());
      for (const container of agent.containers.values()) if (names.has(container.name)) container.labels['devplein.wordpress'] = 'true';
      return projects;
    },
    request: (projects) =>
      fc.record({
        params: fc.record({ project: pathSegment(fc.oneof(fc.constantFrom(...projects.map((project) => project.name)), fc.constantFrom(...projects.map((project) => String(project.id))))) }),
        body: bodyOf({}),
      }),
  }),
  endpoint({
    route: 'POST /api/admin/dockers/bulk',
    as: 'admin',
    batchSize: 250,
    prepare: (stack) => hostContainers(stack, 10),
    request: (names) =>
      bodyOf({
        names: { valid: fc.uniqueArray(fc.constantFrom(...names), { minLength: 1, maxLength: 4 }), hostile: fc.array(fc.oneof(fc.constantFrom(...names), hostileString()), { maxLength: 5 }) },
        action: { valid: fc.constantFrom('start', 'stop', 'pause', 'unpause', 'restart', 'delete'), hostile: ACTION_HOSTILE },
      }).map((body) => ({ body })),
  }),
  endpoint({
    route: 'PUT /api/admin/dockers/:name',
    as: 'admin',
    prepare: (stack) => hostContainers(stack, 10),
    request: (names) => fc.record({ params: fc.record({ name: pathSegment(fc.constantFrom(...names)) }), query: actionQuery(), body: bodyOf({}) }),
  }),
  endpoint({
    route: 'DELETE /api/admin/dockers/:name',
    as: 'admin',
    batchSize: 100,
    prepare: (stack) => hostContainers(stack, 30),
    request: (names) => fc.record({ params: fc.record({ name: pathSegment(fc.constantFrom(...names, 'images', 'bulk')) }), body: bodyOf({}) }),
  }),
  endpoint({
    route: 'PUT /api/admin/dockers/:name/owner',
    as: 'admin',
    batchSize: 100,
    prepare: async (stack) => {
      // Fresh unmanaged containers every batch (an adopted one answers 409 from then on); the
      // old ones go, or every lookup would list thousands.
      for (const [name, container] of stack.agent.containers) if (container.projectId === 0) stack.agent.containers.delete(name);
      const fresh = Array.from({ length: 30 }, (_, index) => unmanagedName(index));
      for (const name of fresh) stack.agent.addUnmanaged(name);
      return { fresh, names: await hostContainers(stack, 0), users: await ids(stack.knex('users').orderBy('id').limit(60)) };
    },
    request: (c) =>
      fc.record({
        params: fc.record({ name: pathSegment(fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...c.fresh) }, { weight: 1, arbitrary: fc.constantFrom(...c.names) })) }),
        body: bodyOf({ user: { valid: idValue(c.users) } }, { form: true }),
      }),
  }),
  endpoint({
    route: 'POST /api/admin/dockers/:id/screenshot',
    as: 'admin',
    prepare: async (stack) => {
      const projects = await developerContainers(stack);
      // No pictures to render: the fake agent answers at once, the capture itself is not the subject.
      for (const project of projects) stack.agent.screenshots.set(`${project.name}.${stack.siteDomain}`, { outcome: CaptureOutcome.CAPTURE_OUTCOME_UNREACHABLE });
      return [...projects.map((project) => project.id), ...(await ids(stack.knex('projects').orderBy('id').limit(20)))];
    },
    request: (projects) => idOnlyRequest(projects),
  }),
  endpoint({
    route: 'POST /api/user/databases',
    as: 'developer',
    batchSize: 40,
    prepare: resetDatabases,
    request: () => bodyOf(databaseFields, { form: true }).map((body) => ({ body })),
  }),
  endpoint({
    route: 'DELETE /api/user/databases/:id',
    as: 'developer',
    batchSize: 100,
    prepare: async (stack) => {
      await resetDatabases(stack);
      for (const db of ['a', 'b', 'c', 'de', 'fg', 'hij']) await stack.client('developer').json('POST', '/api/user/databases', { db });
      return ids(stack.knex('databases').orderBy('id', 'desc').limit(20));
    },
    request: (databases) => idOnlyRequest(databases),
  }),
  endpoint({
    route: 'POST /api/vpn',
    as: 'developer',
    batchSize: 50,
    prepare: async (stack) => {
      await stack.knex('vpn_configs').where({ user_id: stack.userIds.developer }).delete();
      for (const [key, peer] of stack.agent.peers) if (peer.userId === stack.userIds.developer) stack.agent.peers.delete(key);
    },
    // The route takes no input: whatever is sent is noise it must ignore.
    request: () => bodyOf({}).map((body) => ({ body })),
  }),
  endpoint({
    route: 'POST /api/db-admin/signon',
    as: 'signon-script',
    batchSize: 100,
    prepare: async (stack) => {
      const developer = stack.client('developer');
      if ((await stack.knex('databases').where({ user_id: stack.userIds.developer }).first('id')) === undefined) await developer.json('POST', '/api/user/databases', { db: 'pma' });
      const database = (await ids(stack.knex('databases').where({ user_id: stack.userIds.developer }).limit(1)))[0] as number;
      const tickets: string[] = [];
      for (let index = 0; index < 20; index++) {
        // As the sign-on page asks: with its browser nonce (SIGNON_STATE), which a redeem must present.
        const answer = await developer.send('GET', `/api/user/databases/${database}/admin?state=${SIGNON_STATE}`, { kind: 'none' });
        const ticket = answer.location ? new URL(answer.location).searchParams.get('ticket') : null;
        if (!ticket) throw new Error(`the admin link gave no ticket: ${answer.status} ${answer.location ?? ''}`);
        tickets.push(ticket);
      }
      return tickets;
    },
    request: (tickets) =>
      fc.record({
        body: bodyOf({
          token: {
            valid: fc.oneof(fc.constantFrom(...tickets), fc.base64String({ minLength: 60, maxLength: 60 }).map((text) => text.replace(/\+/g, '-').replace(/\//g, '_').replace(/=/g, 'A'))),
            hostile: taint(fc.constantFrom(...tickets)),
          },
          state: {
            valid: fc.oneof(fc.constant(SIGNON_STATE), fc.base64String({ minLength: 44, maxLength: 44 }).map((text) => text.replace(/\+/g, '-').replace(/\//g, '_').slice(0, 43))),
            hostile: taint(fc.constant(SIGNON_STATE)),
          },
        }),
        headers: fc.oneof(
          { weight: 8, arbitrary: fc.constant({}) },
          { weight: 1, arbitrary: fc.constantFrom({ Authorization: '' }, { Authorization: 'Bearer ' }, { Authorization: 'Basic eDp5' }, { Authorization: 'Bearer wrong' }) },
        ),
      }),
  }),
];
