/**
 * POST /api/wordpress/passwordreset/{project} (routes/wordpress) on a hosting stack with the fake
 * agent: a new password for a WordPress project's admin, refused for others; GET answers 405.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resetWordpressPassword } from '@devplein/contract/http/wordpress';
import { call } from '../../support/clients/endpoint-calls.ts';
import { DEVELOPER, IMAGE, STUDENT, startHostingStack, type HostingStack } from '../../support/stacks/hosting-stack.ts';

let stack: HostingStack;

beforeAll(async () => {
  stack = await startHostingStack();
});

afterAll(async () => {
  await stack?.stop();
});

describe('POST /api/wordpress/passwordreset/{project}', () => {
  it('answers a new password for WordPress projects (by name or id) and 409 for others', async () => {
    const wordpress = await stack.project({ name: 'wp-site', image: IMAGE.wordpress, members: [STUDENT] });
    const plain = await stack.project({ name: 'geen-wp', image: IMAGE.static, members: [STUDENT] });
    const student = await stack.as(STUDENT);
    expect((await student.json('POST', '/api/user/dockers', { id: wordpress.id })).status).toBe(200);
    const byName = await call(student, resetWordpressPassword, { params: { project: wordpress.name } });
    expect(byName.username).toBe('admin');
    expect(byName.password.length).toBeGreaterThanOrEqual(12);
    expect((await student.json('POST', `/api/wordpress/passwordreset/${wordpress.id}`)).status).toBe(200);
    expect(await student.json('POST', `/api/wordpress/passwordreset/${plain.name}`)).toEqual({ status: 409, body: { message: 'Dit project is geen WordPress-project.' } });
    expect((await (await stack.as(DEVELOPER)).json('POST', `/api/wordpress/passwordreset/${wordpress.id}`)).status).toBe(404);
    // An id beyond PostgreSQL's integer is refused, not a 500 (found by the property test of the POST).
    for (const id of ['2147483648', '9007199254740993', '0123']) expect((await student.json('POST', `/api/wordpress/passwordreset/${id}`)).status, id).toBe(422);
  });

  it('needs the CSRF token, and the old GET answers 405 with Allow: POST and a Dutch message, without resetting', async () => {
    const wordpress = await stack.project({ name: 'wp-get', image: IMAGE.wordpress, members: [STUDENT] });
    const student = await stack.as(STUDENT);
    expect((await student.json('POST', '/api/user/dockers', { id: wordpress.id })).status).toBe(200);
    const resets = () => stack.agent.callsOf('execWordpressPasswordReset').length;
    const before = resets();
    const byGet = await student.api('GET', `/api/wordpress/passwordreset/${wordpress.name}`);
    expect(byGet.status).toBe(405);
    expect(byGet.headers.get('allow')).toBe('POST');
    expect(byGet.headers.get('content-type')).toContain('application/json');
    expect(((await byGet.json()) as { message: string }).message).toMatch(/^Een nieuw WordPress-wachtwoord vraag je aan met de knop/);
    expect((await student.api('POST', `/api/wordpress/passwordreset/${wordpress.name}`, undefined, { 'X-CSRF-TOKEN': '' })).status).toBe(419);
    expect(resets()).toBe(before);
  });
});
