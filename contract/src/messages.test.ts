import { describe, expect, it } from 'vitest';
import { AGENT_UNREACHABLE_MESSAGE } from './messages.ts';

describe('shared messages', () => {
  it('keep their exact texts (brief)', () => {
    expect(AGENT_UNREACHABLE_MESSAGE).toBe('De dockerserver is op dit moment niet bereikbaar. Probeer het zo opnieuw.');
  });
});
