import type { StudentLevelJson, GroupStudentJson } from '@devplein/contract/levels';
export type { StudentLevelJson, GroupStudentJson };

export function presentStudentLevel(row: StudentLevelJson): StudentLevelJson {
  return {
    id: row.id,
    user_id: row.user_id,
    number: row.number,
    status: row.status,
    level_category_id: row.level_category_id,
    level_content_id: row.level_content_id,
  };
}

export function presentGroupStudent(
  user: { id: number; name: string; email: string },
  levels: readonly StudentLevelJson[],
): GroupStudentJson {
  return { id: user.id, name: user.name, email: user.email, levels: levels.map(presentStudentLevel) };
}
