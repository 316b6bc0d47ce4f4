import { describe, expect, it } from 'vitest';
import { ProjectTurns, revoked } from './project-turns.ts';

/** A promise and its resolve, to hold work open until the test lets it go. */
function gate(): { open: () => void; opened: Promise<void> } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

describe('ProjectTurns', () => {
  it('runs the changes of one project one at a time, in order, and other projects beside them', async () => {
    const turns = new ProjectTurns();
    const order: string[] = [];
    const first = gate();
    const creating = turns.change(1, 'create', async () => {
      order.push('create 1 starts');
      await first.opened;
      order.push('create 1 ends');
    });
    const acting = turns.change(1, 'interrupt', async () => void order.push('act 1'));
    await turns.change(2, 'interrupt', async () => void order.push('act 2'));
    expect(order).toEqual(['create 1 starts', 'act 2']);
    first.open();
    await Promise.all([creating, acting]);
    expect(order).toEqual(['create 1 starts', 'act 2', 'create 1 ends', 'act 1']);
  });

  it('lets a deploy start only after the changes before it, and runs deploys of a project one at a time', async () => {
    const turns = new ProjectTurns();
    const order: string[] = [];
    const removing = gate();
    const change = turns.change(1, 'keys', async () => {
      await removing.opened;
      order.push('keys');
    });
    const deploy = gate();
    const first = turns.deploy(1, async () => {
      order.push('deploy 1');
      await deploy.opened;
    });
    const second = turns.deploy(1, async () => void order.push('deploy 2'));
    removing.open();
    await change;
    await expect.poll(() => order).toEqual(['keys', 'deploy 1']);
    deploy.open();
    await Promise.all([first, second]);
    expect(order).toEqual(['keys', 'deploy 1', 'deploy 2']);
  });

  it('revokes a running deploy for a stop, restart, pause or removal, which go on once it has wound down', async () => {
    for (const change of ['interrupt', 'remove'] as const) {
      const turns = new ProjectTurns();
      const order: string[] = [];
      const started = gate();
      const deploying = turns.deploy(1, async (signal) => {
        started.open();
        await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
        order.push(revoked(signal) ? `deploy revoked by ${change}` : 'deploy aborted otherwise');
      });
      await started.opened;
      await turns.change(1, change, async () => void order.push(change));
      await deploying;
      expect(order).toEqual([`deploy revoked by ${change}`, change]);
    }
  });

  it('lets a create, a start and a key write pass beside a running deploy without revoking it', async () => {
    const turns = new ProjectTurns();
    const started = gate();
    const finish = gate();
    let signalSeen: AbortSignal | undefined;
    const deploying = turns.deploy(1, async (signal) => {
      signalSeen = signal;
      started.open();
      await finish.opened;
    });
    await started.opened;
    await turns.change(1, 'keys', async () => undefined);
    await turns.change(1, 'create', async () => undefined);
    await turns.change(1, 'start', async () => undefined);
    expect(signalSeen?.aborted).toBe(false);
    finish.open();
    await deploying;
  });

  it('frees the turn when work fails', async () => {
    const turns = new ProjectTurns();
    await expect(turns.change(1, 'interrupt', () => Promise.reject(new Error('engine away')))).rejects.toThrow('engine away');
    await expect(turns.deploy(1, () => Promise.reject(new Error('fetch failed')))).rejects.toThrow('fetch failed');
    await expect(turns.change(1, 'remove', async () => 'removed')).resolves.toBe('removed');
  });
});
