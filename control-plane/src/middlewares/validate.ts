import type { z } from 'zod';
import type { AppContext } from '../app-context.ts';
import { validationFailed, type FieldErrors } from '../errors.ts';

/** zod issues as the field errors of a 422 answer. */
export function fieldErrorsOf(error: z.ZodError): FieldErrors {
  const errors: FieldErrors = {};
  for (const issue of error.issues) {
    const field = issue.path.length > 0 ? issue.path.map(String).join('.') : 'body';
    (errors[field] ??= []).push(issue.message);
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
  ctx.state.input = result.data;
  return result.data;
}
