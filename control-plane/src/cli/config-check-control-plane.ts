/**
 * `devplein config check control-plane`: what the control plane would refuse at start-up
 * (config.ts: its schema, the production placeholders, the agent links and group mapping
 * files), and the files its settings name that it could not read.
 */
import type { ConfigCheckRole } from '@devplein/server-kit/config-check-cli';
import { type ConfigProblem, pathProblems, schemaProblems } from '@devplein/server-kit/config-problems';
import { ConfigError, configSchema, givenSettings, loadConfig, placeholderSecrets } from '../config.ts';

/** placeholderSecrets' reasons, in Dutch. */
function placeholderProblem(reason: string): string {
  const defaultValue = /^is the default value (.*)$/.exec(reason);
  const own = 'productie vraagt een eigen, geheime waarde (het env-bestand zegt bij de instelling hoe je die maakt)';
  if (defaultValue) return `is de standaardwaarde ${defaultValue[1] ?? ''}; ${own}`;
  return `is nog een voorbeeldwaarde (CHANGE_ME of iets dergelijks); ${reason.startsWith('still contains') ? 'vul de echte waarde in' : own}`;
}

/** loadConfig's lines after the schema (`  AGENT_LINKS_FILE /x.json [0.name]: …`) as problems. */
function loadProblems(given: Record<string, string>): ConfigProblem[] {
  try {
    loadConfig(given, () => 'alleen-voor-de-controle-'.repeat(2));
    return [];
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return error.message
      .split('\n')
      .slice(1)
      .map((line) => {
        const match = /^\s*([A-Z][A-Z0-9_]*)\s*(.*)$/.exec(line);
        return { variable: match?.[1] ?? '(omgeving)', problem: `de inhoud klopt niet: ${(match?.[2] ?? line).replace(/^:\s*/, '')}` };
      });
  }
}

/** The files the control plane reads at start (the links and mapping files, the agent link's certificates and CA key). */
function namedFiles(given: Record<string, string>): ConfigProblem[] {
  const names = ['AGENT_LINKS_FILE', 'OIDC_GROUPS_MAPPING_FILE', 'AGENT_TLS_CA', 'AGENT_TLS_CERT', 'AGENT_TLS_KEY', 'AGENT_CA_KEY_FILE'];
  return pathProblems(names.flatMap((variable) => (given[variable] ? [{ variable, path: given[variable], kind: 'file' as const }] : [])));
}

export const controlPlaneCheck: ConfigCheckRole = {
  name: 'control-plane',
  check(env) {
    const given = givenSettings(env);
    const placeholders = given.NODE_ENV === 'production' ? placeholderSecrets(given) : [];
    const named = new Set(placeholders.map(([variable]) => variable));
    const problems = [
      ...placeholders.map(([variable, reason]) => ({ variable, problem: placeholderProblem(reason) })),
      // A placeholder is named once, not again for its length.
      ...schemaProblems(configSchema, given).filter((problem) => !named.has(problem.variable)),
    ];
    const files = namedFiles(given);
    const unreadable = new Set(files.map((problem) => problem.variable));
    // The contents of the links and mapping files only when the schema passed and the files are there.
    const contents = problems.length === 0 && files.length === 0 ? loadProblems(given) : [];
    return [...problems, ...files, ...contents.filter((problem) => !unreadable.has(problem.variable))];
  },
};
