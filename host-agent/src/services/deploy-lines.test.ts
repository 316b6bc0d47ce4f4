import { describe, expect, it } from 'vitest';
import { DeployOutcome, DeployPhase } from '@devplein/proto/deploy';
import { DeployError } from '../drivers/deploy/container-deployer.ts';
import { GitFetchError } from '../drivers/git/repository-fetcher.ts';
import { deployStepLine, dutchBytes, failureOutcome, gitProgressLine, ProgressThrottle } from './deploy-lines.ts';

const limits = { maxBytes: 200 * 1024 * 1024, commandTimeoutMs: 300_000 };

describe('dutchBytes', () => {
  it('writes sizes with a decimal comma', () => {
    expect(dutchBytes(812)).toBe('812 B');
    expect(dutchBytes(4.1 * 1024 * 1024)).toBe('4,1 MB');
    expect(dutchBytes(1536)).toBe('1,5 kB');
    expect(dutchBytes(200 * 1024 * 1024)).toBe('200,0 MB');
  });
});

describe('gitProgressLine', () => {
  it('turns git progress into Dutch lines with a percentage', () => {
    expect(gitProgressLine({ phase: 'receiving', remote: false, percent: 45, current: 120, total: 266, done: false })).toEqual({
      phase: DeployPhase.DEPLOY_PHASE_FETCH,
      line: 'Ophalen: 45% (120/266)',
      percent: 45,
    });
    expect(gitProgressLine({ phase: 'enumerating', remote: true, current: 3, done: true }).line).toBe('Server: Objecten opsommen: 3, klaar');
    expect(gitProgressLine({ phase: 'enumerating', remote: true, current: 3, done: true }).percent).toBe(-1);
  });
});

describe('ProgressThrottle', () => {
  it('lets one line per interval through per key, plus first and final lines', () => {
    let now = 0;
    const throttle = new ProgressThrottle(200, () => now);
    expect(throttle.take('receiving')).toBe(true);
    now = 50;
    expect(throttle.take('receiving')).toBe(false);
    expect(throttle.take('resolving')).toBe(true);
    now = 150;
    expect(throttle.take('receiving', true)).toBe(true);
    now = 300;
    expect(throttle.take('receiving')).toBe(false);
    now = 351;
    expect(throttle.take('receiving')).toBe(true);
  });

  it('keeps a phase of git rewriting its line every millisecond to about 5 lines a second', () => {
    let now = 0;
    const throttle = new ProgressThrottle(200, () => now);
    let sent = 0;
    for (now = 0; now < 1000; now += 1) if (throttle.take('receiving')) sent += 1;
    expect(sent).toBe(5);
  });
});

describe('deployStepLine', () => {
  it('says what the deployer does, in Dutch', () => {
    expect(deployStepLine({ step: 'copying', files: 312, bytes: 4.1 * 1024 * 1024, skipped: [] })).toEqual({
      phase: DeployPhase.DEPLOY_PHASE_COPY,
      line: 'Kopiëren: 312 bestanden (4,1 MB)',
      percent: -1,
    });
    expect(deployStepLine({ step: 'swapping' })?.line).toBe('Wisselen');
    expect(deployStepLine({ step: 'restarting', holders: ['1 httpd'] })?.line).toBe('Container herstart: de webserver werkte in de oude map');
    expect(deployStepLine({ step: 'building', line: 'npm run build' })).toMatchObject({ phase: DeployPhase.DEPLOY_PHASE_BUILD, line: 'npm run build' });
    expect(deployStepLine({ step: 'after-update', line: 'ok' })).toMatchObject({ phase: DeployPhase.DEPLOY_PHASE_AFTER_UPDATE });
    expect(deployStepLine({ step: 'keeping', kept: [] })).toBeUndefined();
    expect(deployStepLine({ step: 'cleaning', removed: 0 })).toBeUndefined();
  });
});

describe('failureOutcome', () => {
  it('maps the fetcher’s reasons', () => {
    const of = (reason: ConstructorParameters<typeof GitFetchError>[0]) => failureOutcome(new GitFetchError(reason, 'Nederlandse zin.'), limits)?.outcome;
    expect(of('auth')).toBe(DeployOutcome.DEPLOY_OUTCOME_AUTH_FAILED);
    expect(of('too-large')).toBe(DeployOutcome.DEPLOY_OUTCOME_TOO_LARGE);
    expect(of('timeout')).toBe(DeployOutcome.DEPLOY_OUTCOME_TIMED_OUT);
    expect(of('not-found')).toBe(DeployOutcome.DEPLOY_OUTCOME_FETCH_FAILED);
    expect(of('redirect')).toBe(DeployOutcome.DEPLOY_OUTCOME_FETCH_FAILED);
    expect(of('git-failed')).toBe(DeployOutcome.DEPLOY_OUTCOME_FETCH_FAILED);
    // The caller's input (an RPC error instead) and a cancelled call (nobody listens).
    for (const reason of ['address-refused', 'bad-branch', 'bad-commit', 'bad-credentials', 'cancelled'] as const) expect(of(reason)).toBeUndefined();
    // Like every failure: the message says the old site stays (the card shows it as it is).
    expect(failureOutcome(new GitFetchError('auth', 'De Git-server weigerde de toegang.'), limits)?.message).toBe('De Git-server weigerde de toegang. De oude site blijft staan.');
  });

  it('maps the deployer’s reasons with Dutch messages that say the old site stays', () => {
    const build = failureOutcome(new DeployError('build-failed', 'the build command exited with 127', ['sh: npm: not found']), limits);
    expect(build).toEqual({
      outcome: DeployOutcome.DEPLOY_OUTCOME_BUILD_FAILED,
      message: 'De bouwopdracht is mislukt (afsluitcode 127). De oude site blijft staan. Laatste uitvoer: sh: npm: not found',
    });
    expect(failureOutcome(new DeployError('build-failed', 'the build output folder dist is missing after the build'), limits)?.message).toBe(
      'De bouwstap maakte de uitvoermap dist niet. De oude site blijft staan.',
    );
    expect(failureOutcome(new DeployError('build-failed', 'the build output folder dist points outside the tree'), limits)?.message).toBe(
      'De uitvoermap dist van de bouwstap wijst naar buiten de repository. De oude site blijft staan.',
    );
    expect(failureOutcome(new DeployError('build-failed', 'the build output folder dist is not a folder'), limits)?.message).toBe(
      'De uitvoermap dist van de bouwstap is geen map. De oude site blijft staan.',
    );
    expect(failureOutcome(new DeployError('after-update-failed', 'the after-update command exited with 3'), limits)).toEqual({
      outcome: DeployOutcome.DEPLOY_OUTCOME_AFTER_UPDATE_FAILED,
      message: 'De opdracht na het bijwerken is mislukt (afsluitcode 3). De oude site blijft staan.',
    });
    expect(failureOutcome(new DeployError('after-update-timeout', 'x'), limits)?.outcome).toBe(DeployOutcome.DEPLOY_OUTCOME_TIMED_OUT);
    expect(failureOutcome(new DeployError('build-timeout', 'x'), limits)?.message).toBe('De bouwopdracht duurde langer dan 300 seconden. De oude site blijft staan.');
    expect(failureOutcome(new DeployError('too-large', 'the repository has more than 50000 files'), limits)?.outcome).toBe(DeployOutcome.DEPLOY_OUTCOME_COPY_FAILED);
    expect(failureOutcome(new DeployError('swap-failed', 'x'), limits)?.outcome).toBe(DeployOutcome.DEPLOY_OUTCOME_COPY_FAILED);
    for (const reason of ['bad-settings', 'not-deployable', 'cancelled'] as const) expect(failureOutcome(new DeployError(reason, 'x'), limits)).toBeUndefined();
    expect(failureOutcome(new Error('boom'), limits)).toBeUndefined();
  });
});
