/**
 * The screenshot browser's firewall chain (host-agent/src/drivers/browser/browser-firewall.ts) on
 * real iptables. The chain is shared by every agent on the host (several only in tests): an agent
 * that starts its browser while another agent stops must keep its chain, its ACCEPT and the jump.
 * Before the host-wide lock, the stopping agent could flush and delete the chain between the
 * starting agent's steps: its next `iptables -A` failed, or its browser ran with no rule at all.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { BrowserFirewall, ip6tablesBinary } from '../../../host-agent/src/drivers/browser/browser-firewall.ts';

const execFileAsync = promisify(execFile);
// Our own chain and an unused uid: the agents' real chain and users stay untouched.
const chain = `DPTEST-BFW-${process.pid}`;
const uid = 65_531;
const proxy = '127.0.0.1:9';
const IPTABLES = '/usr/sbin/iptables';

async function iptables(binary: string, args: string[]): Promise<{ ok: boolean; stdout: string }> {
  try {
    const { stdout } = await execFileAsync(binary, ['-w', ...args]);
    return { ok: true, stdout };
  } catch {
    return { ok: false, stdout: '' };
  }
}

const jump = ['OUTPUT', '-m', 'owner', '--uid-owner', String(uid), '-j', chain];
// Two live owners (a rule of an owner without a process is removed as stale).
const starting = new BrowserFirewall({ iptablesBinary: IPTABLES, uid, proxy, chain, owner: process.ppid });
const stopping = new BrowserFirewall({ iptablesBinary: IPTABLES, uid, proxy, chain, owner: process.pid });

afterAll(async () => {
  await stopping.remove();
  await starting.remove();
});

describe('the browser firewall shared by two agents', { timeout: 120_000 }, () => {
  it("keeps a starting agent's chain, rule and jump while the last other agent stops", async () => {
    for (let round = 0; round < 15; round++) {
      await stopping.apply();
      const [started] = await Promise.allSettled([starting.apply(), stopping.remove()]);
      expect(started, `round ${round}`).toEqual({ status: 'fulfilled', value: undefined });
      const rules = await iptables(IPTABLES, ['-S', chain]);
      expect(rules.stdout, `round ${round}`).toContain(`devplein-agent:${process.ppid}`);
      expect(rules.stdout, `round ${round}`).not.toContain(`devplein-agent:${process.pid}`);
      expect(rules.stdout, `round ${round}`).toContain('-j REJECT');
      expect((await iptables(IPTABLES, ['-C', ...jump])).ok, `round ${round}: the jump`).toBe(true);
      expect((await iptables(ip6tablesBinary(IPTABLES), ['-C', ...jump])).ok, `round ${round}: the IPv6 jump`).toBe(true);

      await starting.remove();
      // The last agent gone: chain and jump go too, in both families.
      expect((await iptables(IPTABLES, ['-S', chain])).ok).toBe(false);
      expect((await iptables(ip6tablesBinary(IPTABLES), ['-S', chain])).ok).toBe(false);
    }
  });
});
