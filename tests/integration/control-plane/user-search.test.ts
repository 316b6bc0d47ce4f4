import { describe, expect, it } from 'vitest';
import { seededControlPlane } from '../../support/stacks/seeded-control-plane.ts';
import { signedInSessions } from '../../support/clients/http-session.ts';
import type { UserSearchHitJson as Hit } from '@devplein/contract/users';
import type { ErrorJson } from '@devplein/contract/http/errors';
import { searchUsers } from '@devplein/contract/http/user-search';
import { call } from '../../support/clients/endpoint-calls.ts';

const PATH = searchUsers.path;

const stack = seededControlPlane({
  seed: async (knex) => {
    // Names with LIKE wildcards in them, and many people sharing a part, for the limit.
    await knex('users').insert([
      { name: 'Piet 100% Procent', name_slug: 'piet-100-procent', email: 'piet.procent@student.devplein.test', email_verified_at: new Date() },
      { name: 'Under_Score', name_slug: 'under-score', email: 'under.score@student.devplein.test', email_verified_at: new Date() },
      ...Array.from({ length: 25 }, (_, index) => ({
        name: `Zeeland Tester ${String(index).padStart(2, '0')}`,
        name_slug: `zeeland-tester-${index}`,
        email: `zeeland${index}@student.devplein.test`,
        email_verified_at: new Date(),
      })),
    ]);
  },
});

/** One session per account, reused; null is the anonymous visitor. */
const as = signedInSessions(() => stack.app.url);

const search = async (email: string, body: unknown, query = '') => (await as(email)).json<Hit[]>('POST', `${PATH}${query}`, body);
const names = (hits: Hit[]) => hits.map((hit) => hit.name);

describe('user search: who may', () => {
  it('anonymous 401, not activated 403; student, developer, docent and admin 200', async () => {
    expect((await (await as(null)).json('POST', PATH, { part: 'sam' })).status).toBe(401);
    expect((await (await as('nieuw@devplein.test')).json('POST', PATH, { part: 'sam' })).status).toBe(403);
    for (const email of ['student@devplein.test', 'ontwikkelaar@devplein.test', 'docent@devplein.test', 'admin@devplein.test']) {
      const answer = await search(email, { part: 'sam' });
      expect(answer.status, email).toBe(200);
      expect(names(answer.body)).toContain('Sam Student');
    }
  });

  it('gives students only id and name; admins also the cohort', async () => {
    expect(await call(await as('student@devplein.test'), searchUsers, { body: { part: 'Olga' } })).toEqual([{ id: 3, name: 'Olga Ontwikkelaar' }]);
    const admin = await call(await as('admin@devplein.test'), searchUsers, { body: { part: 'Olga' } });
    expect(admin[0]).toMatchObject({ id: 3, name: 'Olga Ontwikkelaar', group: { cohort: 'SD22' }, active: true });
  });
});

describe('user search: input', () => {
  it('refuses an empty, blank, missing or too long part with 422 on part', async () => {
    for (const body of [{}, { part: '' }, { part: '   ' }, { part: 'x'.repeat(101) }, { part: 12 }, { part: null }]) {
      const answer = await (await as('student@devplein.test')).json<ErrorJson>('POST', PATH, body);
      expect(answer.status, JSON.stringify(body)).toBe(422);
      expect(Object.keys(answer.body.errors ?? {})).toEqual(['part']);
    }
    expect((await search('student@devplein.test', { part: 'x'.repeat(100) })).status).toBe(200);
    expect((await search('admin@devplein.test', { part: 'sam', all: 'yes' })).status).toBe(422);
  });

  it('matches name or e-mail case-insensitively, trimmed', async () => {
    expect(names((await search('student@devplein.test', { part: '  dIRK ' })).body)).toEqual(['Dirk Docent']);
    expect(names((await search('student@devplein.test', { part: 'ONTWIKKELAAR@devplein' })).body)).toEqual(['Olga Ontwikkelaar']);
  });

  it('takes the LIKE wildcards % and _ literally', async () => {
    expect(names((await search('admin@devplein.test', { part: '%' })).body)).toEqual(['Piet 100% Procent']);
    expect(names((await search('admin@devplein.test', { part: '0%' })).body)).toEqual(['Piet 100% Procent']);
    // '_' would match every name as a wildcard; literally only Under_Score has one (e-mails have none).
    expect(names((await search('admin@devplein.test', { part: '_' })).body)).toEqual(['Under_Score']);
    expect((await search('admin@devplein.test', { part: '\\' })).body).toEqual([]);
  });

  it('returns at most 20, names starting with the part first, then alphabetical', async () => {
    const zeeland = await search('student@devplein.test', { part: 'zeeland' });
    expect(zeeland.body).toHaveLength(20);
    expect(names(zeeland.body)).toEqual(Array.from({ length: 20 }, (_, index) => `Zeeland Tester ${String(index).padStart(2, '0')}`));
    // 'da': Daan de Vries starts with it; the others only contain it (Jansen, Dekker…), alphabetically.
    const da = names((await search('admin@devplein.test', { part: 'da' })).body);
    expect(da[0]).toBe('Daan de Vries');
    expect(da.slice(1)).toEqual([...da.slice(1)].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase())));
    const sem = names((await search('admin@devplein.test', { part: 'sem' })).body);
    expect(sem[0]).toBe('Sem Dekker');
  });
});

describe('user search: inactive accounts', () => {
  it('leaves out not-activated and disabled users unless an admin asks all', async () => {
    for (const email of ['student@devplein.test', 'admin@devplein.test']) {
      expect(names((await search(email, { part: 'Nina' })).body), email).toEqual([]);
      expect(names((await search(email, { part: 'Rick Blom' })).body), email).toEqual([]);
    }
    // A student's all=true (the docker form sends it when editing) is ignored.
    expect(names((await search('student@devplein.test', { part: 'Nina' }, '?all=true')).body)).toEqual([]);
    expect(names((await search('student@devplein.test', { part: 'Nina', all: true })).body)).toEqual([]);
    const viaQuery = await search('admin@devplein.test', { part: 'Nina' }, '?all=true');
    expect(viaQuery.body).toEqual([{ id: 6, name: 'Nina Nieuw', group: { id: expect.any(Number), cohort: 'SD23' }, active: false }]);
    expect(names((await search('docent@devplein.test', { part: 'rick blom', all: true })).body)).toEqual(['Rick Blom']);
  });
});
