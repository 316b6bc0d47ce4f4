/**
 * The address a stored git credential belongs to (issue 35). A token entered for one repository
 * is sent only to that repository: the project's `repro` is compared with the address the token
 * was stored for, as this function writes both. Scheme, host, port and path count; the host is
 * lower-cased, a default port (443 for https, 80 for http, 22 for ssh, 9418 for git) is left out,
 * a login name is left out, and trailing slashes and one trailing `.git` are not a difference.
 * The path's case counts (git servers differ on that, so the safe answer is "another address").
 * Pure: no policy, so the migration and the deploy agree on every stored address.
 */

const DEFAULT_PORTS: Record<string, number> = { https: 443, http: 80, ssh: 22, git: 9418 };

/** The binding form of a clone address; null when it is not an address at all. */
export function credentialAddressOf(raw: string | null): string | null {
  if (raw === null) return null;
  const input = raw.trim();
  let scheme: string;
  let host: string;
  let port: number | undefined;
  let path: string;
  const url = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/(?:[^@/]*@)?([^/:@]+)(?::(\d{1,5}))?(\/[^?#]*)?$/.exec(input);
  if (url) {
    scheme = (url[1] as string).toLowerCase();
    host = (url[2] as string).toLowerCase();
    port = url[3] === undefined ? undefined : Number(url[3]);
    path = url[4] ?? '';
  } else {
    // scp-like: [user@]host:path
    const scp = /^(?:[^@/:]+@)?([^/:@]+):([^?#]+)$/.exec(input);
    if (!scp) return null;
    scheme = 'ssh';
    host = (scp[1] as string).toLowerCase();
    path = `/${(scp[2] as string).replace(/^\/+/, '')}`;
  }
  path = path.replace(/\/+$/, '').replace(/\.git$/, '').replace(/\/+$/, '');
  if (path === '' || host === '') return null;
  const shownPort = port !== undefined && port !== DEFAULT_PORTS[scheme] ? `:${port}` : '';
  return `${scheme}://${host}${shownPort}${path}`;
}

/** Whether a credential stored for `stored` may be sent to `repro`. */
export const credentialFits = (stored: string, repro: string | null): boolean => {
  const address = credentialAddressOf(repro);
  return address !== null && address === stored;
};
