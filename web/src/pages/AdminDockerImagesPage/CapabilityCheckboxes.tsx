import { useId } from 'react';
import { CAPABILITY_HELP, CONTAINER_CAPABILITIES } from '@devplein/contract/validation/containerCapabilities';

export interface CapabilityCheckboxesProps {
  /** Legend of the group; also what screen readers announce. */
  legend: string;
  selected: readonly string[];
  onChange: (capabilities: string[]) => void;
  /** 422 field errors for `capabilities`. */
  errors?: string[];
  disabled?: boolean;
}

/**
 * "Rechten (capabilities)": one checkbox per capability of the allow-list, each with what it
 * allows in Dutch. The selection is kept in allow-list order, as the server stores it.
 */
export function CapabilityCheckboxes({ legend, selected, onChange, errors, disabled }: CapabilityCheckboxesProps) {
  const id = useId();
  const toggle = (name: string, on: boolean) =>
    onChange(CONTAINER_CAPABILITIES.filter((capability) => (capability === name ? on : selected.includes(capability))));
  return (
    <fieldset
      className="capability-fieldset"
      aria-describedby={`${id}-help${errors?.length ? ` ${id}-error` : ''}`}
      aria-invalid={errors?.length ? true : undefined}
      disabled={disabled}
    >
      <legend className="field-label">{legend}</legend>
      <p className="muted capability-help" id={`${id}-help`}>
        Elke container krijgt geen enkel Linux-recht, behalve de rechten die hier aangevinkt zijn. Vink alleen aan wat de image nodig
        heeft. Een wijziging geldt voor containers die daarna gemaakt worden; bestaande containers houden hun rechten tot ze opnieuw
        gemaakt worden.
      </p>
      <div className="capability-list">
        {CONTAINER_CAPABILITIES.map((name) => (
          <label key={name} className="capability-option">
            <input type="checkbox" name="capabilities" value={name} checked={selected.includes(name)} onChange={(event) => toggle(name, event.target.checked)} />
            <span>
              <code>{name}</code> <span className="muted">{CAPABILITY_HELP[name]}</span>
            </span>
          </label>
        ))}
      </div>
      {errors?.map((text) => (
        <p key={text} className="field-error" id={`${id}-error`}>
          {text}
        </p>
      ))}
    </fieldset>
  );
}
