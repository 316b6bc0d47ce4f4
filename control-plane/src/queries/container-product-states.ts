import type { Knex } from 'knex';
import { AWAITING_APPROVAL, REJECTED } from '../lib/container-states.ts';

/** A dev server as the `host` column names it: null is the first link's (rows from before a second one). */
export interface PlacementServer {
  name: string;
  /** The first link: rows with host null are its. */
  isDefault: boolean;
}

/**
 * Of these container (= project) names, the projects placed on `server`, in one query, each
 * with the product state the dockers page shows instead of Docker's when the project is not
 * approved ('Nog niet goed gekeurd!' or 'Afgekeurd', spec §4), else null (its Docker state
 * stands). Names of other servers' projects, and names no project has, are left out: the
 * container event relay drops what an agent says about them (issue 35).
 */
export async function containersPlacedOn(knex: Knex, names: readonly string[], server: PlacementServer): Promise<Map<string, string | null>> {
  if (names.length === 0) return new Map();
  const rows = await knex('projects')
    .whereIn('name', [...new Set(names)])
    .where((where) => {
      void where.where('host', server.name);
      if (server.isDefault) void where.orWhereNull('host');
    })
    .select<Array<{ name: string; validated: boolean | null }>>('name', 'validated');
  return new Map(rows.map((row) => [row.name, row.validated === true ? null : row.validated === false ? REJECTED : AWAITING_APPROVAL]));
}
