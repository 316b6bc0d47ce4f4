/**
 * The OpenAPI 3.1 document of the declared endpoints (contract/src/http/all.ts), made from their
 * zod schemas with zod 4's JSON Schema output (draft 2020-12, which OpenAPI 3.1 uses). Streams
 * are `text/event-stream` and `application/x-ndjson` with the schema of one item; a file is its
 * content type. Every endpoint carries `x-devplein-access`, who may call it.
 */
import { z } from 'zod';
import type { Answer, Endpoint } from './endpoint.ts';
import { errorJson } from './errors.ts';

type JsonSchema = Record<string, unknown>;

const schemaOf = (schema: z.ZodType, io: 'input' | 'output'): JsonSchema => {
  // Transforms (a flag read as a boolean) cannot be written down: their input side is.
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
  return rest;
};

/** `/api/user/ssh_keys/:id` → `/api/user/ssh_keys/{id}`. */
export const openApiPath = (path: string): string => path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');

function parameters(schema: z.ZodType | undefined, where: 'path' | 'query'): JsonSchema[] {
  if (!schema) return [];
  const object = schemaOf(schema, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(object.properties ?? {}).map(([name, property]) => ({
    name,
    in: where,
    required: where === 'path' || (object.required ?? []).includes(name),
    schema: property,
  }));
}

function content(answer: Answer): JsonSchema | undefined {
  switch (answer.kind) {
    case 'json':
      return { 'application/json': { schema: schemaOf(answer.schema, 'output') } };
    case 'sse':
      return { 'text/event-stream': { schema: schemaOf(answer.item, 'output'), description: 'Each event’s data is one item of this schema.' } };
    case 'ndjson':
      return { 'application/x-ndjson': { schema: schemaOf(answer.item, 'output'), description: 'Each line is one item of this schema.' } };
    case 'file':
      return {
        [answer.contentType]: { schema: { type: 'string' } },
        ...(answer.json ? { 'application/json': { schema: schemaOf(answer.json, 'output') } } : {}),
      };
    case 'redirect':
    case 'empty':
    case 'not-allowed':
      return undefined;
  }
}

const errorBody = (): JsonSchema => ({ 'application/json': { schema: schemaOf(errorJson, 'output') } });

function operation(declared: Endpoint): JsonSchema {
  const ok = content(declared.answer);
  const errors: Record<string, JsonSchema> = {
    ...(declared.access === 'public' ? {} : { '401': { description: 'Niet ingelogd', content: errorBody() }, '403': { description: 'Geen toegang', content: errorBody() } }),
    ...(declared.params || declared.query || declared.body ? { '422': { description: 'Ongeldige invoer (veldfouten)', content: errorBody() } } : {}),
  };
  return {
    summary: declared.summary,
    'x-devplein-access': declared.access,
    parameters: [...parameters(declared.params, 'path'), ...parameters(declared.query, 'query')],
    ...(declared.body ? { requestBody: { required: true, content: { 'application/json': { schema: schemaOf(declared.body, 'input') } } } } : {}),
    responses:
      declared.answer.kind === 'not-allowed'
        ? { '405': { description: `Alleen ${declared.answer.allow} (Allow-header)`, content: errorBody() } }
        : { [declared.answer.kind === 'redirect' ? '302' : '200']: { description: 'OK', ...(ok ? { content: ok } : {}) }, ...errors },
  };
}

/** The whole document for these endpoints. */
export function openApiDocument(endpoints: readonly Endpoint[], version: string): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const declared of endpoints) {
    (paths[openApiPath(declared.path)] ??= {})[declared.method.toLowerCase()] = operation(declared);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'devplein',
      version,
      description: 'The HTTP API of the devplein control plane, as the web app uses it: a session cookie and the X-CSRF-TOKEN header (no API tokens yet).',
    },
    paths,
  };
}
