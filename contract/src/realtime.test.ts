import { describe, expect, it } from 'vitest';
import { containerChannelName, parseContainerChannel } from './realtime.ts';

describe('container channels', () => {
  it('are read back as the container they were built for', () => {
    for (const name of ['blog', 'sam-portfolio', 'ab']) expect(parseContainerChannel(containerChannelName(name))).toBe(name);
  });

  it('refuse other channels and malformed container names', () => {
    for (const channel of ['private-users', 'presence-x', 'private-container.', 'private-container.a', 'private-container.Bad_Name', 'private-container.1abc', ' private-container.blog']) {
      expect(parseContainerChannel(channel), channel).toBeNull();
    }
  });
});
