import type { ReactNode } from 'react';

/** A titled part of a course card ('Teksten', 'Bestanden'). */
export function CoursePart({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="courses-editor">
      <h3 className="course-part-title">{title}</h3>
      {children}
    </section>
  );
}
