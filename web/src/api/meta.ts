/**
 * The control plane fills `<meta name="..." content="__NAME__">` placeholders in index.html when it
 * serves the page. A tag that is missing, empty or still holds its `__PLACEHOLDER__` (for example
 * under `vite preview`) counts as not set, so callers can fall back instead of using the marker.
 */
export function readMeta(name: string, doc: Document = document): string | null {
  const tag = doc.querySelector<HTMLMetaElement>(`meta[name="${name}"]`);
  const content = tag?.content.trim() ?? '';
  if (content === '' || /^__[A-Z_]+__$/.test(content)) return null;
  return content;
}

/** Short name of the school identity provider, used in the login path `/auth/{name}`. */
export function ssoProviderName(doc: Document = document): string {
  return readMeta('sso-provider', doc) ?? 'school';
}

/** Database administration (phpMyAdmin) address; the databases page links `{url}?db={name}&link=true`. */
export function dbAdminUrl(doc: Document = document): string {
  return readMeta('db-admin-url', doc) ?? '/phpmyadmin/';
}

/** True when the databases page's admin link signs the student in to phpMyAdmin (DB_ADMIN_SIGNON_URL set). */
export function dbAdminSignon(doc: Document = document): boolean {
  return readMeta('db-admin-signon', doc) === 'true';
}

/** The dev server's internal (VPN) host where the students' MariaDB listens. */
export function dbHost(doc: Document = document): string {
  return readMeta('db-host', doc) ?? '10.8.0.1';
}

/** The port it listens on: 3306 on a dev server (spec §9); `npm start`'s own MariaDB has another. */
export function dbPort(doc: Document = document): number {
  const port = Number(readMeta('db-port', doc));
  return Number.isInteger(port) && port > 0 && port < 65536 ? port : 3306;
}
