/**
 * Property specs of the write endpoints a student or developer uses: SSH keys, the user search,
 * licence requests, project requests and realtime channel authorization. Project requests go as
 * the admin (admin + developer: no project quota, so valid bodies keep getting through).
 */
import fc from 'fast-check';
import { generateSshKeys } from '../../support/fixtures/ssh-keygen-fixtures.ts';
import { ed25519PublicKey } from '../../support/fixtures/ssh-keys.ts';
import { bodyOf, hostileString, idOnlyRequest, idSegment, idValue, queryOf, taint, type Fields } from '../arbitraries.ts';
import { deletableProjects, ids, insertProjects, projectName, validText } from '../fixtures.ts';
import { endpoint, type EndpointSpec, type PropertyStack } from '../harness.ts';

/** Real public keys: every kind ssh-keygen makes here, and many ed25519 ones (uploads need fresh fingerprints). */
const sshKeys = (() => {
  let keys: string[] | undefined;
  return (): string[] => (keys ??= [...generateSshKeys().keys.map((key) => key.publicKey), ...Array.from({ length: 200 }, (_, index) => ed25519PublicKey(`proef${index}@laptop`))]);
})();

const sshKeyFields = (): Fields => ({
  name: { valid: validText(1, 50), hostile: taint(validText(1, 50)) },
  sshKey: {
    valid: fc.constantFrom(...sshKeys()),
    hostile: fc.oneof(
      taint(fc.constantFrom(...sshKeys())),
      fc.constantFrom(...sshKeys()).map((key) => key.replace(/ .*$/, '') + ' ' + key.split(' ')[1]?.slice(0, -4)),
      fc.constantFrom('ssh-ed25519', 'ssh-ed25519 AAAA', 'ssh-rsa AAAAB3NzaC1yc2E= x', 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIA== x', '-----BEGIN OPENSSH PRIVATE KEY-----', 'command="rm -rf /" ssh-ed25519 AAAA x'),
    ),
  },
});

const developerProjects = async (stack: PropertyStack): Promise<string[]> =>
  stack.knex('projects as p').join('project_user as pu', 'pu.project_id', 'p.id').where('pu.user_id', stack.userIds.developer).pluck<string[]>('p.name');

const activeUsers = (stack: PropertyStack): Promise<number[]> => ids(stack.knex('users').whereNotNull('email_verified_at').whereNull('disabled_at').orderBy('id').limit(80));

const date = (): fc.Arbitrary<string> =>
  fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T00:00:00Z'), noInvalidDate: true }).map((value) => value.toISOString().slice(0, 10));

const gitUrl = (): fc.Arbitrary<string> => projectName().map((name) => `https://git.school.nl/klas/${name}.git`);

/** A project request: a fresh name with its domain, members among the active users. */
const projectFields = (site: string, members: number[]): fc.Arbitrary<Fields> =>
  projectName().map((name) => ({
    name: { valid: fc.constant(name), hostile: fc.oneof(taint(fc.constant(name)), fc.constantFrom('A', 'ab_c', 'Ab', '-ab', 'a'.repeat(64), 'café', 'ab cd')) },
    domain: {
      valid: fc.constantFrom(`${name}.${site}`, `${name.toUpperCase()}.${site}`, ` ${name}.${site} `),
      hostile: fc.oneof(taint(fc.constant(`${name}.${site}`)), fc.constantFrom(site, `${name}.${site}.evil.example`, `${name}.example.com`, `*.${site}`, `${name}..${site}`, `-${name}.${site}`, `${name}.${site}.`, `xn--bcher-kva.${site}`, `${name}_x.${site}`)),
    },
    docker_id: { valid: fc.oneof(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 2, max: 6 }).map(String)) },
    description: { valid: validText(40, 300), hostile: taint(validText(40, 300)) },
    visible: { valid: fc.constantFrom(true, false, '1', '0', 'true', 'false', 1, 0), optional: true },
    users: {
      valid: fc.uniqueArray(fc.constantFrom(...members), { maxLength: 5 }).chain((list) => fc.constantFrom(list, list.map((id) => ({ id })), list.map(String))),
      hostile: fc.array(idValue(members), { maxLength: 25 }),
      optional: true,
    },
    repro: { valid: fc.oneof(gitUrl(), fc.constantFrom('', null, 'git@git.school.nl:klas/x.git')), hostile: fc.oneof(taint(gitUrl()), fc.constantFrom('ftp://x/y', 'https://x', 'git@:x', 'https://a b/c')), optional: true },
    end_date: { valid: fc.oneof(date(), fc.constantFrom('', null)), hostile: fc.constantFrom('2024-02-30', '2024-13-01', '24-01-01', '2024-1-1', 'morgen', '2024-01-01T00:00:00Z', '0000-00-00'), optional: true },
  }));

const socketId = (): fc.Arbitrary<string> => fc.tuple(fc.nat(), fc.nat()).map(([a, b]) => `${a}.${b}`);

export const userSpecs: EndpointSpec[] = [
  endpoint({
    route: 'POST /api/user/ssh_keys',
    as: 'developer',
    // At most 20 keys per user: a clean slate every batch keeps valid uploads getting through.
    batchSize: 40,
    prepare: async (stack) => {
      await stack.knex('ssh_keys').where({ user_id: stack.userIds.developer }).delete();
    },
    request: () => bodyOf(sshKeyFields(), { form: true }).map((body) => ({ body })),
  }),
  endpoint({
    route: 'DELETE /api/user/ssh_keys/:id',
    as: 'developer',
    batchSize: 100,
    prepare: async (stack) => {
      await stack.knex('ssh_keys').where({ user_id: stack.userIds.developer }).delete();
      const keys = sshKeys();
      const offset = Math.floor(Math.random() * (keys.length - 20));
      for (const [index, sshKey] of keys.slice(offset, offset + 20).entries()) await stack.client('developer').json('POST', '/api/user/ssh_keys', { name: `sleutel ${index}`, sshKey });
      return ids(stack.knex('ssh_keys').orderBy('id', 'desc').limit(40));
    },
    request: (keys) => idOnlyRequest(keys),
  }),
  endpoint({
    route: 'POST /api/users/search',
    as: 'developer',
    request: () =>
      fc.record({
        query: fc.option(queryOf({ all: { valid: fc.constantFrom('true', 'false', '1', '0', '') } }), { nil: undefined }),
        body: bodyOf({
          part: { valid: fc.oneof(validText(1, 20), fc.constantFrom('an', 'de', '%', '_', '\\', "'", 'a%b', '@devplein')), hostile: taint(validText(1, 20)) },
          all: { valid: fc.constantFrom(true, false, 'true', '1', '0', ''), optional: true },
        }),
      }),
  }),
  endpoint({
    route: 'POST /api/user/licenses',
    as: 'developer',
    // At most 10 pending requests per user: reset every batch.
    batchSize: 40,
    prepare: async (stack) => {
      await stack.knex('licenses').where({ user_id: stack.userIds.developer }).delete();
    },
    request: () =>
      bodyOf(
        {
          description: { valid: validText(5, 500), hostile: taint(validText(5, 500)) },
          license: { valid: validText(2, 100), hostile: taint(validText(2, 100)) },
        },
        { form: true },
      ).map((body) => ({ body })),
  }),
  endpoint({
    route: 'DELETE /api/user/licenses/:id',
    as: 'developer',
    batchSize: 100,
    prepare: async (stack) => {
      // The answer lists the user's licences: start each batch with these only.
      await stack.knex('licenses').where({ user_id: stack.userIds.developer }).delete();
      const rows = Array.from({ length: 30 }, (_, index) => ({
        user_id: stack.userIds.developer,
        description: 'Voor het eindproject nodig',
        license: 'JetBrains',
        approved_at: index % 5 === 0 ? new Date() : null,
      }));
      await stack.knex('licenses').insert(rows);
      return ids(stack.knex('licenses').orderBy('id', 'desc').limit(60));
    },
    request: (licenses) => idOnlyRequest(licenses),
  }),
  endpoint({
    route: 'POST /api/user/project',
    as: 'admin',
    prepare: (stack) => activeUsers(stack).then((members) => ({ site: stack.siteDomain, members })),
    request: (c) => projectFields(c.site, c.members).chain((fields) => bodyOf(fields, { form: true })).map((body) => ({ body })),
  }),
  endpoint({
    route: 'PUT /api/user/project/:id',
    as: 'admin',
    prepare: async (stack) => {
      await insertProjects(stack.knex, 10, { members: [stack.userIds.developer], siteDomain: stack.siteDomain });
      return { site: stack.siteDomain, members: await activeUsers(stack), projects: await ids(stack.knex('projects').orderBy('id', 'desc').limit(60)) };
    },
    request: (c) => fc.record({ params: fc.record({ id: idSegment(c.projects) }), body: projectFields(c.site, c.members).chain((fields) => bodyOf(fields)) }),
  }),
  endpoint({
    route: 'DELETE /api/user/project/:id',
    as: 'admin',
    batchSize: 100,
    prepare: (stack) => deletableProjects(stack, [stack.userIds.developer]),
    request: (projects) => idOnlyRequest(projects),
  }),
  endpoint({
    route: 'POST /broadcasting/auth',
    as: 'developer',
    prepare: developerProjects,
    request: (names) =>
      bodyOf(
        {
          socket_id: { valid: socketId(), hostile: fc.oneof(taint(socketId()), fc.constantFrom('1', '1.', '.1', '1.2.3', '-1.2', '1.2\n', '１.２')) },
          channel_name: {
            valid: fc.oneof(fc.constantFrom(...names).map((name) => `private-container.${name}`), fc.constantFrom('private-container.sam-portfolio', 'presence-x', 'private-container.')),
            hostile: fc.oneof(taint(fc.constantFrom(...names).map((name) => `private-container.${name}`)), hostileString().map((name) => `private-container.${name}`)),
          },
        },
        { form: true },
      ).map((body) => ({ body })),
  }),
  endpoint({
    route: 'POST /broadcasting/user-auth',
    as: 'developer',
    request: () => bodyOf({ socket_id: { valid: socketId(), hostile: taint(socketId()) } }, { form: true }).map((body) => ({ body })),
  }),
];
