import { uniqueConstraintOf } from '../db/database-errors.ts';
import { HttpError, validationFailed, type FieldErrors } from '../errors.ts';

/** The refusals of a project request (spec §5), shared by the route and the create/update commands. */
export const NAME_TAKEN = 'Deze naam is al in gebruik. Kies een andere naam.';
export const DOMAIN_TAKEN = 'Dit domein is al in gebruik. Kies een ander domein.';

export const quotaMessage = (quota: number): string =>
  `Je hebt al ${quota} ${quota === 1 ? 'project' : 'projecten'} aangevraagd; meer mag niet. Verwijder eerst een project dat je niet meer gebruikt, of vraag een docent om hulp.`;

/** A 422 whose message is the first field message (what a caller without the field list shows). */
export function refused(errors: FieldErrors): HttpError {
  const first = Object.values(errors).flat()[0];
  const error = validationFailed(errors);
  return first === undefined ? error : new HttpError(422, first, error.extra);
}

/** A unique violation that slipped past the check (two requests at once) as the same 422. */
export function asTakenError(error: unknown): unknown {
  const constraint = uniqueConstraintOf(error);
  if (constraint === null) return error;
  if (constraint.includes('domain')) return refused({ domain: [DOMAIN_TAKEN] });
  return refused({ name: [NAME_TAKEN] });
}
