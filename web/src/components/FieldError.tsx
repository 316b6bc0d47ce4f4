export interface FieldErrorProps {
  /** The field's problem: one message, or the server's list for the field (422 field errors). None: nothing shows. */
  messages: string | readonly string[] | undefined;
  /** 'span' (the default) inside a label or a field's grid; 'p' for a line of its own. */
  as?: 'span' | 'p';
  /** For the field's aria-describedby. */
  id?: string;
  /** 'alert': read out as soon as it appears. */
  role?: 'alert';
  /** The class styles target; the status page's invitation form has its own. */
  className?: 'field-error' | 'status-field-error';
}

/**
 * A form field's validation error, for every form of the app: its messages one after another in a
 * single element (class field-error unless told otherwise).
 */
export function FieldError({ messages, as: Element = 'span', id, role, className = 'field-error' }: FieldErrorProps) {
  const list = typeof messages === 'string' ? [messages] : messages;
  if (list === undefined || list.length === 0) return null;
  return (
    <Element className={className} id={id} role={role}>
      {list.join(' ')}
    </Element>
  );
}
