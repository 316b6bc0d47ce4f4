/**
 * Linux capabilities per image option (issue 16): the admin images API shows and edits them
 * (admins only, zod-checked: 422 for a name outside the allow-list), a project's container is
 * created with its option's set, and migration 0010 gives options that existed before it the set
 * every container had until then. Real control plane and PostgreSQL, the fake agent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreateContainerRequest } from '@devplein/proto/container';
import { migrate } from '../../../control-plane/src/db/knex.ts';
import { migrationSource } from '../../../control-plane/src/db/migration-source.ts';
import type { DockerImageOption } from '@devplein/contract/dockers';
import { createTestDatabase } from '../../support/database.ts';
import type { HttpSession } from '../../support/http-session.ts';
import { ADMIN, DEVELOPER, DOCENT, IMAGE, NO_GROUP, NOT_ACTIVATED, STUDENT, startHostingStack, type HostingStack } from '../../support/hosting-stack.ts';

/** What every container had before this setting: Docker's default set minus NET_RAW, MKNOD, SETFCAP. */
const PREVIOUS_SET = ['CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'SETGID', 'SETUID', 'SETPCAP', 'NET_BIND_SERVICE', 'SYS_CHROOT', 'AUDIT_WRITE'];

let stack: HostingStack;
let admin: HttpSession;

beforeAll(async () => {
  stack = await startHostingStack();
  admin = await stack.as(ADMIN);
});

afterAll(async () => {
  await stack?.stop();
});

const options = async () => (await admin.json<DockerImageOption[]>('GET', '/api/admin/dockers/images')).body;

describe('capabilities of image options', () => {
  it('lists each option with its capabilities; the seeded static site needs none', async () => {
    const list = await options();
    expect(list.find((option) => option.id === IMAGE.static)?.capabilities).toEqual([]);
    for (const option of list) expect(option.capabilities.every((name) => PREVIOUS_SET.includes(name)), option.name).toBe(true);
  });

  it('lets admins change them (audited); others get 401/403; a name outside the allow-list is a 422 with field errors', async () => {
    const [row] = await stack.database.knex('docker_images').insert({ name: 'Caps (test)', image: 'devplein/caps:1' }).returning<{ id: number }[]>('id');
    const id = Number(row?.id);
    const path = `/api/admin/dockers/images/${id}`;

    expect((await (await stack.anonymous()).api('PATCH', path, { capabilities: ['CHOWN'] })).status).toBe(401);
    for (const email of [NOT_ACTIVATED, STUDENT, DEVELOPER]) {
      expect((await (await stack.as(email)).api('PATCH', path, { capabilities: ['CHOWN'] })).status, email).toBe(403);
    }

    for (const bad of [['SYS_ADMIN'], ['CHOWN', 'NET_RAW'], ['ALL'], ['CAP_CHOWN'], ['chown'], 'CHOWN', [7]]) {
      const answer = await admin.json<{ errors: Record<string, string[]> }>('PATCH', path, { capabilities: bad });
      expect(answer.status, JSON.stringify(bad)).toBe(422);
      expect(answer.body.errors, JSON.stringify(bad)).toEqual({ capabilities: [expect.stringMatching(/Onbekend recht|lijst/)] });
    }
    const missing = await admin.json<{ errors: Record<string, string[]> }>('PATCH', path, {});
    expect(missing.status).toBe(422);
    expect(Object.keys(missing.body.errors)).toEqual(['capabilities']);
    // Nothing changed by the refusals: the migration's default is still there.
    expect((await options()).find((option) => option.id === id)?.capabilities).toEqual(PREVIOUS_SET);

    const changed = await admin.json<DockerImageOption>('PATCH', path, { capabilities: ['SETUID', 'CHOWN', 'SETUID'] });
    expect(changed).toMatchObject({ status: 200, body: { id, name: 'Caps (test)', capabilities: ['CHOWN', 'SETUID'] } });
    const docent = await (await stack.as(DOCENT)).json<DockerImageOption>('PATCH', path, { capabilities: [] });
    expect(docent).toMatchObject({ status: 200, body: { capabilities: [] } });
    expect((await options()).find((option) => option.id === id)?.capabilities).toEqual([]);

    const audit = await stack.database.knex('audit_log').where({ subject_type: 'docker_image', subject_id: String(id), action: 'docker-image.capabilities' }).orderBy('id').select('before', 'after');
    expect(audit).toEqual([
      { before: { capabilities: PREVIOUS_SET }, after: { capabilities: ['CHOWN', 'SETUID'] } },
      { before: { capabilities: ['CHOWN', 'SETUID'] }, after: { capabilities: [] } },
    ]);
    expect((await admin.json('PATCH', '/api/admin/dockers/images/987654', { capabilities: [] })).status).toBe(404);
  });

  it('takes them when an option is added (the previous set when none are given) and refuses unknown ones there too', async () => {
    const refused = await admin.json<{ errors: Record<string, string[]> }>('POST', '/api/admin/dockers/images', { name: 'Slecht', image: 'devplein/slecht:1', capabilities: ['NET_ADMIN'] });
    expect(refused.status).toBe(422);
    expect(Object.keys(refused.body.errors)).toEqual(['capabilities']);
    expect(await stack.database.knex('docker_images').where('name', 'Slecht').first('id')).toBeUndefined();

    const chosen = await admin.json<DockerImageOption>('POST', '/api/admin/dockers/images', { name: 'Alleen poort', image: 'devplein/poort:1', capabilities: ['NET_BIND_SERVICE'] });
    expect(chosen).toMatchObject({ status: 201, body: { capabilities: ['NET_BIND_SERVICE'] } });
    const unchosen = await admin.json<DockerImageOption>('POST', '/api/admin/dockers/images', { name: 'Zoals voorheen', image: 'devplein/voorheen:1' });
    expect(unchosen).toMatchObject({ status: 201, body: { capabilities: PREVIOUS_SET } });
  });

  it('sends the option\'s capabilities with CreateContainer', async () => {
    await admin.json('PATCH', `/api/admin/dockers/images/${IMAGE.node}`, { capabilities: ['SETGID', 'SETUID'] });
    const project = await stack.project({ name: 'caps-project', image: IMAGE.node, members: [NO_GROUP] });
    const before = stack.agent.callsOf('createContainer').length;
    expect((await (await stack.as(NO_GROUP)).json('POST', '/api/user/dockers', { id: project.id })).status).toBe(200);
    const calls = stack.agent.callsOf('createContainer').slice(before);
    expect(calls).toHaveLength(1);
    expect((calls[0]?.request as CreateContainerRequest).capabilities).toEqual({ add: ['SETGID', 'SETUID'] });
  });
});

describe('migration 0010_image_capabilities', () => {
  it('gives options that existed before it the set every container had until then', async () => {
    const database = await createTestDatabase();
    try {
      const { knex } = database;
      // Back to before 0010, with an option made then.
      await knex.migrate.down({ migrationSource, name: '0010_image_capabilities' });
      expect(await knex.schema.hasColumn('docker_images', 'capabilities')).toBe(false);
      await knex('docker_images').insert({ name: 'Van vroeger', image: 'devplein/vroeger:1', ssh: true });
      expect(await migrate(knex)).toEqual(['0010_image_capabilities']);
      expect(await knex('docker_images').where('name', 'Van vroeger').first('capabilities')).toEqual({ capabilities: PREVIOUS_SET });
    } finally {
      await database.destroy();
    }
  });
});
