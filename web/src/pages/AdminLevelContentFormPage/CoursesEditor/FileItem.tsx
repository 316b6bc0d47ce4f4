import { courseMutations, type CourseFile } from '../../../api/queries/adminLevels.ts';
import { formatSize } from './courseFiles.ts';
import { MoveButtons } from './MoveButtons.tsx';
import type { Run } from './useCourseEditing.ts';

/** One file of a course: a download link, its type and size, and its order and delete buttons. */
export function FileItem({ courseId, file, index, count, run }: { courseId: number; file: CourseFile; index: number; count: number; run: Run }) {
  const label = `Bestand ${file.title}`;
  return (
    <li className="course-item" data-testid="course-file">
      <div className="course-item-row">
        <span className="course-item-title">
          <a href={file.url} download={file.filename}>
            {file.title}
          </a>{' '}
          <span className="course-item-meta">
            {file.type} · {file.filename} · {formatSize(file.size)}
          </span>
        </span>
        <MoveButtons label={label} index={index} count={count} onMove={(direction) => void run(() => courseMutations.moveFile(courseId, file.id, direction))} />
        <button
          type="button"
          className="button button-danger button-small"
          onClick={() => {
            if (window.confirm(`Bestand "${file.title}" verwijderen?`)) void run(() => courseMutations.removeFile(courseId, file.id));
          }}
        >
          Verwijderen
        </button>
      </div>
    </li>
  );
}
