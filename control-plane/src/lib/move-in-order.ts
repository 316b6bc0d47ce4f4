import type { Knex } from 'knex';

/** Tables whose rows have a `position` among siblings (the same parent column value). */
export type OrderedTable = 'courses' | 'course_texts' | 'course_files';

const parentColumn: Record<OrderedTable, string> = {
  courses: 'level_content_id',
  course_texts: 'course_id',
  course_files: 'course_id',
};

const parentTable: Record<OrderedTable, string> = {
  courses: 'level_contents',
  course_texts: 'courses',
  course_files: 'courses',
};

/**
 * Moves one row a place up or down among its siblings and renumbers them 0..n-1, in one
 * transaction (older rows may share a position; renumbering keeps the order unambiguous).
 * Returns false when the row does not exist; moving the first up or the last down is a no-op.
 */
export async function moveInOrder(knex: Knex, table: OrderedTable, id: number, direction: 'up' | 'down'): Promise<boolean> {
  return knex.transaction(async (trx) => {
    const parent = parentColumn[table];
    const row = await trx(table).where({ id }).first<{ id: number; [key: string]: unknown } | undefined>('id', parent);
    if (!row) return false;
    // One move per parent at a time: the parent's row is the lock. Locking the siblings alone
    // took them in position order, which the other moves were changing: a deadlock.
    await trx(parentTable[table]).where({ id: row[parent] as number }).forUpdate().first('id');
    const siblings = await trx(table)
      .where(parent, row[parent] as number)
      .orderBy([{ column: 'position' }, { column: 'id' }])
      .forUpdate()
      .select<Array<{ id: number }>>('id');
    const ids = siblings.map((sibling) => sibling.id);
    const from = ids.indexOf(id);
    const to = direction === 'up' ? from - 1 : from + 1;
    if (to >= 0 && to < ids.length) [ids[from], ids[to]] = [ids[to]!, ids[from]!];
    for (const [position, siblingId] of ids.entries()) {
      await trx(table).where({ id: siblingId }).update({ position });
    }
    return true;
  });
}

/** The position after the last sibling: where a new row goes. */
export async function nextPosition(knex: Knex, table: OrderedTable, parentId: number): Promise<number> {
  const row = await knex(table)
    .where(parentColumn[table], parentId)
    .max<{ max: number | null }>('position as max')
    .first();
  return row?.max === null || row?.max === undefined ? 0 : Number(row.max) + 1;
}
