// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import type { Member } from '../api/queries/teams.ts';
import { makeMember } from '../../../tests/support/web/users.ts';
import { MemberList } from './MemberList.tsx';

afterEach(cleanup);

const sam = makeMember();

function show(members: Member[] | undefined, failed = false) {
  const onRemove = vi.fn();
  render(
    <MemberList
      members={members}
      failed={failed}
      emptyText="Dit team heeft nog geen leden."
      removeLabel={(member) => `${member.name} uit Alpha verwijderen`}
      onRemove={onRemove}
      busy={false}
    />,
  );
  return onRemove;
}

describe('MemberList', () => {
  it('says when the members could not be loaded, are loading, or are none', () => {
    show(undefined, true);
    expect(screen.getByRole('alert').textContent).toBe('De leden konden niet worden geladen.');
    expect(screen.getByRole('alert').className).toBe('error-text');
    cleanup();
    show(undefined);
    expect(screen.getByRole('status').textContent).toBe('Leden laden…');
    cleanup();
    show([]);
    expect(screen.getByText('Dit team heeft nog geen leden.').className).toBe('muted');
  });

  it('lists the members with a count and removes one with its icon', () => {
    const onRemove = show([sam]);
    expect(screen.getByText('1 lid')).toBeTruthy();
    expect(screen.getByTestId('member-list').textContent).toContain('SD23');
    fireEvent.click(screen.getByRole('button', { name: 'Sam Student uit Alpha verwijderen' }));
    expect(onRemove).toHaveBeenCalledWith(sam);
  });
});
