import { FieldError } from './FieldError.tsx';

/**
 * The branch a git deploy takes (issue 23), one field for the request form and the card's
 * Git-deploy settings: empty means the repository's default branch.
 */
export function BranchField({
  id,
  value,
  onChange,
  hint,
  problem,
}: {
  id: string;
  value: string;
  onChange: (branch: string) => void;
  /** A line under the field (e.g. what leaving it empty means here). */
  hint?: string;
  problem?: string;
}) {
  return (
    <div className="field">
      <label className="field-label" htmlFor={id}>
        Branch (leeg: de standaardbranch)
      </label>
      <input
        type="text"
        id={id}
        name="branch"
        value={value}
        maxLength={255}
        autoComplete="off"
        spellCheck={false}
        placeholder="main"
        aria-describedby={hint === undefined ? undefined : `${id}-hint`}
        onChange={(event) => onChange(event.target.value)}
      />
      {hint !== undefined && (
        <span id={`${id}-hint`} className="field-hint">
          {hint}
        </span>
      )}
      <FieldError messages={problem} />
    </div>
  );
}
