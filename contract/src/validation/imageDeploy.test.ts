import { describe, expect, it } from 'vitest';
import { BUILD_PAIR_MESSAGE, COMMAND_MESSAGE, imageDeploySchema, KEEP_PATH_MESSAGE, normalizeRelativePath, normalizeWebRoot, WEB_ROOT_MESSAGE } from './imageDeploy.ts';

const errorsOf = (input: unknown) => {
  const result = imageDeploySchema.safeParse(input);
  return result.success ? {} : Object.fromEntries(result.error.issues.map((issue) => [issue.path.join('.'), issue.message]));
};

describe('image deploy settings', () => {
  it('accepts a web root in the container, normalized', () => {
    expect(normalizeWebRoot('/var/www/html/')).toBe('/var/www/html');
    expect(normalizeWebRoot('/www')).toBe('/www');
    expect(normalizeWebRoot(' /srv/app ')).toBe('/srv/app');
  });

  it('refuses relative paths, dot segments, odd characters and the container’s system folders', () => {
    for (const path of ['www', '/', '//', '/etc', '/usr', '/var', '/proc', '/var/www/../../etc', '/www/./x', '/a b', '/a;rm -rf /', '/a\nb', '/$HOME', `/${'x'.repeat(200)}`]) {
      expect(normalizeWebRoot(path), path).toBeNull();
    }
  });

  it('accepts relative paths inside the web root and refuses the rest', () => {
    expect(normalizeRelativePath('wp-content/uploads/')).toBe('wp-content/uploads');
    expect(normalizeRelativePath('.env')).toBe('.env');
    for (const path of ['', '/etc/passwd', '../x', 'a/../../b', 'a//b', 'a b', 'a\\b', '~/x']) expect(normalizeRelativePath(path), path).toBeNull();
  });

  it('turns empty texts into none and keeps paths once', () => {
    expect(imageDeploySchema.parse({ webRoot: '', afterUpdate: '  ', keepPaths: ['', '.env', '.env/'], buildCommand: null })).toEqual({
      webRoot: null,
      afterUpdate: null,
      keepPaths: ['.env'],
      buildCommand: null,
      buildOutput: null,
    });
    expect(imageDeploySchema.parse({})).toEqual({ webRoot: null, afterUpdate: null, keepPaths: [], buildCommand: null, buildOutput: null });
  });

  it('says per field what is wrong, in Dutch', () => {
    expect(errorsOf({ webRoot: '/etc' })).toEqual({ webRoot: WEB_ROOT_MESSAGE });
    expect(errorsOf({ keepPaths: ['../wp-config.php'] })).toEqual({ keepPaths: KEEP_PATH_MESSAGE });
    expect(errorsOf({ afterUpdate: 'composer install\nrm -rf /' })).toEqual({ afterUpdate: COMMAND_MESSAGE });
    expect(errorsOf({ afterUpdate: 'x'.repeat(501) })).toEqual({ afterUpdate: COMMAND_MESSAGE });
    expect(errorsOf({ buildCommand: 'npm run build' })).toEqual({ buildOutput: BUILD_PAIR_MESSAGE });
    expect(errorsOf({ buildOutput: 'dist' })).toEqual({ buildCommand: BUILD_PAIR_MESSAGE });
    // Not an object at all: a plain refusal, never a crash of the pair check (a property test found a 500).
    for (const shape of [null, '/var/www', 7, []]) expect(imageDeploySchema.safeParse(shape).success, JSON.stringify(shape)).toBe(false);
    // Every mistake at once, so the form shows them together.
    expect(errorsOf({ webRoot: '/etc', buildCommand: 'npm run build' })).toEqual({ webRoot: WEB_ROOT_MESSAGE, buildOutput: BUILD_PAIR_MESSAGE });
    expect(errorsOf({ keepPaths: Array.from({ length: 21 }, (_, i) => `p${i}`) })).toHaveProperty('keepPaths');
  });
});
