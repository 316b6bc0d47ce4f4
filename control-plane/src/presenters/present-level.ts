import type { LevelStatus } from '../models/Level.ts';
import type { LevelJson } from '@devplein/contract/levels';
export type { LevelJson };

interface LevelInput {
  id: number;
  number: number;
  status: LevelStatus;
  category_id: number;
  category_title: string;
  content_title: string | null;
}

export function presentLevel(
  level: LevelInput,
  courses: ReadonlyArray<{ id: number; title: string }>,
  texts: ReadonlyArray<{ course_id: number; title: string; body: string }>,
  files: ReadonlyArray<{ id: number; course_id: number; title: string; type: string }>,
): LevelJson {
  return {
    id: level.id,
    number: level.number,
    status: level.status,
    category: { id: level.category_id, title: level.category_title },
    content: level.content_title === null ? null : { title: level.content_title },
    courses: courses.map((course) => ({
      id: course.id,
      title: course.title,
      texts: texts.filter((text) => text.course_id === course.id).map((text) => ({ title: text.title, text: text.body })),
      files: files
        .filter((file) => file.course_id === course.id)
        .map((file) => ({ id: file.id, title: file.title, type: file.type })),
    })),
  };
}
