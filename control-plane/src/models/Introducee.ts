import { AppModel } from './app-model.ts';

/** A "meeloper": a visitor who gets a temporary site and git account; password encrypted at rest. */
export class Introducee extends AppModel {
  static override tableName = 'introducees';

  declare id: number;
  declare name: string;
  declare password_encrypted: string;
  declare created_at: Date;
}
