import { z } from 'zod';
import nl from 'zod/v4/locales/nl.js';
import type { AppContext } from '../http-context.ts';
import { validationFailed, type FieldErrors } from '../errors.ts';

// Every message a schema does not word itself comes in Dutch (zod's own locale): every route
// parses through this module, so it is set before the first request is validated.
z.config(nl());

/** zod issues as the field errors of a 422 answer. */
export function fieldErrorsOf(error: z.ZodError): FieldErrors {
  const errors: FieldErrors = {};
  for (const issue of error.issues) {
    const field = issue.path.length > 0 ? issue.path.map(String).join('.') : 'body';
    (errors[field] ??= []).push(issue.message);
  }
  return errors;
}

/** What a field with a NUL or an unpaired surrogate gets (the user sees it next to the field). */
export const UNSTORABLE_TEXT_MESSAGE = 'Dit veld bevat een teken dat niet kan worden opgeslagen.';

/** A UTF-16 surrogate without its other half: no Unicode character, and JSON in PostgreSQL refuses it. */
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Field errors for the strings in parsed input that PostgreSQL cannot store: text columns refuse
 * NUL, and jsonb (the audit log keeps inputs) refuses NUL and unpaired surrogates. JSON bodies
 * can carry both (`\u0000`, `\udfff`), so this is part of every parse step; without it they became
 * a database error and a 500. `path` names fields as fieldErrorsOf does.
 */
export function unstorableTextErrors(value: unknown, path: readonly (string | number)[] = [], errors: FieldErrors = {}): FieldErrors {
  if (typeof value === 'string') {
    if (value.includes('\u0000') || UNPAIRED_SURROGATE.test(value)) {
      const field = path.length > 0 ? path.map(String).join('.') : 'body';
      const messages = (errors[field] ??= []);
      if (!messages.includes(UNSTORABLE_TEXT_MESSAGE)) messages.push(UNSTORABLE_TEXT_MESSAGE);
    }
  } else if (Array.isArray(value)) {
    value.forEach((item, index) => unstorableTextErrors(item, [...path, index], errors));
  } else if (typeof value === 'object' && value !== null && [Object.prototype, null].includes(Object.getPrototypeOf(value) as object | null)) {
    for (const [key, item] of Object.entries(value)) unstorableTextErrors(item, [...path, key], errors);
  }
  return errors;
}

/** Parses one part of the request with a schema: the parse step of every route; bad input → 422. */
export function parseInput<Schema extends z.ZodType>(
  ctx: AppContext,
  schema: Schema,
  source: 'body' | 'query' | 'params',
): z.infer<Schema> {
  const raw =
    source === 'body'
      ? ((ctx.request as { body?: unknown }).body ?? {})
      : source === 'query'
        ? ctx.query
        : (ctx as unknown as { params?: unknown }).params ?? {};
  const result = schema.safeParse(raw);
  if (!result.success) throw validationFailed(fieldErrorsOf(result.error));
  const unstorable = unstorableTextErrors(result.data);
  if (Object.keys(unstorable).length > 0) throw validationFailed(unstorable);
  ctx.state.input = result.data;
  return result.data;
}
