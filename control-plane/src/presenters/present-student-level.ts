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

/** The answer of a bulk level change (POST /api/level/update/multiple). */
export function presentStudentLevelsUpdate(levels: readonly StudentLevelJson[]): { updated: number; levels: StudentLevelJson[] } {
  return { updated: levels.length, levels: levels.map(presentStudentLevel) };
}

/** The answer of one cell's content change (POST /api/level/store). */
export function presentStoredStudentLevel(level: Pick<StudentLevelJson, 'id' | 'status' | 'level_content_id'>): {
  status: StudentLevelJson['status'];
  level_content_id: number | null;
  id: number;
} {
  return { status: level.status, level_content_id: level.level_content_id, id: level.id };
}

/** The answer of one level's status change (POST /api/level/update-status). */
export function presentLevelStatus(status: StudentLevelJson['status']): { status: StudentLevelJson['status'] } {
  return { status };
}
