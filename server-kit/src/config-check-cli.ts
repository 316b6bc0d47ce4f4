/**
 * `devplein config check [ROL] [--file F] [--unit U] [--env]` (like `nginx -t`): checks a
 * role's settings with that process's own schema and names each wrong or missing variable in
 * Dutch; exit code 0 when in order, 1 when not, 2 on a wrong command line. Each role's entry
 * (control plane, agent) brings its own checks; this is the command around them.
 *
 * By hand it reads the role's env file, with the Environment= settings of its unit (a
 * credential's `%d/NAME` read as the file LoadCredential= copies). The units run it as
 * ExecStartPre with --env: then it checks the environment systemd hands the service, as the
 * service's user in its sandbox, so a file it calls readable is readable for the service.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { type ConfigProblem, variableLabel } from './config-problems.ts';
import { forJournal } from './journald-log.ts';
import { credentialsAtRest, credentialsDirOf, parseEnvFile, unitEnvironment } from './systemd-files.ts';

/** One role's check: what its process would refuse in `env`, or find missing on disk. */
export interface ConfigCheckRole {
  name: string;
  check(env: Record<string, string | undefined>): ConfigProblem[];
}

/** Where install.sh puts a role's env file (DEVPLEIN_CONFIG_DIR moves the folder, as for devplein backup). */
export const envFileOf = (role: string): string => path.join(process.env.DEVPLEIN_CONFIG_DIR || '/etc/devplein', `${role}.env`);
/** Where install.sh puts a role's unit. */
export const unitFileOf = (role: string): string => `/etc/systemd/system/devplein-${role}.service`;

const USAGE = `Gebruik: devplein config check [control-plane|agent|soketi] [--file BESTAND] [--unit UNIT] [--env]
  zonder rol: elke rol waarvan /etc/devplein/<rol>.env bestaat
  --file BESTAND  een ander env-bestand dan /etc/devplein/<rol>.env
  --unit UNIT     het unitbestand met de Environment=- en LoadCredential=-regels (standaard /etc/systemd/system/devplein-<rol>.service)
  --env           controleert de omgeving van dit proces (zo draait de unit het als ExecStartPre)`;

interface Options {
  file?: string;
  unit?: string;
  env: boolean;
}

/** The settings to check and where they came from, or the problem that the file itself has. */
function settingsOf(role: string, options: Options): { env: Record<string, string | undefined> | null; source: string; problems: ConfigProblem[] } {
  if (options.env) return { env: process.env, source: `de omgeving van devplein-${role}.service`, problems: [] };
  const file = options.file ?? envFileOf(role);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'bestaat niet' : 'is niet leesbaar (draai de controle als root)';
    return { env: null, source: file, problems: [{ variable: file, problem: `het env-bestand ${reason}` }] };
  }
  const parsed = parseEnvFile(text);
  const problems = parsed.invalidLines.map((line) => ({
    variable: `${file}:${line}`,
    problem: 'is geen regel NAAM=waarde; verwacht: NAAM=waarde (zonder spaties rond =) of een commentaarregel met #',
  }));
  const unit = options.unit ?? unitFileOf(role);
  if (!existsSync(unit)) return { env: parsed.values, source: file, problems };
  const unitText = readFileSync(unit, 'utf8');
  const unitName = path.basename(unit);
  // The env file's settings win over the unit's Environment=, as in systemd.
  const env = { ...unitEnvironment(unitText, credentialsDirOf(unitName)), ...parsed.values };
  return { env: credentialsAtRest(env, unitText, unitName), source: file, problems };
}

/** Checks one role; writes the verdict (problems to stderr, "in orde" to stdout); true when in order. */
function checkRole(role: ConfigCheckRole, options: Options): boolean {
  const { env, source, problems: fileProblems } = settingsOf(role.name, options);
  const problems = env === null ? fileProblems : [...fileProblems, ...role.check(env)];
  if (problems.length === 0) {
    process.stdout.write(forJournal(`devplein config check: ${role.name} (${source}) is in orde\n`, 6, 1));
    return true;
  }
  const lines = [
    `devplein config check: ${role.name} (${source}): ${problems.length === 1 ? '1 instelling klopt' : `${problems.length} instellingen kloppen`} niet`,
    ...problems.map(({ variable, problem }) => `  ${variableLabel(variable, env ?? {})}: ${problem}`),
  ];
  process.stderr.write(forJournal(`${lines.join('\n')}\n`, 3, 2));
  return false;
}

/** Runs the command for `argv` (without the `config check` words) over `roles`; the exit code. */
export function runConfigCheck(argv: string[], roles: ConfigCheckRole[]): number {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { file: { type: 'string' }, unit: { type: 'string' }, env: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (error) {
    process.stderr.write(`devplein config check: verkeerde opdrachtregel (${(error as Error).message})\n${USAGE}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const options: Options = { file: values.file, unit: values.unit, env: values.env ?? false };
  const [name, ...extra] = positionals;
  if (extra.length > 0) {
    process.stderr.write(`devplein config check: één rol tegelijk, niet ${positionals.join(' ')}\n${USAGE}\n`);
    return 2;
  }
  if (name !== undefined && !roles.some((role) => role.name === name)) {
    process.stderr.write(`devplein config check: onbekende rol ${name}; kies uit ${roles.map((role) => role.name).join(', ')}\n${USAGE}\n`);
    return 2;
  }
  if (name === undefined && (options.file !== undefined || options.unit !== undefined || options.env)) {
    process.stderr.write(`devplein config check: noem de rol bij --file, --unit of --env\n${USAGE}\n`);
    return 2;
  }
  const chosen = name !== undefined ? roles.filter((role) => role.name === name) : roles.filter((role) => existsSync(envFileOf(role.name)));
  if (chosen.length === 0) {
    process.stderr.write(`devplein config check: geen instellingen gevonden (${roles.map((role) => envFileOf(role.name)).join(', ')})\n`);
    return 1;
  }
  // Every role is checked, also after one that is wrong: the report names them all.
  const results = chosen.map((role) => checkRole(role, options));
  return results.every(Boolean) ? 0 : 1;
}
