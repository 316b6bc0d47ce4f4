/** A form field's server messages (422 field errors), read out when they appear. */
export function FieldMessages({ messages }: { messages: string[] | undefined }) {
  if (messages === undefined || messages.length === 0) return null;
  return (
    <p className="field-error" role="alert">
      {messages.join(' ')}
    </p>
  );
}
