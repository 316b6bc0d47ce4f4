/**
 * One HTTP endpoint of the control plane, declared once: its method and path, who may call it,
 * the zod schemas of its params, query and body, and what it answers (a JSON schema, a stream
 * with the schema of its items, a file). The server's `handle`, the web's `call`/`useEndpoint`,
 * the tests' `as(role).call` and the OpenAPI document are all derived from these declarations
 * (docs/architecture.md, "Where an endpoint is declared").
 */
import { z } from 'zod';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Who may call an endpoint: the server checks this before it reads any input (a role that may
 * not gets 401/403 before any 404 or 422). Finer rules (a member of the project, the owner of
 * the key) stay in the route's authorize step.
 * - `public`: anyone, with or without a session;
 * - `signed-in`: a session, activated or not (GET /api/user);
 * - `active`: an activated account;
 * - `developer`, `admin`, `admin-developer`: an activated account with those flags (spec §6);
 * - `machine`: no session; the request carries its own proof (a join token, a dev server's
 *   certificate, a webhook signature, a one-time ticket), checked by the route.
 */
export type Access = 'public' | 'signed-in' | 'active' | 'developer' | 'admin' | 'admin-developer' | 'machine';

/** What an endpoint answers. Every kind but `json` is written by the route itself. */
export type Answer =
  /** A JSON body of this schema (the contract's `*Json` types are `z.infer` of these). */
  | { kind: 'json'; schema: z.ZodType }
  /** Server-sent events whose `data:` lines are JSON of `item` (and an `error` event). */
  | { kind: 'sse'; item: z.ZodType }
  /** Newline-delimited JSON, one `item` per line. */
  | { kind: 'ndjson'; item: z.ZodType }
  /** A file or text of this content type; `json` when `?format=json` answers JSON instead. */
  | { kind: 'file'; contentType: string; json?: z.ZodType }
  /** A redirect (sign-in, a download's signed address). */
  | { kind: 'redirect' }
  /** 204, or a page of the server's own (HTML). */
  | { kind: 'empty' }
  /**
   * Only 405 with `Allow: {allow}`: a GET the spec had for a change of state, kept so a link or an
   * old bookmark gets a clear answer instead of a 404 (docs/spec-deviations.md).
   */
  | { kind: 'not-allowed'; allow: HttpMethod };

export interface Endpoint<
  Params extends z.ZodType | undefined = z.ZodType | undefined,
  Query extends z.ZodType | undefined = z.ZodType | undefined,
  Body extends z.ZodType | undefined = z.ZodType | undefined,
  Reply extends Answer = Answer,
> {
  method: HttpMethod;
  /** @koa/router's form: `/api/user/ssh_keys/:id`. */
  path: string;
  access: Access;
  /** One line for developers (English, as the rest of the code): what it does. */
  summary: string;
  /** The Dutch message of the 403 when the role does not fit; the server's general one otherwise. */
  refusal?: string;
  params?: Params;
  query?: Query;
  body?: Body;
  answer: Reply;
}

/** Declares an endpoint, keeping its literal types for the adapters. */
export const endpoint = <
  Params extends z.ZodType | undefined = undefined,
  Query extends z.ZodType | undefined = undefined,
  Body extends z.ZodType | undefined = undefined,
  Reply extends Answer = Answer,
>(
  declaration: Endpoint<Params, Query, Body, Reply>,
): Endpoint<Params, Query, Body, Reply> => declaration;

export const json = <Schema extends z.ZodType>(schema: Schema): { kind: 'json'; schema: Schema } => ({ kind: 'json', schema });
export const sse = <Item extends z.ZodType>(item: Item): { kind: 'sse'; item: Item } => ({ kind: 'sse', item });
export const ndjson = <Item extends z.ZodType>(item: Item): { kind: 'ndjson'; item: Item } => ({ kind: 'ndjson', item });
export const notAllowed = (allow: HttpMethod): { kind: 'not-allowed'; allow: HttpMethod } => ({ kind: 'not-allowed', allow });
export const file = <Json extends z.ZodType | undefined = undefined>(contentType: string, json?: Json): { kind: 'file'; contentType: string; json: Json } =>
  ({ kind: 'file', contentType, json: json as Json });

/** A declared part's schema (params, query, body are optional properties: `undefined` is taken off). */
type Declared<Part> = Exclude<Part, undefined>;
type Has<Part> = [Declared<Part>] extends [never] ? false : true;
type Infer<Part> = Has<Part> extends true ? (Declared<Part> extends z.ZodType ? z.infer<Declared<Part>> : undefined) : undefined;
type InputOf<Part> = Has<Part> extends true ? (Declared<Part> extends z.ZodType ? z.input<Declared<Part>> : undefined) : undefined;

/** What the route's act step has parsed: params, query and body as the schemas made them. */
export interface ParsedInput<E extends Endpoint> {
  params: Infer<E['params']>;
  query: Infer<E['query']>;
  body: Infer<E['body']>;
}

/** A path's values: what the schema makes of them, or their text (ids from a URL). */
type PathValues<Parsed> = { [Key in keyof Parsed]: Parsed[Key] | string };
/** A query's values: optional, as the schema makes them, or as text. */
type QueryValues<Parsed> = { [Key in keyof Parsed]?: Parsed[Key] | string };

/** What a caller sends (before the schemas' coercions): only the parts the endpoint has. */
export type CallInput<E extends Endpoint> = (Has<E['params']> extends true ? { params: PathValues<Infer<E['params']>> } : { params?: undefined }) &
  (Has<E['query']> extends true ? { query?: QueryValues<Infer<E['query']>> } : { query?: undefined }) &
  (Has<E['body']> extends true ? { body: InputOf<E['body']> } : { body?: undefined });

/** The JSON body an endpoint answers (undefined for streams, files without JSON, redirects). */
/** The body a caller sends to an endpoint (before the schema's transforms): a form's wire type. */
export type BodyOf<E extends Endpoint> = InputOf<E['body']>;

export type ReplyOf<E extends Endpoint> = E['answer'] extends { kind: 'json'; schema: infer Schema }
  ? Infer<Schema>
  : E['answer'] extends { kind: 'file'; json: infer Schema }
    ? Infer<Schema>
    : undefined;

/** `/api/user/ssh_keys/:id` with {id: 3} → `/api/user/ssh_keys/3` (each value URI-encoded). */
export function pathOf(declared: Pick<Endpoint, 'path'>, params?: Record<string, unknown>): string {
  return declared.path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, (_, name: string) => {
    const value = params?.[name];
    if (value === undefined || value === null) throw new Error(`${declared.path}: no value for :${name}`);
    return encodeURIComponent(String(value));
  });
}

/** The address a call goes to: the path with its params, then the query without its undefined values. */
export function addressOf(declared: Pick<Endpoint, 'path'>, input: { params?: unknown; query?: unknown }): string {
  const path = pathOf(declared, input.params as Record<string, unknown> | undefined);
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries((input.query ?? {}) as Record<string, unknown>)) if (value !== undefined) query.set(key, String(value));
  return query.size > 0 ? `${path}?${query}` : path;
}

/** `METHOD /path`: how the route table, the roles test and the OpenAPI document name an endpoint. */
export const endpointKey = (declared: Pick<Endpoint, 'method' | 'path'>): string => `${declared.method} ${declared.path}`;
