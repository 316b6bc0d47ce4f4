import type { Knex } from 'knex';
import { AWAITING_APPROVAL, REJECTED } from '../lib/container-states.ts';

/**
 * The product state the dockers page shows instead of Docker's for containers whose project is
 * not approved ('Nog niet goed gekeurd!' or 'Afgekeurd', spec §4), by container (= project) name,
 * in one query. Approved projects and unknown names are left out: their Docker state stands.
 */
export async function productStatesOfContainers(knex: Knex, names: readonly string[]): Promise<Map<string, string>> {
  if (names.length === 0) return new Map();
  const rows = await knex('projects')
    .whereIn('name', [...new Set(names)])
    .where((where) => void where.whereNull('validated').orWhere('validated', false))
    .select<Array<{ name: string; validated: boolean | null }>>('name', 'validated');
  return new Map(rows.map((row) => [row.name, row.validated === false ? REJECTED : AWAITING_APPROVAL]));
}
