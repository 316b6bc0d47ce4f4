import type { ReactNode } from 'react';

export interface AsyncContentProps<T> {
  /** The loaded data; `undefined` while it is on its way. */
  data: T | undefined;
  failed: boolean;
  /** True while (re)loading even if old data is at hand; `data === undefined` counts as loading too. */
  loading?: boolean;
  /** Shown (role alert) when loading failed, e.g. 'De teams konden niet worden geladen. Probeer het later opnieuw.' */
  errorText: ReactNode;
  /** Shown (role status) while loading, e.g. 'Teams laden…'. */
  loadingText: ReactNode;
  /** Shown instead of the children when `isEmpty(data)`; no empty state when left out. */
  empty?: ReactNode;
  /** Defaults to "an array without items". */
  isEmpty?: (data: T) => boolean;
  emptyTestId?: string;
  /** Pages inside a card drop the outer 'card' class. */
  errorClassName?: string;
  emptyClassName?: string;
  children: (data: T) => ReactNode;
}

function isEmptyArray(data: unknown): boolean {
  return Array.isArray(data) && data.length === 0;
}

/**
 * The loading / error / empty block the admin pages share: the error comes first, then the loading
 * message, then the empty message, and only then the content built from the loaded data.
 */
export function AsyncContent<T>({
  data,
  failed,
  loading = false,
  errorText,
  loadingText,
  empty,
  isEmpty = isEmptyArray,
  emptyTestId,
  errorClassName = 'card error-text',
  emptyClassName = 'card page-message',
  children,
}: AsyncContentProps<T>) {
  if (failed) {
    return (
      <p className={errorClassName} role="alert">
        {errorText}
      </p>
    );
  }
  if (loading || data === undefined) {
    return (
      <p className="page-message" role="status">
        {loadingText}
      </p>
    );
  }
  if (empty !== undefined && isEmpty(data)) {
    return (
      <p className={emptyClassName} data-testid={emptyTestId}>
        {empty}
      </p>
    );
  }
  return <>{children(data)}</>;
}
