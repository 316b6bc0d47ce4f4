import { describe, expect, it } from 'vitest';
import { SshPortPicker } from './ssh-port-picker.ts';

/** Ports well above the ephemeral range's usual start: free on a test machine. */
const first = 29_100 + Math.floor(Math.random() * 400) * 2;

function picker(used: () => Set<number>) {
  let listings = 0;
  let release: () => void = () => undefined;
  let gate = Promise.resolve();
  const instance = new SshPortPicker({
    range: { first, last: first + 9 },
    bindAddress: '127.0.0.1',
    usedPorts: async () => {
      listings += 1;
      await gate;
      return used();
    },
  });
  return {
    instance,
    listings: () => listings,
    /** The next listings wait until the returned function is called. */
    holdListings: () => {
      gate = new Promise((resolve) => (release = resolve));
      return () => release();
    },
  };
}

describe('SshPortPicker', () => {
  it('gives creates asking at once distinct ports, skipping the used ones, with one listing for those that queued', async () => {
    const { instance, listings } = picker(() => new Set([first, first + 2]));
    const ports = (await Promise.all(Array.from({ length: 5 }, () => instance.reserve()))).map((reservation) => reservation.port);
    expect(ports).toEqual([first + 1, first + 3, first + 4, first + 5, first + 6]);
    // The first listing served the first create; the four that asked meanwhile shared the second.
    expect(listings()).toBeLessThanOrEqual(2);
  });

  it('does not give out a port released after the listing began (its container may not be in that listing)', async () => {
    const engine = new Set<number>();
    const { instance, holdListings } = picker(() => new Set(engine));
    const one = await instance.reserve();
    const open = holdListings();
    const next = instance.reserve();
    // The container with `one.port` appears on the engine and the create releases the port,
    // while the listing for `next` is under way (and saw the engine before).
    one.release();
    open();
    expect((await next).port).not.toBe(one.port);
    engine.add(one.port);
    // A later listing sees the label: the port stays taken.
    expect((await instance.reserve()).port).not.toBe(one.port);
  });

  it('says so when the range is full', async () => {
    const { instance } = picker(() => new Set(Array.from({ length: 10 }, (_, index) => first + index)));
    await expect(instance.reserve()).rejects.toThrow(/no free SSH port left/);
  });
});
