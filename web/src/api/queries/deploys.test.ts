import { describe, expect, it } from 'vitest';
import { appendLogLines, applyDeployToHistory, applyDeployUpdate, canRollBackTo, DEPLOY_LOG_MAX_LINES, mergeDeploySummaries, relativeDutchTime } from './deploys.ts';
import { commitB, deploySummary, projectDeploy } from '../../pages/DockersPage/cardFixtures.ts';

describe('relativeDutchTime', () => {
  const now = new Date('2026-11-27T21:00:00Z');
  it.each([
    ['2026-11-27T20:59:30Z', 'zojuist'],
    ['2026-11-27T21:00:30Z', 'zojuist'],
    ['2026-11-27T20:59:00Z', '1 minuut geleden'],
    ['2026-11-27T20:57:00Z', '3 minuten geleden'],
    ['2026-11-27T19:00:00Z', '2 uur geleden'],
    ['2026-11-26T21:00:00Z', '1 dag geleden'],
    ['2026-11-13T21:00:00Z', '2 weken geleden'],
    ['2026-08-27T21:00:00Z', '3 maanden geleden'],
    ['2024-11-27T21:00:00Z', '2 jaar geleden'],
  ])('%s is %s', (iso, text) => {
    expect(relativeDutchTime(iso, now)).toBe(text);
  });
});

describe('applyDeployUpdate', () => {
  it('makes a new deploy the latest and, once deployed, the one online', () => {
    const queued = projectDeploy({ id: 12, status: 'queued', commit: null });
    const summary = applyDeployUpdate(deploySummary(), queued);
    expect(summary.latest?.id).toBe(12);
    expect(summary.current?.id).toBe(11);
    const deployed = applyDeployUpdate(summary, { ...queued, status: 'deployed', commit: commitB });
    expect(deployed.current?.commit?.shortHash).toBe('a1b2c3d');
    expect(deployed.latest?.status).toBe('deployed');
  });

  it('keeps the site online when the newest deploy fails, and ignores a late update of an older deploy', () => {
    const failed = applyDeployUpdate(deploySummary(), projectDeploy({ id: 12, status: 'failed', commit: commitB }));
    expect(failed.current?.id).toBe(11);
    expect(failed.latest?.status).toBe('failed');
    const late = applyDeployUpdate(failed, projectDeploy({ id: 10, status: 'superseded', commit: null }));
    expect(late).toEqual(failed);
  });
});

describe('an answer older than a live event', () => {
  it('never takes a deploy back: the same deploy stays as far along as it was seen', () => {
    const failed = applyDeployUpdate(deploySummary(), projectDeploy({ id: 12, status: 'failed', commit: null }));
    expect(applyDeployUpdate(failed, projectDeploy({ id: 12, status: 'queued', commit: null })).latest?.status).toBe('failed');
    expect(applyDeployUpdate(failed, projectDeploy({ id: 12, status: 'running', commit: null })).latest?.status).toBe('failed');
    const running = applyDeployUpdate(deploySummary(), projectDeploy({ id: 12, status: 'running', commit: null }));
    expect(applyDeployUpdate(running, projectDeploy({ id: 12, status: 'deployed', commit: commitB })).current?.id).toBe(12);
  });

  it('merges a summary from an answer with the one held: newer deploys kept, the answer’s repository taken', () => {
    const held = deploySummary({ latest: projectDeploy({ id: 12, status: 'failed', commit: null }) });
    const answer = deploySummary({ repository: 'https://git.school.nl/sam/nieuw.git', latest: projectDeploy({ id: 12, status: 'running', commit: null }) });
    const merged = mergeDeploySummaries(held, answer);
    expect(merged?.latest?.status).toBe('failed');
    expect(merged?.repository).toBe('https://git.school.nl/sam/nieuw.git');
    expect(mergeDeploySummaries(held, null)).toBe(held);
    expect(mergeDeploySummaries(null, answer)).toBe(answer);
    const newer = deploySummary({ latest: projectDeploy({ id: 13, status: 'queued', commit: null }) });
    expect(mergeDeploySummaries(held, newer)?.latest?.id).toBe(13);
  });
});

describe('canRollBackTo', () => {
  const current = projectDeploy({ id: 11 });
  it('offers an earlier deployed commit other than the one online', () => {
    expect(canRollBackTo(projectDeploy({ id: 9, commit: commitB }), current, false)).toBe(true);
  });
  it('not the one online, the same commit again, failed or superseded deploys, or while a deploy runs', () => {
    expect(canRollBackTo(current, current, false)).toBe(false);
    expect(canRollBackTo(projectDeploy({ id: 5 }), current, false)).toBe(false);
    expect(canRollBackTo(projectDeploy({ id: 9, status: 'failed', commit: commitB }), current, false)).toBe(false);
    expect(canRollBackTo(projectDeploy({ id: 9, status: 'superseded', commit: null }), current, false)).toBe(false);
    expect(canRollBackTo(projectDeploy({ id: 9, commit: commitB }), current, true)).toBe(false);
  });
});

describe('history and log helpers', () => {
  it('folds a deploy into the history, newest first, replacing its older state', () => {
    const history = [projectDeploy({ id: 11 }), projectDeploy({ id: 9 })];
    const running = projectDeploy({ id: 12, status: 'running', commit: null });
    expect(applyDeployToHistory(history, running).map((deploy) => deploy.id)).toEqual([12, 11, 9]);
    const done = applyDeployToHistory(applyDeployToHistory(history, running), { ...running, status: 'deployed' });
    expect(done.map((deploy) => [deploy.id, deploy.status])).toEqual([
      [12, 'deployed'],
      [11, 'deployed'],
      [9, 'deployed'],
    ]);
  });

  it('keeps the last lines of a long log', () => {
    const line = (text: string) => ({ phase: 'fetch' as const, text, percent: null });
    const lines = appendLogLines(
      Array.from({ length: DEPLOY_LOG_MAX_LINES }, (_, index) => line(`regel ${index}`)),
      [line('nieuw')],
    );
    expect(lines).toHaveLength(DEPLOY_LOG_MAX_LINES);
    expect(lines.at(-1)?.text).toBe('nieuw');
    expect(lines[0]?.text).toBe('regel 1');
  });
});
