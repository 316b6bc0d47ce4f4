import { beforeAll, describe, expect, it } from 'vitest';
import { seededControlPlane } from '../../support/stacks/seeded-control-plane.ts';
import { HttpSession, signedInSessions } from '../../support/clients/http-session.ts';
import { generateSshKeys, type GeneratedSshKey } from '../../support/fixtures/ssh-keygen-fixtures.ts';
import { MAX_SSH_KEYS_PER_USER } from '../../../control-plane/src/policies/ssh-key-policy.ts';
import type { SshKeyJson } from '@devplein/contract/access';
import type { ErrorJson } from '@devplein/contract/http/errors';
import { addSshKey, deleteSshKey, listSshKeys } from '@devplein/contract/http/ssh-keys';
import { call } from '../../support/clients/endpoint-calls.ts';


const INVALID = 'Dit is geen geldige SSH key.';
const DUPLICATE = 'SshKey bestaat al.';
const PATH = listSshKeys.path;

const stack = seededControlPlane();
let keys: GeneratedSshKey[];

beforeAll(() => {
  ({ keys } = generateSshKeys());
});

/** One signed-in session per demo account, reused across tests. */
const as = signedInSessions(() => stack.app.url);

const key = (kind: string): GeneratedSshKey => {
  const found = keys.find((k) => k.kind === kind);
  if (!found) throw new Error(`no ${kind} key`);
  return found;
};

const withBody = (text: string, change: (body: string) => string): string => {
  const [type = '', body = '', ...comment] = text.split(' ');
  return [type, change(body), ...comment].join(' ');
};

async function userId(email: string): Promise<number> {
  const row = await stack.database.knex('users').where({ email }).first<{ id: number }>('id');
  return row.id;
}

describe('SSH keys API: who may', () => {
  it('answers 401 to anonymous visitors on every call', async () => {
    const anonymous = new HttpSession(stack.app.url);
    await anonymous.primeCsrf();
    expect((await anonymous.json('GET', PATH)).status).toBe(401);
    expect((await anonymous.json('POST', PATH, { name: 'x', sshKey: key('ed25519').publicKey })).status).toBe(401);
    expect((await anonymous.json('DELETE', `${PATH}/1`)).status).toBe(401);
  });

  it('answers 403 not_verified to a not-activated account', async () => {
    const newcomer = await as('nieuw@devplein.test');
    for (const [method, path, body] of [
      ['GET', PATH, undefined],
      ['POST', PATH, { name: 'x', sshKey: key('ed25519').publicKey }],
      ['DELETE', `${PATH}/1`, undefined],
    ] as const) {
      const answer = await newcomer.json<ErrorJson>(method, path, body);
      expect(answer.status, `${method} ${path}`).toBe(403);
      expect(answer.body.reason).toBe('not_verified');
    }
  });

  it.each(['student@devplein.test', 'zonderklas@devplein.test', 'docent@devplein.test'])(
    'answers 403 to %s, who is not a developer (the server decides, not the UI)',
    async (email) => {
      const session = await as(email);
      expect((await session.json('GET', PATH)).status).toBe(403);
      const post = await session.json<ErrorJson>('POST', PATH, { name: 'x', sshKey: key('ecdsa-256').publicKey });
      expect(post.status).toBe(403);
      expect((await session.json('DELETE', `${PATH}/1`)).status).toBe(403);
      const stored = await stack.database.knex('ssh_keys').where('user_id', await userId(email)).count('* as n').first();
      expect(Number(stored?.n)).toBe(0);
    },
  );

  it('gives a developer and an admin-developer their (empty) list', async () => {
    for (const email of ['ontwikkelaar@devplein.test', 'admin@devplein.test']) {
      expect(await call(await as(email), listSshKeys, {})).toEqual([]);
    }
  });
});

describe('SSH keys API: adding keys made by ssh-keygen', () => {
  it('accepts every type and lists it with the fingerprint ssh-keygen prints', async () => {
    const developer = await as('ontwikkelaar@devplein.test');
    let last: SshKeyJson[] = [];
    for (const generated of keys) {
      const answer = await call(developer, addSshKey, { body: { name: `  ${generated.kind}  `, sshKey: `${generated.publicKey}\n` } });
      last = answer;
      const listed = answer.find((item) => item.keyHash === generated.fingerprint);
      expect(listed, generated.kind).toMatchObject({ name: generated.kind, bits: generated.bits, type: generated.label });
      expect(Object.keys(listed ?? {})).toEqual(expect.arrayContaining(['id', 'name', 'keyHash']));
    }
    expect(last.map((item) => item.keyHash)).toEqual(keys.map((k) => k.fingerprint));
    expect(await call(developer, listSshKeys, {})).toEqual(last);

    const stored = await stack.database.knex('ssh_keys').where('user_id', await userId('ontwikkelaar@devplein.test')).orderBy('id');
    expect(stored.map((row: { public_key: string }) => row.public_key)).toEqual(keys.map((k) => k.publicKey.split(' ').slice(0, 2).join(' ')));
  });

  it('refuses the same key again, for the same user and for another user: 422 SshKey bestaat al.', async () => {
    const developer = await as('ontwikkelaar@devplein.test');
    const again = await developer.json<ErrorJson>('POST', PATH, { name: 'nog eens', sshKey: key('ed25519').publicKey });
    expect(again.status).toBe(422);
    expect(again.body.errors).toEqual({ sshKey: [DUPLICATE] });
    expect(again.body.message).toBe(DUPLICATE);

    const admin = await as('admin@devplein.test');
    // The same key with another comment is still the same key.
    const byOther = await admin.json<ErrorJson>('POST', PATH, {
      name: 'gestolen',
      sshKey: key('rsa-2048').publicKey.replace(/ \S+$/, ' iemand@anders'),
    });
    expect(byOther.status).toBe(422);
    expect(byOther.body.errors).toEqual({ sshKey: [DUPLICATE] });
    expect(await call(admin, listSshKeys, {})).toEqual([]);
  });

  it.each([
    ['empty', () => ''],
    ['the type alone', () => 'ssh-rsa'],
    ['a private key', () => key('ed25519').privateKey],
    ['a truncated RSA key', () => withBody(key('rsa-3072').publicKey, (b) => b.slice(0, -10))],
    ['a truncated Ed25519 key', () => withBody(key('ed25519').publicKey, (b) => b.slice(0, -6))],
    ['a corrupted ECDSA key (characters flipped in the middle)', () =>
      withBody(key('ecdsa-384').publicKey, (b) => `${b.slice(0, 80)}${b[80] === 'x' ? 'y' : 'x'}${b[81] === 'Q' ? 'R' : 'Q'}${b.slice(82)}`)],
    ['a corrupted length field', () => withBody(key('rsa-2048').publicKey, (b) => `${b.slice(0, 17)}Z${b.slice(18)}`)],
    ['a wrong prefix for the type', () => `ssh-rsa ${key('ed25519').publicKey.split(' ')[1]} x`],
    ['ecdsa 384 body with the nistp256 type', () => key('ecdsa-384').publicKey.replace('nistp384 ', 'nistp256 ')],
    ['two keys at once', () => `${key('ed25519').publicKey}\n${key('rsa-2048').publicKey}`],
  ])('refuses %s with 422 and the Dutch message', async (_case, text) => {
    const developer = await as('ontwikkelaar@devplein.test');
    const answer = await developer.json<ErrorJson>('POST', PATH, { name: 'laptop', sshKey: text() });
    expect(answer.status).toBe(422);
    expect(answer.body.errors?.sshKey).toEqual([INVALID]);
  });

  it('refuses bad names and bodies with 422 field errors, never 500', async () => {
    const admin = await as('admin@devplein.test');
    const sshKey = key('ecdsa-521').publicKey.replace(/ \S+$/, ' admin@pc');
    const noName = await admin.json<ErrorJson>('POST', PATH, { name: '   ', sshKey });
    expect(noName.status).toBe(422);
    expect(noName.body.errors?.name).toEqual(['Geef de key een naam.']);
    const longName = await admin.json<ErrorJson>('POST', PATH, { name: 'x'.repeat(101), sshKey });
    expect(longName.status).toBe(422);
    expect(longName.body.errors?.name?.[0]).toMatch(/maximaal 100 tekens/);
    const huge = await admin.json<ErrorJson>('POST', PATH, { name: 'groot', sshKey: `${sshKey} ${'x'.repeat(17_000)}` });
    expect(huge.status).toBe(422);
    expect(huge.body.errors?.sshKey).toEqual([INVALID]);
    for (const body of [{}, { name: 1, sshKey: 2 }, { name: ['a'], sshKey: null }]) {
      const answer = await admin.json<ErrorJson>('POST', PATH, body);
      expect(answer.status, JSON.stringify(body)).toBe(422);
      expect(answer.body.errors).toBeDefined();
    }
    const missingCsrf = await admin.api('POST', PATH, { name: 'x', sshKey }, { 'X-CSRF-TOKEN': 'wrong' });
    expect(missingCsrf.status).toBe(419);
    expect(await call(admin, listSshKeys, {})).toEqual([]);
  });
});

describe('SSH keys API: removing keys', () => {
  it("answers 404 for someone else's key and for a key that does not exist, and 422 for a bad id", async () => {
    const developerKey = (await call(await as('ontwikkelaar@devplein.test'), listSshKeys, {}))[0];
    expect(developerKey).toBeDefined();
    const admin = await as('admin@devplein.test');
    expect((await admin.json('DELETE', `${PATH}/${developerKey?.id}`)).status).toBe(404);
    expect((await admin.json('DELETE', `${PATH}/999999`)).status).toBe(404);
    expect((await admin.json('DELETE', `${PATH}/abc`)).status).toBe(422);
    expect((await admin.json('DELETE', `${PATH}/-1`)).status).toBe(422);
    expect(await stack.database.knex('ssh_keys').where('id', developerKey?.id ?? 0).first()).toBeDefined();
  });

  it('removes one of your own keys and answers the updated list; the key can then be added by someone else', async () => {
    const developer = await as('ontwikkelaar@devplein.test');
    const before = await call(developer, listSshKeys, {});
    const ed25519 = before.find((item) => item.keyHash === key('ed25519').fingerprint);
    expect(await call(developer, deleteSshKey, { params: { id: ed25519?.id ?? 0 } })).toEqual(before.filter((item) => item.id !== ed25519?.id));
    expect((await developer.json('DELETE', `${PATH}/${ed25519?.id}`)).status).toBe(404);

    const admin = await as('admin@devplein.test');
    const added = await call(admin, addSshKey, { body: { name: 'overgenomen', sshKey: key('ed25519').publicKey } });
    expect(added.map((item) => item.keyHash)).toEqual([key('ed25519').fingerprint]);
  });

  it(`stops at ${MAX_SSH_KEYS_PER_USER} keys per user`, async () => {
    const admin = await as('admin@devplein.test');
    const adminId = await userId('admin@devplein.test');
    const existing = Number((await stack.database.knex('ssh_keys').where('user_id', adminId).count('* as n').first())?.n);
    // Fill up directly (ssh-keygen per key would be slow); fingerprints only need to be unique.
    await stack.database.knex('ssh_keys').insert(
      Array.from({ length: MAX_SSH_KEYS_PER_USER - existing }, (_, index) => ({
        user_id: adminId,
        name: `vul ${index}`,
        public_key: key('ed25519').publicKey.split(' ').slice(0, 2).join(' '),
        fingerprint: `SHA256:test-filler-${index}`,
      })),
    );
    const fresh = generateSshKeys({ kinds: ['ed25519'] }).keys[0];
    const answer = await admin.json<ErrorJson>('POST', PATH, { name: 'een te veel', sshKey: fresh?.publicKey });
    expect(answer.status).toBe(422);
    expect(answer.body.errors?.sshKey?.[0]).toMatch(/maximaal 20 SSH keys/);
    await stack.database.knex('ssh_keys').where('fingerprint', 'like', 'SHA256:test-filler-%').delete();
  });
});
