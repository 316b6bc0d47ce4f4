/** A level category row as stored. */
export interface LevelCategoryRow {
  id: number;
  title: string;
  number: number;
  icons: boolean;
}

/** A level category in the teachers' tools: `icons` as the 0/1 flag of spec §3. */
export interface LevelCategoryJson {
  id: number;
  title: string;
  number: number;
  icons: 0 | 1;
}

export function presentLevelCategory(row: LevelCategoryRow): LevelCategoryJson {
  return { id: row.id, title: row.title, number: row.number, icons: row.icons ? 1 : 0 };
}
