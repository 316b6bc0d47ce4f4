import { useState } from 'react';
import { ApiError } from '../../../api/client.ts';
import { useCourses as useCoursesQuery, type Course } from '../../../api/queries/adminLevels.ts';

/** Runs a change, then reloads the courses; resolves true when the change went through. */
export type Run = (change: () => Promise<unknown>) => Promise<boolean>;

/** What went wrong, in words for a teacher (422 field messages when there are any). */
function problemOf(error: unknown): string {
  if (error instanceof ApiError) return error.fieldMessages() || error.message;
  return error instanceof Error ? error.message : 'Er ging iets mis.';
}

/**
 * The courses of one level content and the one way to change them: `run` performs a change,
 * reloads the courses either way and keeps the last failure in `problem` (shown above the list).
 */
export function useCourseEditing(contentId: number): {
  courses: Course[] | undefined;
  failed: boolean;
  problem: string | null;
  run: Run;
} {
  const { data: courses, error, mutate } = useCoursesQuery(String(contentId));
  const [problem, setProblem] = useState<string | null>(null);

  const run: Run = async (change) => {
    setProblem(null);
    try {
      await change();
      await mutate();
      return true;
    } catch (caught) {
      setProblem(problemOf(caught));
      await mutate();
      return false;
    }
  };

  return { courses, failed: error !== undefined, problem, run };
}
