/*
 * Which git clone addresses devplein accepts (issue 23): one rule for the request form, the
 * control plane and the agent. Pure TypeScript: no DOM, no Node APIs.
 *
 * Accepted: `https://host[:port]/path`, `http://…` (only when the policy allows it),
 * `git://host[:port]/path`, `ssh://[user@]host[:port]/path` and scp-like `user@host:path`, to a
 * host in the school's allow-list. Everything else is refused with a reason: `file://`, local
 * paths, `ext::`/`fd::`/any `transport::address`, addresses that look like command-line options,
 * credentials in the address, other schemes, hosts outside the list, and odd characters.
 *
 * Ports (issue 35): the dev server's firewall opens the port the address names, on every address
 * of the host, so a port is part of what the school allows. An allow-list entry without a port
 * (`git.school.nl`) allows the transport's standard port only (https 443, ssh 22, http 80, git
 * 9418); an entry with one (`git.school.nl:2222`) allows that port only. `https://git.school.nl:3306/x`
 * is refused unless `git.school.nl:3306` is on the list.
 */

/** The transports git may use for an accepted address (the fetcher re-enables only this one). */
export type RepositoryProtocol = 'https' | 'http' | 'git' | 'ssh';

/** A clone address that passed the rule. */
export interface RepositoryAddress {
  protocol: RepositoryProtocol;
  /** Lower-cased host name or IPv4 address, as in the allow-list. */
  host: string;
  /** Only when the address names one. */
  port?: number;
  /** The SSH login (`git` in `git@host:path`); only for ssh. */
  user?: string;
  /** The path as git sends it: absolute for URLs, as written for scp-like addresses. */
  path: string;
  /** Whether it was written scp-like (`git@host:path`). */
  scpLike: boolean;
  /** The address rebuilt from its parts: what is handed to git (never the raw input). */
  url: string;
}

export interface RepositoryAddressPolicy {
  /**
   * Git hosts the school allows (host names or IPv4 addresses, compared case-insensitively), each
   * optionally with the one port it allows (`git.school.nl:2222`); without one, the standard port
   * of the transport.
   */
  allowedHosts: readonly string[];
  /** Whether plain `http://` is accepted (a setting; off by default). */
  allowHttp?: boolean;
}

/** Why an address was refused (stable codes; `message` is the Dutch text for people). */
export type RepositoryAddressRefusal =
  | 'empty'
  | 'too-long'
  | 'bad-characters'
  | 'option-like'
  | 'transport-helper'
  | 'file-protocol'
  | 'local-path'
  | 'unsupported-protocol'
  | 'http-not-allowed'
  | 'credentials'
  | 'bad-host'
  | 'bad-port'
  | 'port-not-allowed'
  | 'bad-path'
  | 'host-not-allowed';

export type RepositoryAddressCheck =
  | { ok: true; address: RepositoryAddress }
  | { ok: false; reason: RepositoryAddressRefusal; message: string };

/** Longest address accepted. */
export const REPOSITORY_ADDRESS_MAX_LENGTH = 1024;

const HOST_LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const hostPattern = new RegExp(`^${HOST_LABEL}(?:\\.${HOST_LABEL})*$`);
const ipv4Pattern = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
/** An SSH login name: no spaces, quotes, colons or options. */
const userPattern = /^[a-z_][a-z0-9._-]{0,31}$/i;
/** Path characters git hosts use; no spaces, quotes, `?`, `#`, backslashes or shell characters. */
const pathPattern = /^[A-Za-z0-9._~/+%@-]*$/;

const refuse = (reason: RepositoryAddressRefusal, message: string): RepositoryAddressCheck => ({ ok: false, reason, message });

function normaliseHost(host: string): string {
  return host.toLowerCase();
}

/** The port a transport uses when the address names none. */
export const STANDARD_PORTS: Readonly<Record<RepositoryProtocol, number>> = { https: 443, http: 80, git: 9418, ssh: 22 };

/** The port git connects to for an address: its own, or the transport's standard one. */
export function repositoryPort(address: Pick<RepositoryAddress, 'protocol' | 'port'>): number {
  return address.port ?? STANDARD_PORTS[address.protocol];
}

/** An allow-list entry (`host` or `host:port`), lower-cased; undefined when it is neither. */
export function parseAllowedHost(entry: string): { host: string; port?: number } | undefined {
  const match = /^([^:\s]+)(?::(\d{1,5}))?$/.exec(entry.trim().toLowerCase());
  if (!match) return undefined;
  const port = match[2] === undefined ? undefined : Number(match[2]);
  if (port !== undefined && !(port >= 1 && port <= 65_535)) return undefined;
  return { host: match[1]!, ...(port !== undefined ? { port } : {}) };
}

/** The ports the policy allows for `host` over `protocol` (an entry's own port, or the transport's standard one). */
function allowedPorts(host: string, protocol: RepositoryProtocol, policy: RepositoryAddressPolicy): number[] {
  const ports = policy.allowedHosts
    .map(parseAllowedHost)
    .filter((entry) => entry?.host === host)
    .map((entry) => entry?.port ?? STANDARD_PORTS[protocol]);
  return [...new Set(ports)].sort((a, b) => a - b);
}

function checkAllowedPort(host: string, protocol: RepositoryProtocol, port: number | undefined, policy: RepositoryAddressPolicy): RepositoryAddressCheck | undefined {
  const wanted = repositoryPort({ protocol, ...(port !== undefined ? { port } : {}) });
  const ports = allowedPorts(host, protocol, policy);
  if (ports.includes(wanted)) return undefined;
  return refuse(
    'port-not-allowed',
    `Poort ${wanted} van de Git-server ${host} is niet toegestaan; toegestaan: ${ports.map((allowed) => `poort ${allowed}`).join(', ')}. Een andere poort moet de beheerder eerst toestaan.`,
  );
}

function checkHost(host: string, policy: RepositoryAddressPolicy): RepositoryAddressCheck | undefined {
  if (host.startsWith('[')) return refuse('bad-host', 'Een IPv6-adres als server wordt niet ondersteund; gebruik de naam van de Git-server.');
  const ipv4 = ipv4Pattern.exec(host);
  const valid = ipv4 ? ipv4.slice(1).every((part) => Number(part) <= 255 && String(Number(part)) === part) : hostPattern.test(host) && host.length <= 253;
  if (!valid) return refuse('bad-host', `"${host}" is geen geldige servernaam.`);
  const allowed = policy.allowedHosts.some((entry) => parseAllowedHost(entry)?.host === host);
  if (!allowed) {
    const list = policy.allowedHosts.length > 0 ? ` Toegestaan: ${policy.allowedHosts.join(', ')}.` : ' Er zijn nog geen Git-servers toegestaan.';
    return refuse('host-not-allowed', `De Git-server ${host} is niet toegestaan.${list}`);
  }
  return undefined;
}

function checkPath(path: string, absolute: boolean): RepositoryAddressCheck | undefined {
  if (absolute ? !path.startsWith('/') || path === '/' : path === '' || path === '/') {
    return refuse('bad-path', 'Het adres mist het pad naar de repository (bijvoorbeeld /klas/project.git).');
  }
  if (path.startsWith('-')) return refuse('option-like', 'Het pad van de repository mag niet met een streepje beginnen.');
  if (!pathPattern.test(path)) return refuse('bad-path', 'Het pad van de repository bevat tekens die niet zijn toegestaan.');
  if (path.split('/').some((segment) => segment === '..')) return refuse('bad-path', 'Het pad van de repository mag geen ".." bevatten.');
  return undefined;
}

function checkPort(port: string | undefined): { port?: number } | RepositoryAddressCheck {
  if (port === undefined) return {};
  const value = /^\d{1,5}$/.test(port) ? Number(port) : NaN;
  if (!(value >= 1 && value <= 65_535)) return refuse('bad-port', `"${port}" is geen geldig poortnummer.`);
  return { port: value };
}

const isCheck = (value: object): value is RepositoryAddressCheck => 'ok' in value;

/** Accepted schemes, their transport, and whether a login name may be given. */
const SCHEMES: Record<string, RepositoryProtocol> = { https: 'https', http: 'http', git: 'git', ssh: 'ssh' };

function checkUrl(scheme: string, rest: string, policy: RepositoryAddressPolicy): RepositoryAddressCheck {
  if (scheme === 'file') return refuse('file-protocol', 'Adressen met file:// zijn niet toegestaan: gebruik het adres van de Git-server.');
  const protocol = SCHEMES[scheme];
  if (protocol === undefined) {
    return refuse('unsupported-protocol', `Het protocol ${scheme}:// wordt niet ondersteund; gebruik https://, ssh:// of git@server:pad.`);
  }
  if (protocol === 'http' && policy.allowHttp !== true) {
    return refuse('http-not-allowed', 'Onversleuteld http:// is niet toegestaan; gebruik https://.');
  }
  const slash = rest.indexOf('/');
  const authority = slash === -1 ? rest : rest.slice(0, slash);
  const path = slash === -1 ? '' : rest.slice(slash);
  let hostPort = authority;
  let user: string | undefined;
  const at = authority.lastIndexOf('@');
  if (at !== -1) {
    const userinfo = authority.slice(0, at);
    hostPort = authority.slice(at + 1);
    if (protocol !== 'ssh' || userinfo.includes(':')) {
      return refuse('credentials', 'Zet geen gebruikersnaam, wachtwoord of token in het adres; een token vul je apart in.');
    }
    if (!userPattern.test(userinfo)) return refuse('bad-host', `"${userinfo}" is geen geldige gebruikersnaam voor SSH.`);
    user = userinfo;
  }
  if (hostPort.startsWith('[')) return refuse('bad-host', 'Een IPv6-adres als server wordt niet ondersteund; gebruik de naam van de Git-server.');
  const colon = hostPort.indexOf(':');
  const host = normaliseHost(colon === -1 ? hostPort : hostPort.slice(0, colon));
  const portCheck = checkPort(colon === -1 ? undefined : hostPort.slice(colon + 1));
  if (isCheck(portCheck)) return portCheck;
  if (host === '') return refuse('bad-host', 'Het adres mist de naam van de Git-server.');
  const hostRefusal = checkHost(host, policy);
  if (hostRefusal) return hostRefusal;
  const port = portCheck.port;
  const portRefusal = checkAllowedPort(host, protocol, port, policy);
  if (portRefusal) return portRefusal;
  const pathRefusal = checkPath(path, true);
  if (pathRefusal) return pathRefusal;
  const url = `${protocol}://${user !== undefined ? `${user}@` : ''}${host}${port !== undefined ? `:${port}` : ''}${path}`;
  return {
    ok: true,
    address: { protocol, host, ...(port !== undefined ? { port } : {}), ...(user !== undefined ? { user } : {}), path, scpLike: false, url },
  };
}

function checkScpLike(input: string, policy: RepositoryAddressPolicy): RepositoryAddressCheck {
  // git reads `[user@]host:path` as SSH when a colon comes before any slash; anything else is a local path.
  const slash = input.indexOf('/');
  const at = input.indexOf('@');
  const hasUser = at !== -1 && (slash === -1 || at < slash);
  const user = hasUser ? input.slice(0, at) : undefined;
  const rest = hasUser ? input.slice(at + 1) : input;
  const colon = rest.indexOf(':');
  const restSlash = rest.indexOf('/');
  if (colon === -1 || (restSlash !== -1 && restSlash < colon)) {
    return refuse('local-path', 'Een map op de server is geen repository-adres: gebruik het adres van de Git-server (https://… of git@server:pad).');
  }
  const host = normaliseHost(rest.slice(0, colon));
  const path = rest.slice(colon + 1);
  if (user !== undefined && !userPattern.test(user)) {
    return user.includes(':')
      ? refuse('credentials', 'Zet geen gebruikersnaam, wachtwoord of token in het adres; een token vul je apart in.')
      : refuse('bad-host', `"${user}" is geen geldige gebruikersnaam voor SSH.`);
  }
  if (host === '') return refuse('bad-host', 'Het adres mist de naam van de Git-server.');
  const hostRefusal = checkHost(host, policy);
  if (hostRefusal) return hostRefusal;
  const portRefusal = checkAllowedPort(host, 'ssh', undefined, policy);
  if (portRefusal) return portRefusal;
  const pathRefusal = checkPath(path, false);
  if (pathRefusal) return pathRefusal;
  const url = `${user !== undefined ? `${user}@` : ''}${host}:${path}`;
  return { ok: true, address: { protocol: 'ssh', host, ...(user !== undefined ? { user } : {}), path, scpLike: true, url } };
}

/**
 * Checks a clone address against the rule and the school's allow-list. The input is trimmed;
 * an accepted address comes back rebuilt from its parts (`url`), which is what git gets.
 */
export function checkRepositoryAddress(raw: string, policy: RepositoryAddressPolicy): RepositoryAddressCheck {
  const input = raw.trim();
  if (input === '') return refuse('empty', 'Vul het adres van de repository in.');
  if (input.length > REPOSITORY_ADDRESS_MAX_LENGTH) return refuse('too-long', 'Het adres van de repository is te lang.');
  // eslint-disable-next-line no-control-regex
  if (/[\s\u0000-\u001f\u007f"'`\\$;|&<>(){}*?!#^]/.test(input)) {
    return refuse('bad-characters', 'Het adres bevat spaties of tekens die niet zijn toegestaan.');
  }
  if (input.startsWith('-')) return refuse('option-like', 'Een adres mag niet met een streepje beginnen.');
  const helper = /^([A-Za-z][A-Za-z0-9+.-]*)::/.exec(input);
  if (helper) return refuse('transport-helper', `Adressen met ${helper[1]}:: zijn niet toegestaan: gebruik het adres van de Git-server.`);
  const url = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/(.*)$/.exec(input);
  if (url) return checkUrl(url[1]!.toLowerCase(), url[2]!, policy);
  if (input.startsWith('/') || input.startsWith('.') || input.startsWith('~')) {
    return refuse('local-path', 'Een map op de server is geen repository-adres: gebruik het adres van de Git-server (https://… of git@server:pad).');
  }
  return checkScpLike(input, policy);
}

/** A branch name git accepts and that cannot be read as an option or a range. */
export function isSafeBranchName(branch: string): boolean {
  return (
    /^[A-Za-z0-9._/-]{1,200}$/.test(branch) &&
    !branch.startsWith('-') &&
    !branch.startsWith('/') &&
    !branch.endsWith('/') &&
    !branch.endsWith('.') &&
    !branch.endsWith('.lock') &&
    !branch.includes('..') &&
    !branch.includes('//') &&
    !branch.split('/').some((part) => part.startsWith('.'))
  );
}

/** The branch rule's Dutch message (the request form and the control plane). */
export const BRANCH_MESSAGE = 'Geef een geldige branchnaam, zoals main of develop (letters, cijfers, . _ / en -).';
