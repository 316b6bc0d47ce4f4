/**
 * Rows the property specs' batches draw from: made straight in the database where nothing on the
 * host is involved (users, projects, licences), read back as id lists otherwise. Names carry a
 * random part so batches never collide.
 */
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import type { Knex } from 'knex';
import type { PropertyStack } from './harness.ts';

/** Characters of valid free text: letters, digits, punctuation, some unicode. */
const TEXT_CHARS = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -_.,:;!?()\'"éëïöüçñßøå€😀'];

/** Free text of `min`..`max` characters after trimming. */
export const validText = (min: number, max: number): fc.Arbitrary<string> =>
  fc
    .string({ unit: fc.constantFrom(...TEXT_CHARS), minLength: min, maxLength: Math.min(max, min + 80) })
    .filter((text) => text.trim().length >= min && text.trim().length <= max);

/** A lowercase name of the project rules' shape, random enough never to repeat. */
export const projectName = (): fc.Arbitrary<string> =>
  fc
    .tuple(fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz'), minLength: 1, maxLength: 8 }), fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz-'), minLength: 1, maxLength: 12 }), fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz'), minLength: 6, maxLength: 6 }))
    .map(([head, middle, tail]) => `${head}${middle}${tail}`.replace(/^-+/, ''))
    .filter((name) => /^[a-z][a-z-]{1,62}$/.test(name));

const tag = (): string => randomBytes(4).toString('hex');

export const ids = async (query: Knex.QueryBuilder): Promise<number[]> => (await query.pluck<number[]>('id')).map(Number);

/** Activated users without any role, for the admin endpoints to act on. */
export async function insertUsers(knex: Knex, count: number, groupId: number | null = null): Promise<number[]> {
  const rows = Array.from({ length: count }, () => {
    const id = tag();
    return { name: `Proef ${id}`, name_slug: `proef-${id}`, email: `proef-${id}@student.devplein.test`, email_verified_at: new Date(), group_id: groupId };
  });
  return (await knex('users').insert(rows).returning<{ id: number }[]>('id')).map((row) => Number(row.id));
}

/** Projects with these members (first = owner), on image option 2 (PHP) unless said otherwise. */
export async function insertProjects(
  knex: Knex,
  count: number,
  options: { members: number[]; validated?: boolean | null; imageId?: number | null; siteDomain: string },
): Promise<Array<{ id: number; name: string }>> {
  const made: Array<{ id: number; name: string }> = [];
  for (let index = 0; index < count; index++) {
    // 12 letters of 26 (a project name has no digits): the admin specs make thousands of projects, and
    // 8 hex digits mapped to 10 letters collided (projects_name_unique) in a full run.
    const name = `proef-${[...randomBytes(12)].map((byte) => String.fromCharCode(97 + (byte % 26))).join('')}`;
    const [row] = await knex('projects')
      .insert({
        name,
        domain: `${name}.${options.siteDomain}`,
        description: 'Een project dat de property-tests maken om op te schrijven, lang genoeg.',
        visible: false,
        docker_image_id: options.imageId === undefined ? 2 : options.imageId,
        validated: options.validated === undefined ? true : options.validated,
      })
      .returning<{ id: number }[]>('id');
    const id = Number(row?.id);
    await knex('project_user').insert(options.members.map((userId, position) => ({ project_id: id, user_id: userId, position })));
    made.push({ id, name });
  }
  return made;
}

/** Projects a batch of deletes may take away; the first ten have a container on the fake agent. */
export async function deletableProjects(stack: PropertyStack, members: number[]): Promise<number[]> {
  const made = await insertProjects(stack.knex, 40, { members, siteDomain: stack.siteDomain });
  for (const project of made.slice(0, 10)) stack.agent.addManaged({ name: project.name, projectId: project.id, domain: `${project.name}.${stack.siteDomain}` });
  return made.map((project) => project.id);
}

/** Makes `count` records through the API as the admin (where the route does more than one insert), then the newest ids of `table`. */
export async function madeThroughApi(stack: PropertyStack, count: number, path: string, body: () => unknown, table: string): Promise<number[]> {
  for (let index = 0; index < count; index++) await stack.client('admin').json('POST', path, body());
  return ids(stack.knex(table).orderBy('id', 'desc').limit(2 * count));
}
