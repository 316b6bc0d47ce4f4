import type { LevelStatus } from '@devplein/contract/levels';
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

/** A course with its texts and files, each in teacher order (the course graph). */
interface CourseGraph {
  id: number;
  title: string;
  texts?: ReadonlyArray<{ title: string; body: string }>;
  files?: ReadonlyArray<{ id: number; title: string; type: string }>;
}

export function presentLevel(level: LevelInput, courses: readonly CourseGraph[]): LevelJson {
  return {
    id: level.id,
    number: level.number,
    status: level.status,
    category: { id: level.category_id, title: level.category_title },
    content: level.content_title === null ? null : { title: level.content_title },
    courses: courses.map((course) => ({
      id: course.id,
      title: course.title,
      texts: (course.texts ?? []).map((text) => ({ title: text.title, text: text.body })),
      files: (course.files ?? []).map((file) => ({ id: file.id, title: file.title, type: file.type })),
    })),
  };
}
