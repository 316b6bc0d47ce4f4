import type { LevelStatus } from '../models/Level.ts';

/** A student's level record (spec §3 "Level (per student, admin)"). */
export interface StudentLevelJson {
  id: number;
  user_id: number;
  number: number;
  status: LevelStatus;
  level_category_id: number;
  level_content_id: number | null;
}

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

/** GET /api/users/by-group/{groupId}: a student of the group with all their levels. */
export interface GroupStudentJson {
  id: number;
  name: string;
  email: string;
  levels: StudentLevelJson[];
}

export function presentGroupStudent(
  user: { id: number; name: string; email: string },
  levels: readonly StudentLevelJson[],
): GroupStudentJson {
  return { id: user.id, name: user.name, email: user.email, levels: levels.map(presentStudentLevel) };
}
