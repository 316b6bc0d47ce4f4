/**
 * `devplein config check soketi`: the SOKETI_* settings devplein-soketi.service runs soketi
 * with (its unit sets the listeners, /etc/devplein/soketi.env the app), and, when this process
 * may read the control plane's env file (by hand, as root), that both name the same app.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { ConfigCheckRole } from '@devplein/server-kit/config-check-cli';
import { envFileOf } from '@devplein/server-kit/config-check-cli';
import { type ConfigProblem, schemaProblems } from '@devplein/server-kit/config-problems';
import { parseEnvFile } from '@devplein/server-kit/systemd-files';
import { configSchema, isPlaceholderSecret } from '../config.ts';

/** soketi JSON.parses every SOKETI_* value: a number, true, false or null would change type. */
const JSON_SCALAR = /^\s*(-?\d+(\.\d+)?([eE][-+]?\d+)?|true|false|null)\s*$/;

const appValue = z
  .string({ error: 'een waarde, gelijk aan die in control-plane.env' })
  .min(1, 'een waarde, gelijk aan die in control-plane.env')
  .refine((value) => !JSON_SCALAR.test(value), 'soketi leest een getal, true, false of null als JSON: kies een waarde met letters, zoals devplein-app');

/** 127.0.0.1 and friends: soketi stays on loopback behind Caddy (and broadcasts no cluster discovery off the machine). */
const loopback = z
  .string()
  .regex(/^(127(\.\d{1,3}){3}|localhost|::1)$/, 'een loopback-adres zoals 127.0.0.1 (soketi staat achter Caddy; 0.0.0.0 stuurt clusterberichten het netwerk op)');

const port = z.coerce.number().int().min(1).max(65_535);

/** What devplein-soketi.service and soketi.env set; soketi's own defaults for everything else. */
export const soketiSchema = z.object({
  SOKETI_DEFAULT_APP_ID: appValue,
  SOKETI_DEFAULT_APP_KEY: appValue,
  SOKETI_DEFAULT_APP_SECRET: appValue.refine((value) => !isPlaceholderSecret(value), 'een eigen geheime waarde (openssl rand -hex 24), gelijk aan REALTIME_SECRET van de control plane'),
  SOKETI_HOST: loopback,
  SOKETI_PORT: port,
  SOKETI_METRICS_HOST: loopback,
  SOKETI_METRICS_SERVER_PORT: port,
  SOKETI_CLUSTER_HOST: loopback,
  SOKETI_CLUSTER_UNICAST_ADDRESSES: loopback,
  SOKETI_CLUSTER_PORT: port,
});

/** soketi's setting and the control plane's that must hold the same value. */
const shared: Array<[keyof z.infer<typeof soketiSchema>, 'REALTIME_APP_ID' | 'REALTIME_KEY' | 'REALTIME_SECRET' | 'REALTIME_PORT']> = [
  ['SOKETI_DEFAULT_APP_ID', 'REALTIME_APP_ID'],
  ['SOKETI_DEFAULT_APP_KEY', 'REALTIME_KEY'],
  ['SOKETI_DEFAULT_APP_SECRET', 'REALTIME_SECRET'],
  ['SOKETI_PORT', 'REALTIME_PORT'],
];

/** The control plane's settings, or null when its env file is not there or not readable here (the soketi user may not read it). */
function controlPlaneSettings(): Record<string, string> | null {
  try {
    return parseEnvFile(readFileSync(envFileOf('control-plane'), 'utf8')).values;
  } catch {
    return null;
  }
}

/** Where soketi and the control plane disagree (each value as the control plane reads it, its default included). */
function mismatches(env: Record<string, string | undefined>, controlPlane: Record<string, string>): ConfigProblem[] {
  return shared.flatMap(([soketi, realtime]): ConfigProblem[] => {
    const parsed = configSchema.shape[realtime].safeParse(controlPlane[realtime] || undefined);
    // A wrong value there is the control plane's own check's to name.
    if (!parsed.success) return [];
    const theirs = String(parsed.data);
    if (env[soketi] === theirs) return [];
    const shown = realtime === 'REALTIME_SECRET' ? '' : ` (${theirs})`;
    return [{ variable: soketi, problem: `verschilt van ${realtime} in ${envFileOf('control-plane')}${shown}; verwacht: dezelfde waarde, anders weigert soketi de control plane` }];
  });
}

export const soketiCheck: ConfigCheckRole = {
  name: 'soketi',
  check(env) {
    const problems = schemaProblems(soketiSchema, env);
    const controlPlane = controlPlaneSettings();
    return problems.length > 0 || controlPlane === null ? problems : mismatches(env, controlPlane);
  },
};
