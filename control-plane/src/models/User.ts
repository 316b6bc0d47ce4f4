import { Model, type ModelOptions, type QueryContext, type RelationMappings } from 'objection';
import { AppModel } from './app-model.ts';
import { Database } from './Database.ts';
import { Group } from './Group.ts';
import { Level } from './Level.ts';
import { License } from './License.ts';
import { slugifyName } from '../lib/slugify-name.ts';
import { byId } from './ordering.ts';
import { Project } from './Project.ts';
import { SshKey } from './SshKey.ts';
import { Team } from './Team.ts';
import { VpnConfig } from './VpnConfig.ts';

/**
 * A person who signs in: student, developer and/or admin. Not activated while
 * `email_verified_at` is null; blocked while `disabled_at` is set. The e-mail address is kept
 * lowercased (a check constraint enforces it; the hooks below lowercase for you). A user's
 * "first team" is the one with the lowest id: `teams` is ordered by team id.
 */
export class User extends AppModel {
  static override tableName = 'users';

  declare id: number;
  declare name: string;
  declare name_slug: string;
  declare email: string;
  declare email_verified_at: Date | null;
  declare disabled_at: Date | null;
  declare admin: boolean;
  declare developer: boolean;
  declare group_id: number | null;
  declare oidc_issuer: string | null;
  declare oidc_subject: string | null;
  declare created_at: Date;
  declare updated_at: Date;

  /** Position among a project's members: present when loaded through Project.users. */
  declare position?: number;
  /** When the user joined the team: present when loaded through Team.users. */
  declare joined_at?: Date;

  declare group?: Group | null;
  declare teams?: Team[];
  declare levels?: Level[];
  declare sshKeys?: SshKey[];
  declare projects?: Project[];
  declare databases?: Database[];
  declare vpnConfig?: VpnConfig | null;
  declare licenses?: License[];

  static override relationMappings = (): RelationMappings => ({
    group: {
      relation: Model.BelongsToOneRelation,
      modelClass: Group,
      join: { from: 'users.group_id', to: 'groups.id' },
    },
    teams: {
      relation: Model.ManyToManyRelation,
      modelClass: Team,
      join: {
        from: 'users.id',
        through: { from: 'team_user.user_id', to: 'team_user.team_id' },
        to: 'teams.id',
      },
      modify: (query) => query.orderBy('teams.id'),
    },
    levels: {
      relation: Model.HasManyRelation,
      modelClass: Level,
      join: { from: 'users.id', to: 'levels.user_id' },
    },
    sshKeys: {
      relation: Model.HasManyRelation,
      modelClass: SshKey,
      join: { from: 'users.id', to: 'ssh_keys.user_id' },
    },
    projects: {
      relation: Model.ManyToManyRelation,
      modelClass: Project,
      join: {
        from: 'users.id',
        through: { from: 'project_user.user_id', to: 'project_user.project_id', extra: ['position'] },
        to: 'projects.id',
      },
    },
    databases: {
      relation: Model.HasManyRelation,
      modelClass: Database,
      join: { from: 'users.id', to: 'databases.user_id' },
    },
    vpnConfig: {
      relation: Model.HasOneRelation,
      modelClass: VpnConfig,
      join: { from: 'users.id', to: 'vpn_configs.user_id' },
    },
    licenses: {
      relation: Model.HasManyRelation,
      modelClass: License,
      join: { from: 'users.id', to: 'licenses.user_id' },
    },
  });

  /** Activated: the e-mail address was verified (by an admin's "Activeer"). */
  get isActivated(): boolean {
    return this.email_verified_at != null;
  }

  override $afterFind(context: QueryContext): void {
    super.$afterFind(context);
    // The first team decides things (team 1 sees the request counter): keep teams by id.
    this.teams?.sort(byId);
  }

  override $beforeInsert(context: QueryContext): void {
    super.$beforeInsert(context);
    this.normalise();
  }

  override $beforeUpdate(options: ModelOptions, context: QueryContext): void {
    super.$beforeUpdate(options, context);
    this.normalise();
    this.updated_at = new Date();
  }

  private normalise(): void {
    if (this.email !== undefined) this.email = this.email.trim().toLowerCase();
    if (this.name !== undefined && this.name_slug === undefined) this.name_slug = slugifyName(this.name);
  }
}
