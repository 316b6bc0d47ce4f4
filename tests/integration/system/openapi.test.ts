/**
 * GET /api/openapi.json (issue 36): the OpenAPI 3.1 document made from contract/src/http, served
 * to admins, checked against the live route table: every declared endpoint is in it under its
 * method and path, with its input and answer schemas, and every operation in it is a route the
 * control plane registered.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINTS, openApiEndpoint } from '@devplein/contract/http/all';
import { openApiPath } from '@devplein/contract/http/openapi';
import { addSshKey } from '@devplein/contract/http/ssh-keys';
import { followContainerLogs, pullProjectImage } from '@devplein/contract/http/user-dockers';
import { seededControlPlane } from '../../support/stacks/seeded-control-plane.ts';
import { signedInSessions } from '../../support/clients/http-session.ts';
import { call } from '../../support/clients/endpoint-calls.ts';
import { routeTable } from '../../support/fixtures/route-table.ts';

interface Operation {
  summary: string;
  'x-devplein-access': string;
  parameters: { name: string; in: string; required: boolean }[];
  requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown>; required?: string[] } }> };
  responses: Record<string, { content?: Record<string, { schema: Record<string, unknown> }> }>;
}
interface Document {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
}

const stack = seededControlPlane();
let document: Document;
const as = signedInSessions(() => stack.app.url);

beforeAll(async () => {
  document = (await call(await as('admin@devplein.test'), openApiEndpoint, {})) as unknown as Document;
});

const operationOf = (endpoint: { method: string; path: string }): Operation | undefined => document.paths[openApiPath(endpoint.path)]?.[endpoint.method.toLowerCase()];

describe('the OpenAPI document', () => {
  it('is OpenAPI 3.1 with every declared endpoint, and only routes the control plane registered', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.title).toBe('devplein');
    for (const endpoint of ENDPOINTS) {
      const operation = operationOf(endpoint);
      expect(operation, `${endpoint.method} ${endpoint.path}`).toBeDefined();
      expect(operation?.['x-devplein-access']).toBe(endpoint.access);
      expect(operation?.summary).toBe(endpoint.summary);
    }
    const live = new Set(routeTable().map((route) => `${route.method} ${openApiPath(route.path)}`));
    const documented = Object.entries(document.paths).flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`));
    expect(documented.filter((key) => !live.has(key)), 'operations without a registered route').toEqual([]);
    expect(documented).toHaveLength(ENDPOINTS.length);
  });

  it('writes down inputs and answers: path parameters, the body, JSON, server-sent events and NDJSON with their item schema', () => {
    const post = operationOf(addSshKey);
    expect(post?.requestBody?.content['application/json']?.schema.required).toEqual(['name', 'sshKey']);
    const list = post?.responses['200']?.content?.['application/json']?.schema as { type: string; items: { properties: Record<string, unknown> } };
    expect(list.type).toBe('array');
    expect(Object.keys(list.items.properties)).toEqual(['id', 'name', 'keyHash', 'type', 'bits', 'createdAt']);
    expect(post?.responses['422']).toBeDefined();

    const follow = operationOf(followContainerLogs);
    expect(follow?.parameters).toEqual(expect.arrayContaining([{ name: 'name', in: 'path', required: true, schema: expect.any(Object) }, expect.objectContaining({ name: 'tail', in: 'query', required: false })]));
    expect(follow?.responses['200']?.content?.['text/event-stream']?.schema).toMatchObject({ type: 'object', properties: { stream: expect.any(Object), text: expect.any(Object) } });
    expect(operationOf(pullProjectImage)?.responses['200']?.content?.['application/x-ndjson']?.schema).toMatchObject({ anyOf: expect.any(Array) });
  });

  it('is for admins: a student and a developer are refused', async () => {
    for (const email of ['student@devplein.test', 'ontwikkelaar@devplein.test']) {
      expect((await (await as(email)).json('GET', openApiEndpoint.path)).status).toBe(403);
    }
  });
});
