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

/** The dev server's internal (VPN) host where the students' MariaDB listens on port 3306. */
export function dbHost(doc: Document = document): string {
  return readMeta('db-host', doc) ?? '10.8.0.1';
}
