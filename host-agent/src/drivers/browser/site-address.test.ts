import { describe, expect, it } from 'vitest';
import { isSiteHost, isSiteUrl, parseCaptureDomain, SiteAddressError } from './site-address.ts';

const site = 'dev.school.nl';

describe('parseCaptureDomain', () => {
  it('accepts one label in front of the dev domain, lower-cased', () => {
    expect(parseCaptureDomain('blog.dev.school.nl', site)).toBe('blog.dev.school.nl');
    expect(parseCaptureDomain(' Blog-2.DEV.school.nl ', site)).toBe('blog-2.dev.school.nl');
  });

  it.each([
    '',
    'dev.school.nl',
    'a.b.dev.school.nl',
    'http://blog.dev.school.nl',
    'blog.dev.school.nl:80',
    'blog.dev.school.nl/admin',
    'user@blog.dev.school.nl',
    'blog.dev.school.nl.',
    'blog.dev.school.nl?x=1',
    '127.0.0.1',
    '[::1]',
    'example.org',
    'blogdev.school.nl',
    'blog.dev.school.nl.evil.org',
    '-blog.dev.school.nl',
    'blog_.dev.school.nl',
    'sïte.dev.school.nl',
  ])('refuses %j', (input) => {
    expect(() => parseCaptureDomain(input, site)).toThrow(SiteAddressError);
  });
});

describe('isSiteUrl', () => {
  it('allows http(s) under the dev domain only', () => {
    expect(isSiteUrl('http://blog.dev.school.nl/style.css', site)).toBe(true);
    expect(isSiteUrl('https://other.dev.school.nl/x.png', site)).toBe(true);
    expect(isSiteUrl('http://dev.school.nl/', site)).toBe(true);
    expect(isSiteUrl('http://example.org/', site)).toBe(false);
    expect(isSiteUrl('http://evildev.school.nl/', site)).toBe(false);
    expect(isSiteUrl('http://127.0.0.1:2019/config/', site)).toBe(false);
    expect(isSiteUrl('ftp://blog.dev.school.nl/', site)).toBe(false);
    expect(isSiteUrl('http://user:pw@blog.dev.school.nl/', site)).toBe(false);
    expect(isSiteUrl('not a url', site)).toBe(false);
  });

  it('compares host names without case or a trailing dot', () => {
    expect(isSiteHost('Blog.Dev.School.NL.', site)).toBe(true);
    expect(isSiteHost('school.nl', site)).toBe(false);
  });
});
