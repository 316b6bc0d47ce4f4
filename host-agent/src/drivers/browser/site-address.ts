/**
 * Which addresses the screenshot browser may visit: only `http://{label}.{siteDomain}/` as a
 * capture target, and only hosts under the dev domain for anything a page loads. Everything
 * else is refused before the browser sees it (the agent must never become an open fetcher).
 */

/** One DNS label: letters, digits and inner hyphens, at most 63 characters. */
const labelPattern = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** A capture target that is not `{label}.{siteDomain}`; the message says why. */
export class SiteAddressError extends Error {}

/**
 * The project domain to capture, lower-cased, or a SiteAddressError. Accepts exactly one label
 * in front of the dev domain ("blog.dev.school.nl"); refuses schemes, ports, paths, userinfo,
 * IP literals, trailing dots and every other domain.
 */
export function parseCaptureDomain(input: string, siteDomain: string): string {
  const domain = input.trim().toLowerCase();
  if (domain === '') throw new SiteAddressError('domain is required');
  if (domain.length > 253) throw new SiteAddressError('domain is too long');
  if (/[/:@?#\\\s[\]]/.test(domain)) {
    throw new SiteAddressError(`domain must be a bare host name like blog.${siteDomain} (no scheme, port, path or user)`);
  }
  if (/^\d+(\.\d+){3}$/.test(domain)) throw new SiteAddressError('an IP address cannot be captured, only a project domain');
  const suffix = `.${siteDomain}`;
  if (!domain.endsWith(suffix)) throw new SiteAddressError(`only project domains under ${siteDomain} can be captured`);
  const label = domain.slice(0, -suffix.length);
  if (!labelPattern.test(label)) throw new SiteAddressError(`domain must be one label in front of ${siteDomain}, like blog.${siteDomain}`);
  return domain;
}

/** Whether a page may load `url`: http(s) on the dev domain or a host under it (other projects' sites included). */
export function isSiteUrl(url: string, siteDomain: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return false;
  if (parsed.username !== '' || parsed.password !== '') return false;
  return isSiteHost(parsed.hostname, siteDomain);
}

/** Whether `host` is the dev domain or a name under it. */
export function isSiteHost(host: string, siteDomain: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return name === siteDomain || name.endsWith(`.${siteDomain}`);
}
