import type { AdminLevelCategoryJson as LevelCategoryJson } from '@devplein/contract/levels';
export type { LevelCategoryJson };

/** A level category row as stored. */
export interface LevelCategoryRow {
  id: number;
  title: string;
  number: number;
  icons: boolean;
}

export function presentLevelCategory(row: LevelCategoryRow): LevelCategoryJson {
  return { id: row.id, title: row.title, number: row.number, icons: row.icons ? 1 : 0 };
}
