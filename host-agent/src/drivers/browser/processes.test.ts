import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { commandLine, findProcessesWithArgument, processTree, proportionalBytes, residentBytes } from './processes.ts';

describe('processes', () => {
  it('finds a child by its marker argument, in the tree of this process, with its memory', async () => {
    const marker = `devplein-test-marker-${process.pid}-${Date.now()}`;
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30_000)', marker], { stdio: 'ignore' });
    try {
      await new Promise((resolve) => child.once('spawn', resolve));
      // 'spawn' comes right after fork; the command line changes at exec, a moment later.
      for (let tries = 0; tries < 100 && findProcessesWithArgument(marker).length === 0; tries += 1) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(findProcessesWithArgument(marker)).toEqual([child.pid]);
      expect(commandLine(child.pid!)?.slice(1)).toEqual(['-e', 'setTimeout(() => {}, 30_000)', marker]);
      expect(processTree(process.pid)).toContain(child.pid);
      expect(residentBytes(process.pid)).toBeGreaterThan(1_000_000);
      expect(proportionalBytes(process.pid)).toBeGreaterThan(1_000_000);
    } finally {
      child.kill('SIGKILL');
    }
    await new Promise((resolve) => child.once('exit', resolve));
    expect(findProcessesWithArgument(marker)).toEqual([]);
    expect(residentBytes(child.pid!)).toBe(0);
  });
});
