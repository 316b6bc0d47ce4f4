import { Model, Validator, type Pojo, type ValidatorArgs } from 'objection';

/**
 * Validates nothing, for a model without a jsonSchema (the database's constraints check the
 * data): what objection's own validator does for such a model, without building it. The
 * models' $beforeValidate and $afterValidate hooks still run (Validator's defaults call them).
 */
class SchemaFreeValidator extends Validator {
  override validate({ json }: ValidatorArgs): Pojo {
    return json;
  }
}

/**
 * The base of our models. objection's validator compiles JSON schemas with ajv: building it,
 * on a model's first insert or patch, loads ajv and its formats (~3 MB) even for a model that
 * has no schema to compile. None of ours has one.
 */
export class AppModel extends Model {
  static override createValidator(): Validator {
    return this.jsonSchema ? super.createValidator() : new SchemaFreeValidator();
  }
}
