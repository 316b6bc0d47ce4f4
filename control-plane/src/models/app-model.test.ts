import { ValidationError } from 'objection';
import { describe, expect, it } from 'vitest';
import { AppModel } from './app-model.ts';

class Unchecked extends AppModel {
  static override tableName = 'unchecked';
  count?: unknown;
  hooks: string[] = [];
  override $beforeValidate(...args: Parameters<AppModel['$beforeValidate']>) {
    this.hooks.push('before');
    return super.$beforeValidate(...args);
  }
  override $afterValidate(...args: Parameters<AppModel['$afterValidate']>) {
    this.hooks.push('after');
    super.$afterValidate(...args);
  }
}

class Checked extends AppModel {
  static override tableName = 'checked';
  static override jsonSchema = { type: 'object', required: ['count'], properties: { count: { type: 'integer' } } };
}

describe('AppModel', () => {
  it('validates nothing for a model without a jsonSchema, without building ajv, and still runs the hooks', () => {
    // By name: vitest may load objection's class twice (its ESM and CommonJS entries).
    expect(Unchecked.createValidator().constructor.name).not.toBe('AjvValidator');
    const model = Unchecked.fromJson({ count: 'veel' });
    expect(model.count).toBe('veel');
    expect(model.hooks).toEqual(['before', 'after']);
  });

  it('validates a model with a jsonSchema as objection does', () => {
    expect(Checked.createValidator().constructor.name).toBe('AjvValidator');
    expect(() => Checked.fromJson({ count: 'veel' })).toThrow(ValidationError);
    expect(Checked.fromJson({ count: 3 })).toMatchObject({ count: 3 });
  });
});
