/**
 * deploy/prometheus/devplein-alerts.yml holds together: every rule is well-formed, each
 * expression parses as PromQL (Prometheus's own grammar, @prometheus-io/lezer-promql) and names
 * only metrics the control plane or the agent registers. With Prometheus's promtool installed
 * (Debian: prometheus) it also runs `promtool check rules` and the examples in
 * devplein-alerts.test.yml (`promtool test rules`: each alert fires when it should, with its
 * Dutch text, and not before).
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parser } from '@prometheus-io/lezer-promql';
import knex from 'knex';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { createControlPlaneMetrics } from '../../../control-plane/src/metrics/metrics.ts';
import { registerControlPlaneGauges } from '../../../control-plane/src/metrics/operator-gauges.ts';
import { createAgentMetrics } from '../../../host-agent/src/metrics/metrics.ts';
import { registerAgentGauges } from '../../../host-agent/src/metrics/operator-gauges.ts';
import { findExecutable } from '../../support/services/system-deps.ts';

const run = promisify(execFile);
// js-yaml arrives with eslint (no types of its own), as in deploy-files.test.ts.
const yaml = createRequire(import.meta.url)('js-yaml') as { load(text: string): unknown };
const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../deploy/prometheus');
const alertsFile = path.join(dir, 'devplein-alerts.yml');

interface Rule {
  alert?: unknown;
  expr?: unknown;
  for?: unknown;
  labels?: { severity?: unknown };
  annotations?: { summary?: unknown; description?: unknown };
}

const groups = (yaml.load(readFileSync(alertsFile, 'utf8')) as { groups: Array<{ name: string; rules: Rule[] }> }).groups;
const rules = groups.flatMap((group) => group.rules);

// Never queried: the gauges are only registered here, not scraped.
const lazyKnex = knex({ client: 'pg' });
afterAll(async () => {
  await lazyKnex.destroy();
});

/** Every metric name the two processes register (as their main modules do). */
function registeredMetricNames(): Set<string> {
  const controlPlane = createControlPlaneMetrics();
  registerControlPlaneGauges(controlPlane.registry, { knex: lazyKnex, certificatePems: null, logger: pino({ level: 'silent' }) });
  const agent = createAgentMetrics();
  registerAgentGauges(agent.registry, { dataDir: os.tmpdir(), servedCertificatePem: '' });
  return new Set([...controlPlane.registry.getMetricsAsArray(), ...agent.registry.getMetricsAsArray()].map((metric) => metric.name));
}

/** The metric names an expression selects, or the position of its first syntax error. */
function selectedMetrics(expr: string): { names: string[]; error: number | null } {
  const names: string[] = [];
  let error: number | null = null;
  parser.parse(expr).iterate({
    enter(node) {
      if (node.type.isError && error === null) error = node.from;
      if (node.name === 'Identifier' && node.node.parent?.name === 'VectorSelector') names.push(expr.slice(node.from, node.to));
    },
  });
  return { names, error };
}

describe('deploy/prometheus/devplein-alerts.yml', () => {
  it('has well-formed rules: a unique name, an expression, a severity, a Dutch summary and description', () => {
    expect(rules.length).toBeGreaterThanOrEqual(6);
    const names = rules.map((rule) => rule.alert);
    expect(new Set(names).size).toBe(names.length);
    for (const rule of rules) {
      expect(typeof rule.alert, JSON.stringify(rule)).toBe('string');
      expect(typeof rule.expr, String(rule.alert)).toBe('string');
      expect(['warning', 'critical'], String(rule.alert)).toContain(rule.labels?.severity);
      expect(rule.annotations?.summary, String(rule.alert)).toEqual(expect.any(String));
      expect(rule.annotations?.description, String(rule.alert)).toEqual(expect.any(String));
    }
  });

  it('names only metrics the control plane or the agent registers, in expressions that parse', () => {
    const registered = registeredMetricNames();
    const used = new Set<string>();
    for (const rule of rules) {
      const { names, error } = selectedMetrics(String(rule.expr));
      expect(error, `${String(rule.alert)}: syntax error at ${error} in ${String(rule.expr)}`).toBeNull();
      expect(names.length, String(rule.alert)).toBeGreaterThan(0);
      for (const name of names) {
        expect(registered.has(name), `${String(rule.alert)} names ${name}, which neither process registers`).toBe(true);
        used.add(name);
      }
    }
    // Each of the three kinds has an alert.
    for (const name of ['devplein_build_info', 'devplein_backup_last_success_timestamp_seconds', 'devplein_certificate_expiry_timestamp_seconds']) expect(used).toContain(name);
  });

  it('detects a misspelt metric and a broken expression (the check above can fail)', () => {
    expect(selectedMetrics('time() - devplein_backup_last_succes_timestamp_seconds > 3600').names).toEqual(['devplein_backup_last_succes_timestamp_seconds']);
    expect(registeredMetricNames().has('devplein_backup_last_succes_timestamp_seconds')).toBe(false);
    expect(selectedMetrics('count(devplein_build_info').error).not.toBeNull();
  });

  const promtool = findExecutable('promtool');
  it.skipIf(!promtool)('passes promtool check rules and the examples of devplein-alerts.test.yml', async () => {
    const check = await run(promtool as string, ['check', 'rules', alertsFile]);
    expect(check.stdout).toContain(`SUCCESS: ${rules.length} rules found`);
    const examples = await run(promtool as string, ['test', 'rules', 'devplein-alerts.test.yml'], { cwd: dir });
    expect(examples.stdout).toContain('SUCCESS');
  });
});
