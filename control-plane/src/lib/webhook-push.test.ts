import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkSignature, hookEvent, readPush, sameSecret } from './webhook-push.ts';

const secret = 'geheim-van-de-webhook';
const body = Buffer.from(JSON.stringify({ ref: 'refs/heads/main', after: 'a'.repeat(40) }));
const hex = createHmac('sha256', secret).update(body).digest('hex');

describe('checkSignature', () => {
  it('accepts each git server scheme with the right secret', () => {
    expect(checkSignature({ 'x-gitea-signature': hex }, body, secret)).toEqual({ ok: true, sender: 'gitea' });
    expect(checkSignature({ 'x-forgejo-signature': hex.toUpperCase() }, body, secret)).toEqual({ ok: true, sender: 'forgejo' });
    expect(checkSignature({ 'x-hub-signature-256': `sha256=${hex}` }, body, secret)).toEqual({ ok: true, sender: 'github' });
    expect(checkSignature({ 'x-gitlab-token': secret }, body, secret)).toEqual({ ok: true, sender: 'gitlab' });
  });

  it('refuses a wrong signature, another body, a wrong token and no signature', () => {
    const wrong = createHmac('sha256', 'een-ander-geheim').update(body).digest('hex');
    expect(checkSignature({ 'x-gitea-signature': wrong }, body, secret)).toEqual({ ok: false, reason: 'bad' });
    expect(checkSignature({ 'x-hub-signature-256': `sha256=${hex}` }, Buffer.from('{}'), secret)).toEqual({ ok: false, reason: 'bad' });
    expect(checkSignature({ 'x-hub-signature-256': hex }, body, secret)).toEqual({ ok: false, reason: 'bad' });
    expect(checkSignature({ 'x-gitlab-token': `${secret}x` }, body, secret)).toEqual({ ok: false, reason: 'bad' });
    expect(checkSignature({}, body, secret)).toEqual({ ok: false, reason: 'missing' });
  });

  it('compares secrets of different lengths without throwing', () => {
    expect(sameSecret('a', 'abc')).toBe(false);
    expect(sameSecret('abc', 'abc')).toBe(true);
  });
});

describe('hookEvent', () => {
  it('knows pushes and pings of each server', () => {
    expect(hookEvent({ 'x-github-event': 'push' })).toBe('push');
    expect(hookEvent({ 'x-gitea-event': 'push' })).toBe('push');
    expect(hookEvent({ 'x-gitlab-event': 'Push Hook' })).toBe('push');
    expect(hookEvent({ 'x-github-event': 'ping' })).toBe('ping');
    expect(hookEvent({ 'x-gitlab-event': 'Tag Push Hook' })).toBe('other');
    expect(hookEvent({})).toBe('other');
  });
});

describe('readPush', () => {
  it('reads the branch, the new commit and the default branch (GitHub/Gitea and GitLab)', () => {
    const after = 'b'.repeat(40);
    expect(readPush({ ref: 'refs/heads/main', after, repository: { default_branch: 'main' }, head_commit: { message: 'Nieuwe tekst\n\nmeer', author: { name: 'Sam' }, timestamp: '2026-11-27T10:00:00Z' } })).toEqual({
      branch: 'main',
      after,
      defaultBranch: 'main',
      headCommit: { subject: 'Nieuwe tekst', author: 'Sam', time: '2026-11-27T10:00:00Z' },
    });
    expect(readPush({ ref: 'refs/heads/dev', after, project: { default_branch: 'main' }, commits: [{ id: after, message: 'x', author: { name: 'Kim' } }] })).toMatchObject({ branch: 'dev', defaultBranch: 'main', headCommit: { author: 'Kim' } });
  });

  it('sees a deleted branch, a tag, and what is not a push', () => {
    expect(readPush({ ref: 'refs/heads/main', after: '0'.repeat(40) })?.after).toBeNull();
    expect(readPush({ ref: 'refs/tags/v1', after: 'c'.repeat(40) })?.branch).toBeNull();
    expect(readPush({ ref: 'refs/heads/main', after: 'xyz' })).toBeNull();
    expect(readPush([])).toBeNull();
  });
});
