/**
 * The checks of the property tests can fail: bad agent calls, bad answers and stray files are
 * each caught (a check that passes everything would make the property tests prove nothing).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import { describe, expect, it } from 'vitest';
import { answerProblem } from './harness.ts';
import { agentCallProblems, fileStoreProblems } from './invariants.ts';

const SITE = 'dev.devplein.test';
const KEY = Buffer.alloc(32, 7).toString('base64');

describe('agent call checks', () => {
  it('pass calls that carry only validated names', () => {
    expect(
      agentCallProblems(
        [
          { method: 'createDatabase', request: { name: 'u3_abc', user: 'u3_abc', ownerUserId: 3 } },
          { method: 'createContainer', request: { projectId: 7, name: 'mijn-site', domain: `mijn-site.${SITE}`, image: 'devplein/php:8.3', ownerUserId: 3, memberUserIds: [3, 4] } },
          { method: 'changeContainerState', request: { container: { ref: { $case: 'name', value: 'Oud_ding.v2' } }, action: 1 } },
          { method: 'createPeer', request: { publicKey: KEY, identifier: '6f1c1f4e-2b8a-4c3e-9a57-0d6f1b2c3d4e', address: '', userId: 3 } },
          { method: 'listContainers', request: { projectIds: [], includeUnmanaged: true } },
        ],
        SITE,
      ),
    ).toEqual([]);
  });

  it.each([
    ['createDatabase', { name: 'u3_abc`; DROP', user: 'u3_abc', ownerUserId: 3 }],
    ['createDatabase', { name: 'u4_abc', user: 'u4_abc', ownerUserId: 3 }],
    ['dropDatabase', { name: 'u3_a%', user: 'u3_a%' }],
    ['createContainer', { projectId: 7, name: 'Mijn_Site', domain: `mijn-site.${SITE}`, image: 'devplein/php:8.3', ownerUserId: 3, memberUserIds: [3] }],
    ['createContainer', { projectId: 7, name: 'mijn-site', domain: 'mijn-site.example.com', image: 'devplein/php:8.3', ownerUserId: 3, memberUserIds: [3] }],
    ['upsertRoute', { route: { domain: `a_b.${SITE}`, upstream: 'x:80', projectId: 1 } }],
    ['removeContainer', { container: { ref: { $case: 'name', value: '../x' } } }],
    ['removeContainer', { container: { ref: { $case: 'projectId', value: -1 } } }],
    ['createPeer', { publicKey: 'AAAA', identifier: '6f1c1f4e-2b8a-4c3e-9a57-0d6f1b2c3d4e', address: '', userId: 3 }],
    ['pullImage', { image: 'x;id', projectId: 1 }],
    ['capture', { domain: 'evil.example' }],
    ['someNewMethod', {}],
  ])('flag %s %j', (method, request) => {
    expect(agentCallProblems([{ method, request }], SITE)).toHaveLength(1);
  });
});

describe('answer checks', () => {
  const answer = (status: number, text: string, contentType = 'application/json; charset=utf-8') => ({ status, contentType, text });

  it('pass 2xx and 4xx JSON answers of the documented shape', () => {
    expect(answerProblem(answer(200, '[]'))).toBeNull();
    expect(answerProblem(answer(204, '', ''))).toBeNull();
    expect(answerProblem(answer(404, '{"message":"Niet gevonden."}'))).toBeNull();
    expect(answerProblem(answer(422, '{"message":"x","errors":{"title":["Vul een titel in."]}}'))).toBeNull();
  });

  it.each([
    answer(500, '{"message":"x"}'),
    answer(502, '{"message":"x"}'),
    answer(400, 'Bad Request', 'text/plain'),
    answer(404, '{}'),
    answer(422, '{"message":"x"}'),
    answer(422, '{"message":"x","errors":{}}'),
    answer(422, '{"message":"x","errors":{"title":"kapot"}}'),
    answer(200, '{', 'application/json'),
  ])('flag %j', (bad) => {
    expect(answerProblem(bad)).not.toBeNull();
  });
});

describe('course file store check', () => {
  it('flags a file outside the store, a file without a row and a row without its file', async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'devplein-invariants-'));
    try {
      const dataDir = path.join(root, 'a', 'b', 'data');
      const store = path.join(dataDir, 'course-files');
      mkdirSync(store, { recursive: true });
      const kept = 'A'.repeat(32);
      writeFileSync(path.join(store, kept), 'x');
      const rows = (keys: string[]) => ({ pluck: async () => keys }) as unknown as Knex.QueryBuilder;
      const knex = ((() => rows([kept])) as unknown) as Knex;
      expect(await fileStoreProblems(knex, root, dataDir)).toEqual([]);

      writeFileSync(path.join(root, 'a', 'escaped.pdf'), 'x');
      writeFileSync(path.join(store, 'B'.repeat(32)), 'x');
      const missing = ((() => rows([kept, 'C'.repeat(32)])) as unknown) as Knex;
      const problems = await fileStoreProblems(missing, root, dataDir);
      expect(problems).toHaveLength(3);
      expect(problems.join('\n')).toMatch(/escaped\.pdf[\s\S]*has no file|has no file[\s\S]*escaped\.pdf/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
