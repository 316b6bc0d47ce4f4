import { describe, expect, it } from 'vitest';
import { isSafeBranchName } from '@devplein/contract/validation/repositoryAddress';
import { classifyFailure } from './repository-fetcher.ts';

describe('isSafeBranchName', () => {
  it.each(['main', 'productie', 'feature/nieuw-menu', 'v1.2', 'release_2026'])('accepts %s', (branch) => {
    expect(isSafeBranchName(branch)).toBe(true);
  });
  it.each(['', '-x', '--upload-pack=id', 'a..b', 'a//b', '/main', 'main/', 'main.lock', 'a/.hidden', 'main.', 'a b', 'a:b', 'a~1', 'HEAD^', 'x;id'])('refuses %j', (branch) => {
    expect(isSafeBranchName(branch)).toBe(false);
  });
});

describe('classifyFailure', () => {
  it.each([
    [["fatal: unable to access 'https://git.school.nl/redirect/a.git/': The requested URL returned error: 302"], 'redirect'],
    [["fatal: unable to access 'https://git.school.nl/a.git/': The requested URL returned error: 401"], 'auth'],
    [['git@git.school.nl: Permission denied (publickey).', 'fatal: Could not read from remote repository.'], 'auth'],
    [["fatal: could not read Username for 'https://git.school.nl': terminal prompts disabled"], 'auth'],
    [['warning: Could not find remote branch x to clone.', 'fatal: Remote branch x not found in upstream origin'], 'not-found'],
    [['fatal: remote error: access denied or repository not exported: /a.git'], 'not-found'],
    [['fatal: the remote end hung up unexpectedly'], 'git-failed'],
  ])('%j → %s', (messages, reason) => {
    expect(classifyFailure(messages).reason).toBe(reason);
  });

  it('does not read "redirect" in an address as a redirect', () => {
    expect(classifyFailure(["fatal: unable to access 'https://git.school.nl/redirect/a.git/': Could not resolve host"]).reason).toBe('git-failed');
  });
});
