import type { Knex } from 'knex';
import * as usersGroupsTeams from './migrations/0001_users_groups_teams.ts';
import * as levels from './migrations/0002_levels.ts';
import * as projects from './migrations/0003_projects.ts';
import * as studentAccounts from './migrations/0004_student_accounts.ts';
import * as sessionsAuditLog from './migrations/0005_sessions_audit_log.ts';
import * as auditLogAppendOnly from './migrations/0006_audit_log_append_only.ts';
import * as dbAdminSignons from './migrations/0007_db_admin_signons.ts';
import * as devServerHosts from './migrations/0008_dev_server_hosts.ts';
import * as pendingHostAccess from './migrations/0009_pending_host_access.ts';
import * as imageCapabilities from './migrations/0010_image_capabilities.ts';
import * as identityNotices from './migrations/0011_identity_notices.ts';
import * as siteWallNotices from './migrations/0012_site_wall_notices.ts';
import * as backupRuns from './migrations/0013_backup_runs.ts';
import * as agentLinks from './migrations/0014_agent_links.ts';
import * as agentCertRenewal from './migrations/0015_agent_cert_renewal.ts';
import * as hostSamples from './migrations/0016_host_samples.ts';
import * as imageDeploySettings from './migrations/0017_image_deploy_settings.ts';
import * as projectDeploys from './migrations/0018_project_deploys.ts';
import * as deployCredentials from './migrations/0019_deploy_credentials.ts';

interface NamedMigration {
  name: string;
  migration: Knex.Migration;
}

/**
 * Every migration, in the order it runs. Imported statically (no directory scan) so that tsx,
 * vitest and a bundler all load the same modules. A new migration is a new file in
 * ./migrations plus one line here; the name is what knex records in knex_migrations, so a
 * name must never change once released.
 */
const migrations: readonly NamedMigration[] = [
  { name: '0001_users_groups_teams', migration: usersGroupsTeams },
  { name: '0002_levels', migration: levels },
  { name: '0003_projects', migration: projects },
  { name: '0004_student_accounts', migration: studentAccounts },
  { name: '0005_sessions_audit_log', migration: sessionsAuditLog },
  { name: '0006_audit_log_append_only', migration: auditLogAppendOnly },
  { name: '0007_db_admin_signons', migration: dbAdminSignons },
  { name: '0008_dev_server_hosts', migration: devServerHosts },
  { name: '0009_pending_host_access', migration: pendingHostAccess },
  { name: '0010_image_capabilities', migration: imageCapabilities },
  { name: '0011_identity_notices', migration: identityNotices },
  { name: '0012_site_wall_notices', migration: siteWallNotices },
  { name: '0013_backup_runs', migration: backupRuns },
  { name: '0014_agent_links', migration: agentLinks },
  { name: '0015_agent_cert_renewal', migration: agentCertRenewal },
  { name: '0016_host_samples', migration: hostSamples },
  { name: '0017_image_deploy_settings', migration: imageDeploySettings },
  { name: '0018_project_deploys', migration: projectDeploys },
  { name: '0019_deploy_credentials', migration: deployCredentials },
];

/** knex MigrationSource over the static list above. */
export const migrationSource: Knex.MigrationSource<NamedMigration> = {
  getMigrations: () => Promise.resolve([...migrations]),
  getMigrationName: (entry) => entry.name,
  getMigration: (entry) => Promise.resolve(entry.migration),
};

/** Names of all migrations, in order (for status checks and tests). */
export const migrationNames: readonly string[] = migrations.map((entry) => entry.name);
