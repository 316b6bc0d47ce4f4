import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/*
 * The deploy webhook's checks (issue 23), pure: which git server signed a request and whether the
 * signature holds, which event it is, and what a push names. Gitea and Forgejo sign the body with
 * HMAC-SHA256 (hex, X-Gitea-Signature / X-Forgejo-Signature), GitHub likewise with a prefix
 * (X-Hub-Signature-256: sha256=<hex>); GitLab sends the secret itself (X-Gitlab-Token). Every
 * comparison takes the same time whatever matches.
 */

/** Request headers as Node gives them (lower-case names). */
export type HookHeaders = Record<string, string | string[] | undefined>;

export type HookSender = 'gitea' | 'forgejo' | 'github' | 'gitlab';

export type SignatureCheck = { ok: true; sender: HookSender } | { ok: false; reason: 'missing' | 'bad' };

const header = (headers: HookHeaders, name: string): string | undefined => {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/** Equal in constant time (both sides hashed first, so their lengths do not show). */
export function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b) && given.length === expected.length;
}

/** Whether the request is signed with `secret` by one of the supported git servers. */
export function checkSignature(headers: HookHeaders, body: Buffer, secret: string): SignatureCheck {
  const hmac = () => createHmac('sha256', secret).update(body).digest('hex');
  const gitea = header(headers, 'x-gitea-signature');
  const forgejo = header(headers, 'x-forgejo-signature');
  const github = header(headers, 'x-hub-signature-256');
  const gitlab = header(headers, 'x-gitlab-token');
  if (forgejo !== undefined) return sameSecret(forgejo.trim().toLowerCase(), hmac()) ? { ok: true, sender: 'forgejo' } : { ok: false, reason: 'bad' };
  if (gitea !== undefined) return sameSecret(gitea.trim().toLowerCase(), hmac()) ? { ok: true, sender: 'gitea' } : { ok: false, reason: 'bad' };
  if (github !== undefined) return sameSecret(github.trim().toLowerCase(), `sha256=${hmac()}`) ? { ok: true, sender: 'github' } : { ok: false, reason: 'bad' };
  if (gitlab !== undefined) return sameSecret(gitlab, secret) ? { ok: true, sender: 'gitlab' } : { ok: false, reason: 'bad' };
  return { ok: false, reason: 'missing' };
}

/** What the event header says: a push, a ping (the server testing the hook), or anything else. */
export function hookEvent(headers: HookHeaders): 'push' | 'ping' | 'other' {
  const name = (header(headers, 'x-github-event') ?? header(headers, 'x-forgejo-event') ?? header(headers, 'x-gitea-event') ?? header(headers, 'x-gitlab-event') ?? '')
    .trim()
    .toLowerCase();
  if (name === 'push' || name === 'push hook') return 'push';
  return name === 'ping' ? 'ping' : 'other';
}

/** A push as the deploy needs it. */
export interface PushEvent {
  /** The branch pushed to (refs/heads/ stripped); null for a tag or another ref. */
  branch: string | null;
  /** The new commit (40 hex); null when the ref was deleted. */
  after: string | null;
  /** The repository's default branch as the payload names it; null when it does not. */
  defaultBranch: string | null;
  /** The head commit's message (first line) and author, when the payload has them. */
  headCommit: { subject: string; author: string; time: string | null } | null;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
/** A string of the payload, without U+0000 (PostgreSQL's text cannot hold it). */
const text = (value: unknown): string | null => (typeof value === 'string' ? value.replaceAll('\u0000', '') : null);

/** Reads a push payload (Gitea/Forgejo, GitHub, GitLab); null when it is not one. */
export function readPush(payload: unknown): PushEvent | null {
  if (!isRecord(payload)) return null;
  const ref = text(payload.ref);
  const after = text(payload.after)?.toLowerCase() ?? null;
  if (ref === null || after === null || !/^[0-9a-f]{40}$/.test(after)) return null;
  const repository = isRecord(payload.repository) ? payload.repository : {};
  const project = isRecord(payload.project) ? payload.project : {};
  const defaultBranch = text(repository.default_branch) ?? text(project.default_branch);
  const head = isRecord(payload.head_commit) ? payload.head_commit : Array.isArray(payload.commits) ? (payload.commits.filter(isRecord).find((each) => text(each.id) === after) ?? null) : null;
  const author = head && isRecord(head.author) ? (text(head.author.name) ?? '') : '';
  return {
    branch: ref.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : null,
    after: /^0{40}$/.test(after) ? null : after,
    defaultBranch,
    headCommit: head ? { subject: (text(head.message) ?? '').split('\n')[0]?.slice(0, 500) ?? '', author: author.slice(0, 200), time: text(head.timestamp) } : null,
  };
}
