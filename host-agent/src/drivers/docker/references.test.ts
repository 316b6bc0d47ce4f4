import { describe, expect, it } from 'vitest';
import { DockerError } from './docker-errors.ts';
import { hasRegistryHost, parseContainerName, parseDomain, parseId, parseImageReference, parseProjectContainerName, registryOf } from './references.ts';

function refusal(work: () => unknown): DockerError {
  try {
    work();
  } catch (error) {
    if (error instanceof DockerError) return error;
    throw error;
  }
  throw new Error('expected a DockerError');
}

describe('container names', () => {
  it('takes project names of a-z and hyphens, 2 to 63 long', () => {
    expect(parseProjectContainerName('blog')).toBe('blog');
    expect(parseProjectContainerName('my-blog')).toBe('my-blog');
    expect(parseProjectContainerName('a'.repeat(63))).toHaveLength(63);
    for (const bad of ['a', 'Blog', 'blog1', '-blog', 'blog-', 'my_blog', 'a'.repeat(64), '', '../etc']) {
      expect(refusal(() => parseProjectContainerName(bad)).kind).toBe('invalid-argument');
    }
  });

  it("takes any Docker name for existing containers, with or without Docker's slash", () => {
    expect(parseContainerName('/my_container.1')).toBe('my_container.1');
    expect(refusal(() => parseContainerName('a b')).kind).toBe('invalid-argument');
    expect(refusal(() => parseContainerName('')).kind).toBe('invalid-argument');
  });
});

describe('parseDomain', () => {
  it('lower-cases host names and refuses anything else', () => {
    expect(parseDomain(' Blog.Dev.School.NL ')).toBe('blog.dev.school.nl');
    for (const bad of ['', '*.school.nl', 'blog.school.nl:80', 'blog/x', 'a..b', '-a.nl', 'a b.nl']) {
      expect(refusal(() => parseDomain(bad)).kind).toBe('invalid-argument');
    }
  });
});

describe('parseImageReference', () => {
  it("follows Docker's reference grammar", () => {
    for (const good of ['busybox', 'devplein/php:8.3', '127.0.0.1:5000/web:1', 'registry.school.nl/team/app@sha256:' + 'a'.repeat(64), 'localhost/x']) {
      expect(parseImageReference(good)).toBe(good);
    }
    for (const bad of ['', 'team/Upper', 'a b', 'name:tag:tag', '-x', 'x;rm -rf /', 'x:' + 't'.repeat(129)]) {
      expect(refusal(() => parseImageReference(bad)).kind).toBe('invalid-argument');
    }
  });

  it('knows which registry a reference names', () => {
    expect(hasRegistryHost('127.0.0.1:5000/web:1')).toBe(true);
    expect(hasRegistryHost('devplein/php:8.3')).toBe(false);
    expect(registryOf('registry.school.nl/php')).toBe('registry.school.nl');
    expect(registryOf('nginx')).toBe('docker.io');
  });
});

describe('parseId', () => {
  it('takes positive integers only', () => {
    expect(parseId(7, 'project_id')).toBe(7);
    for (const bad of [0, -1, 1.5, Number.NaN]) expect(refusal(() => parseId(bad, 'project_id')).message).toContain('project_id');
  });
});
