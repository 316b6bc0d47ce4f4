/**
 * Property specs of the admin screens' write endpoints: project decisions, users, teams, groups,
 * licences, introducees and image options. All sent as the admin (admin + developer), whose own
 * account the API protects from being disabled or deleted; nothing else in this file signs in.
 */
import fc from 'fast-check';
import { bodyOf, hostileString, idOnlyRequest, idSegment, idValue, pathSegment, queryOf, taint, type Fields } from '../arbitraries.ts';
import { deletableProjects, ids, insertProjects, insertUsers, madeThroughApi, validText } from '../fixtures.ts';
import { endpoint, type EndpointSpec, type PropertyStack } from '../harness.ts';
import { CONTAINER_CAPABILITIES } from '@devplein/contract/validation/containerCapabilities';

const lower = (alphabet: string, min: number, max: number): fc.Arbitrary<string> => fc.string({ unit: fc.constantFrom(...alphabet), minLength: min, maxLength: max });

const gitUrl = (): fc.Arbitrary<string> =>
  fc.oneof(
    lower('abcdefghijklmnopqrstuvwxyz0123456789-', 1, 20).map((path) => `https://git.school.nl/klas/${path}.git`),
    lower('abcdefghijklmnopqrstuvwxyz', 1, 12).map((path) => `git@git.school.nl:studenten/${path}.git`),
  );

/** Ids of users the batch may do anything to, plus every other user id (the seed's too). */
async function users(stack: PropertyStack, fresh: number): Promise<{ fresh: number[]; all: number[] }> {
  const made = await insertUsers(stack.knex, fresh);
  return { fresh: made, all: await ids(stack.knex('users').orderBy('id', 'desc').limit(300)) };
}

/** An introducee name: lowercase letter, then 3..30 of a-z, 0-9, '-', not ending in '-', 4th character no '-'. */
const introduceeName = (): fc.Arbitrary<string> =>
  fc
    .tuple(lower('abcdefghijklmnopqrstuvwxyz', 4, 4), lower('abcdefghijklmnopqrstuvwxyz0123456789-', 0, 20), lower('abcdefghijklmnopqrstuvwxyz0123456789', 1, 6))
    .map(([head, middle, tail]) => `${head}${middle}${tail}`.slice(0, 31))
    .filter((name) => !name.endsWith('-'));

const imageReference = (): fc.Arbitrary<string> =>
  fc.oneof(
    fc.constantFrom('devplein/php:8.3', 'nginx', 'registry.school.nl:5000/klas/app:1.0', 'ghcr.io/org/img@sha256:' + 'a'.repeat(64), '127.0.0.1:5000/x/y:latest'),
    fc.tuple(lower('abcdefghijklmnopqrstuvwxyz0123456789', 1, 12), lower('abcdefghijklmnopqrstuvwxyz0123456789', 1, 8)).map(([name, tag]) => `school/${name}:${tag}`),
  );

const imageFields: Fields = {
  name: { valid: validText(2, 100), hostile: taint(validText(2, 100)) },
  image: { valid: imageReference(), hostile: fc.oneof(taint(imageReference()), fc.constantFrom('UPPER/case', 'a b', 'x:', ':tag', '-x', 'x;rm -rf /', '../x', 'x@sha256:zz', 'a'.repeat(256))) },
  ssh: { valid: fc.boolean(), optional: true },
  wordpress: { valid: fc.boolean(), optional: true },
  capabilities: { valid: capabilities(), hostile: hostileCapabilities(), optional: true },
  deploy: { valid: deploySettings(), hostile: hostileDeploySettings(), optional: true },
};

/** Git deploy settings as the images page sends them (empty texts are "none"). */
function deploySettings(): fc.Arbitrary<Record<string, unknown>> {
  const relative = lower('abcdefghijklmnopqrstuvwxyz0123456789-_.', 1, 12).filter((part) => part !== '.' && part !== '..');
  return fc.record(
    {
      webRoot: fc.oneof(fc.constantFrom('/var/www/html', '/www', '/srv/app/', '', null), relative.map((part) => `/srv/${part}`)),
      afterUpdate: fc.oneof(fc.constantFrom('composer install --no-dev', 'php artisan migrate --force', '', null), validText(1, 80)),
      keepPaths: fc.array(relative, { maxLength: 5 }),
    },
    { requiredKeys: [] },
  );
}

/** Paths outside the web root or the container's system, commands over several lines, wrong shapes. */
function hostileDeploySettings(): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.constantFrom('/var/www', [], 7),
    fc.record({ webRoot: fc.oneof(fc.constantFrom('/', '/etc', '/var/www/../../etc', 'www', '/a b', 5), hostileString()) }),
    fc.record({ keepPaths: fc.oneof(fc.constantFrom(['../x'], ['/etc/passwd'], 'uploads', [7]), hostileString()) }),
    fc.record({ afterUpdate: fc.oneof(fc.constantFrom('a\nb', 'x'.repeat(501)), hostileString()) }),
    fc.record({ buildCommand: fc.constant('npm run build') }),
  );
}

/** Linux capabilities as the images page sends them: names of the allow-list, any order, repeats. */
function capabilities(): fc.Arbitrary<string[]> {
  return fc.array(fc.constantFrom(...CONTAINER_CAPABILITIES), { maxLength: 12 });
}

/** What the agent must never get: names outside the allow-list, wrong spelling, wrong shapes. */
function hostileCapabilities(): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.constantFrom(['SYS_ADMIN'], ['CHOWN', 'NET_RAW'], ['ALL'], ['CAP_CHOWN'], ['chown'], ['CHOWN '], 'CHOWN', [1], [null], [['CHOWN']], { 0: 'CHOWN' }),
    fc.tuple(capabilities(), hostileString()).map(([valid, bad]) => [...valid, bad]),
  );
}

/** A dev server's name as the invitation form takes it (a-z first, then a-z, 0-9, '-', at most 31). */
const agentName = (): fc.Arbitrary<string> =>
  fc.tuple(lower('abcdefghijklmnopqrstuvwxyz', 1, 1), lower('abcdefghijklmnopqrstuvwxyz0123456789-', 0, 20)).map(([head, tail]) => `${head}${tail}`);

const agentInvitationFields: Fields = {
  name: { valid: agentName(), hostile: fc.oneof(taint(agentName()), fc.constantFrom('Dev2', '2dev', 'dev 2', 'dev_2', 'a'.repeat(32), '-dev', 'dév')) },
  address: {
    valid: fc.tuple(agentName(), fc.integer({ min: 1, max: 65_535 })).map(([host, port]) => `${host}.school.nl:${port}`),
    hostile: fc.constantFrom('dev2.school.nl', 'dev2.school.nl:', ':7443', 'dev2.school.nl:99999', 'http://dev2:7443', 'dev2 :7443', 'dev2.school.nl:7443/x'),
  },
  site_domain: { valid: agentName().map((name) => `${name}.school.nl`), hostile: fc.constantFrom('', 'school', 'https://x.nl', 'a..nl', 'x.nl/', '*.x.nl') },
  db_host: { valid: fc.constantFrom('10.9.0.1', 'db.dev2.school.nl'), optional: true },
  db_admin_url: { valid: fc.constantFrom('https://dev2.school.nl/phpmyadmin/'), optional: true },
};

export const adminSpecs: EndpointSpec[] = [
  endpoint({
    route: 'POST /api/admin/agents/invitations',
    as: 'admin',
    batchSize: 100,
    request: () => bodyOf(agentInvitationFields).map((body) => ({ body })),
  }),
  endpoint({
    route: 'POST /api/admin/agents/:name/revoke',
    as: 'admin',
    batchSize: 100,
    // Links of every kind: invited ones (made here), the seeded dev1 (the last active one: refused), unknown names.
    prepare: async (stack) => {
      const admin = stack.client('admin');
      const made: string[] = [];
      for (let index = 0; index < 5; index += 1) {
        const name = `prop-${Date.now().toString(36)}-${index}`;
        // A fixture step: json() throws unless the invitation succeeded.
        await admin.json('POST', '/api/admin/agents/invitations', { name, address: `${name}.school.nl:7443`, site_domain: `${name}.school.nl` });
        made.push(name);
      }
      return [...made, 'dev1'];
    },
    request: (names) =>
      fc.record({
        params: fc.record({ name: pathSegment(fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...names) }, { weight: 1, arbitrary: agentName() })) }),
        body: bodyOf({}),
      }),
  }),
  endpoint({
    route: 'PUT /api/admin/projects/:id',
    as: 'admin',
    prepare: async (stack) => {
      const owner = (await insertUsers(stack.knex, 1))[0] as number;
      await insertProjects(stack.knex, 20, { members: [owner], validated: null, siteDomain: stack.siteDomain });
      await insertProjects(stack.knex, 3, { members: [owner], validated: null, imageId: 1, siteDomain: stack.siteDomain });
      return ids(stack.knex('projects').orderBy('id', 'desc').limit(100));
    },
    request: (projects) => fc.record({ params: fc.record({ id: idSegment(projects) }), body: bodyOf({ git: { valid: fc.oneof(gitUrl(), fc.constantFrom('', null)), optional: true, hostile: taint(gitUrl()) } }) }),
  }),
  endpoint({
    route: 'DELETE /api/admin/projects/:id',
    as: 'admin',
    batchSize: 100,
    prepare: async (stack) => deletableProjects(stack, await insertUsers(stack.knex, 1)),
    request: (projects) => idOnlyRequest(projects),
  }),
  endpoint({
    route: 'PUT /api/admin/teams/:id',
    as: 'admin',
    prepare: async (stack) => ({ teams: await ids(stack.knex('teams')), users: await users(stack, 5) }),
    request: (c) => fc.record({ params: fc.record({ id: idSegment(c.teams) }), body: bodyOf({ user: { valid: idValue(c.users.all) } }, { form: true }) }),
  }),
  endpoint({
    route: 'POST /api/admin/teams',
    as: 'admin',
    request: () => bodyOf({ name: { valid: validText(1, 60), hostile: taint(validText(1, 60)) } }, { form: true }).map((body) => ({ body })),
  }),
  endpoint({
    route: 'POST /api/admin/groups',
    as: 'admin',
    request: () =>
      bodyOf({
        cohort: {
          valid: lower('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-', 2, 20),
          hostile: fc.oneof(taint(lower('ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789', 2, 20)), fc.constantFrom('SD 24', 'SD_24', 'ẞD24', 'sd24\u0000', "SD24'", 'S', 'S'.repeat(21), 'ＳＤ２４', 'ıI')),
        },
      }).map((body) => ({ body })),
  }),
  endpoint({
    route: 'PUT /api/admin/groups/:id',
    as: 'admin',
    prepare: async (stack) => ({ groups: await ids(stack.knex('groups').orderBy('id').limit(50)), users: await users(stack, 5) }),
    request: (c) => fc.record({ params: fc.record({ id: idSegment(c.groups) }), body: bodyOf({ user: { valid: idValue(c.users.all) } }) }),
  }),
  endpoint({
    route: 'DELETE /api/admin/groups/:id/users/:userId',
    as: 'admin',
    batchSize: 100,
    prepare: async (stack) => {
      // A new group per batch: the answer lists the group's members, which must not pile up.
      const [made] = await stack.knex('groups').insert({ cohort: `P${Math.random().toString(36).slice(2, 10).toUpperCase()}` }).returning<{ id: number }[]>('id');
      const group = Number(made?.id);
      const members = await insertUsers(stack.knex, 40, group);
      return { group, members, groups: await ids(stack.knex('groups').orderBy('id').limit(50)) };
    },
    request: (c) =>
      fc.record({
        params: fc.oneof(
          { weight: 3, arbitrary: fc.constantFrom(...c.members).map((userId) => ({ id: String(c.group), userId: String(userId) })) },
          { weight: 2, arbitrary: fc.record({ id: idSegment(c.groups), userId: idSegment(c.members) }) },
        ),
        body: bodyOf({}),
      }),
  }),
  endpoint({
    route: 'PUT /api/admin/licenses/:id',
    as: 'admin',
    prepare: async (stack) => {
      const holder = (await insertUsers(stack.knex, 1))[0] as number;
      await stack.knex('licenses').insert(Array.from({ length: 10 }, () => ({ user_id: holder, description: 'Voor het eindproject nodig', license: 'JetBrains' })));
      return ids(stack.knex('licenses').orderBy('id', 'desc').limit(100));
    },
    request: (licenses) => idOnlyRequest(licenses),
  }),
  endpoint({
    route: 'POST /api/admin/introduction',
    as: 'admin',
    // Every answer lists (and decrypts) all introducees: start each batch without them.
    prepare: async (stack) => {
      await stack.knex('introducees').delete();
    },
    request: () =>
      bodyOf({
        name: {
          valid: introduceeName(),
          hostile: fc.oneof(taint(introduceeName()), fc.constantFrom('abc-def', 'abcd-', 'Abcdef', 'ab', '1abcd', 'abc_def', 'abcdé', 'a'.repeat(32), '-abcd', 'abcd\n')),
        },
      }).map((body) => ({ body })),
  }),
  endpoint({
    route: 'DELETE /api/admin/introduction/:id',
    as: 'admin',
    batchSize: 100,
    prepare: async (stack) => {
      await stack.knex('introducees').delete();
      return madeThroughApi(stack, 30, '/api/admin/introduction', () => ({ name: `meel${Math.random().toString(36).slice(2, 12).replace(/[^a-z0-9]/g, 'x')}` }), 'introducees');
    },
    request: (introducees) => idOnlyRequest(introducees),
  }),
  endpoint({
    route: 'POST /api/admin/dockers/images',
    as: 'admin',
    request: () => bodyOf(imageFields).map((body) => ({ body })),
  }),
  endpoint({
    route: 'PATCH /api/admin/dockers/images/:id',
    as: 'admin',
    prepare: (stack) => ids(stack.knex('docker_images').orderBy('id')),
    request: (images) =>
      fc.record({
        params: fc.record({ id: idSegment(images) }),
        body: bodyOf({
          capabilities: { valid: capabilities(), hostile: hostileCapabilities(), optional: true },
          deploy: { valid: deploySettings(), hostile: hostileDeploySettings(), optional: true },
        }),
      }),
  }),
  endpoint({
    route: 'DELETE /api/admin/dockers/images/:id',
    as: 'admin',
    batchSize: 100,
    prepare: (stack) => madeThroughApi(stack, 30, '/api/admin/dockers/images', () => ({ name: `Proefimage ${Math.random()}`, image: 'school/proef:1' }), 'docker_images'),
    request: (images) => idOnlyRequest([1, ...images]),
  }),
  // Users last: deleting and disabling accounts changes what the other specs' fixtures can use.
  endpoint({
    route: 'PUT /api/admin/users/:id',
    as: 'admin',
    prepare: (stack) => users(stack, 10),
    request: (c) =>
      fc.record({
        params: fc.record({ id: idSegment(c.all) }),
        query: queryOf({ action: { valid: fc.constantFrom('verify', 'disable'), hostile: fc.oneof(hostileString(), fc.constantFrom('delete', 'VERIFY', 'verify ', 'admin')) } }),
        body: bodyOf({}),
      }),
  }),
  endpoint({
    route: 'PUT /api/admin/users/:id/developer',
    as: 'admin',
    prepare: (stack) => users(stack, 10),
    request: (c) =>
      fc.record({
        params: fc.record({ id: idSegment(c.all) }),
        body: bodyOf({ developer: { valid: fc.boolean(), hostile: fc.oneof(hostileString(), fc.constantFrom('true', 'false', 0, 1, null, [], {})) } }),
      }),
  }),
  endpoint({
    route: 'DELETE /api/admin/users/:id',
    as: 'admin',
    batchSize: 100,
    prepare: (stack) => users(stack, 40),
    request: (c) => fc.record({ params: fc.record({ id: pathSegment(fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...c.fresh) }, { weight: 1, arbitrary: fc.constantFrom(...c.all) }).map(String)) }), body: bodyOf({}) }),
  }),
];
