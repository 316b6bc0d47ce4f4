/**
 * Reading what systemd reads: an EnvironmentFile= (KEY=value lines) and the Environment= and
 * LoadCredential= settings of a unit file. `devplein config check` uses them to see a service's
 * settings as its unit would hand them over; the deploy-files test to check the shipped files.
 */

/** An env file as systemd's EnvironmentFile= reads it: the values, the keys in order, and the lines it would ignore. */
export interface EnvFile {
  values: Record<string, string>;
  keys: string[];
  /** 1-based numbers of lines that are no KEY=value assignment (systemd skips them with a warning). */
  invalidLines: number[];
}

/** KEY=value lines (comments with # or ;, blank lines, one pair of quotes around a value). */
export function parseEnvFile(text: string): EnvFile {
  const values: Record<string, string> = {};
  const keys: string[] = [];
  const invalidLines: number[] = [];
  text.split('\n').forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) return;
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (!match) {
      invalidLines.push(index + 1);
      return;
    }
    const [, key = '', rawValue = ''] = match;
    const quoted = /^"(.*)"$/.exec(rawValue) ?? /^'(.*)'$/.exec(rawValue);
    keys.push(key);
    values[key] = quoted ? (quoted[1] ?? '') : rawValue;
  });
  return { values, keys, invalidLines };
}

/** `Key=value` settings of a unit file (last one wins, as in systemd for most keys). */
export function unitSettings(text: string): Map<string, string> {
  const settings = new Map<string, string>();
  for (const line of text.split('\n')) {
    const match = /^([A-Za-z]+)=(.*)$/.exec(line.trim());
    if (match?.[1] !== undefined) settings.set(match[1], match[2] ?? '');
  }
  return settings;
}

/** Every value of a setting that may be given more than once (LoadCredential=, Environment=). */
export function unitValues(text: string, key: string): string[] {
  return text.split('\n').flatMap((line) => (line.startsWith(`${key}=`) ? [line.slice(key.length + 1)] : []));
}

/** The `<file>` of each `LoadCredential=<name>:<file>`, by name. */
export function unitCredentials(text: string): Map<string, string> {
  return new Map(
    unitValues(text, 'LoadCredential').map((value) => [value.slice(0, value.indexOf(':')), value.slice(value.indexOf(':') + 1)] as const),
  );
}

/**
 * A unit's Environment= settings (space-separated KEY=value pairs; deploy/ uses no quoting), with
 * `%d` (the credentials folder) replaced by `credentialsDir`.
 */
export function unitEnvironment(text: string, credentialsDir: string): Record<string, string> {
  const pairs = unitValues(text, 'Environment').flatMap((value) => value.split(' ').filter(Boolean));
  return Object.fromEntries(pairs.map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1).replaceAll('%d', credentialsDir)]));
}

/** The credentials folder systemd gives a running unit (`%d`, $CREDENTIALS_DIRECTORY). */
export const credentialsDirOf = (unitName: string): string => `/run/credentials/${unitName}`;

/**
 * The settings with each path into the unit's credentials folder (which exists only while the
 * service runs) replaced by the file LoadCredential= copies that credential from: what a check
 * outside the service can look at.
 */
export function credentialsAtRest(env: Record<string, string>, unitText: string, unitName: string): Record<string, string> {
  const credentials = unitCredentials(unitText);
  const folder = `${credentialsDirOf(unitName)}/`;
  return Object.fromEntries(
    Object.entries(env).map(([key, value]) => {
      const source = value.startsWith(folder) ? credentials.get(value.slice(folder.length)) : undefined;
      return [key, source ?? value];
    }),
  );
}
