import type { ReactNode } from 'react';
import { Icon, type IconName } from './Icon.tsx';

/** A content card with a heading and a short message: empty states, "no access", "not yet". */
export function Notice({
  title,
  icon,
  children,
  testId,
}: {
  title: string;
  icon?: IconName;
  children: ReactNode;
  testId?: string;
}) {
  return (
    <section className="card notice" data-testid={testId}>
      {icon !== undefined && (
        <div className="notice-icon">
          <Icon name={icon} />
        </div>
      )}
      <h1>{title}</h1>
      {children}
    </section>
  );
}
