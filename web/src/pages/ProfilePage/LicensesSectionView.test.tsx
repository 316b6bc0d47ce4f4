// @vitest-environment jsdom
import { cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { OwnLicense } from '../../api/queries/licenses.ts';
import { LicensesSectionView, type LicensesSectionViewProps } from './LicensesSectionView.tsx';

afterEach(cleanup);

const pending: OwnLicense = {
  id: 7,
  description: 'PhpStorm voor mijn examenproject',
  license: 'JetBrains',
  approved: false,
  approved_at: null,
  created_at: '2026-01-10T09:00:00.000Z',
};
const approved: OwnLicense = { ...pending, id: 8, license: 'Figma', approved: true, approved_at: '2026-01-11T09:00:00.000Z' };

function renderView(overrides: Partial<LicensesSectionViewProps> = {}) {
  const noop = () => undefined;
  render(
    <LicensesSectionView
      licenses={[]}
      loadFailed={false}
      license=""
      description=""
      formError={null}
      saved={false}
      canSave={false}
      saving={false}
      withdrawingId={null}
      withdrawError={null}
      onLicenseChange={noop}
      onDescriptionChange={noop}
      onSubmit={noop}
      onWithdraw={noop}
      {...overrides}
    />,
  );
}

describe('LicensesSectionView', () => {
  it('says when there are no requests yet, with Aanvragen disabled', () => {
    renderView();
    expect(screen.getByText('Je hebt nog geen licenties aangevraagd.')).toBeTruthy();
    expect((screen.getByRole('button', { name: 'Aanvragen' }) as HTMLButtonElement).disabled).toBe(true);
  });

  it("shows 'In behandeling' (withdrawable) and 'Goedgekeurd' (not)", () => {
    renderView({ licenses: [pending, approved] });
    const items = screen.getAllByTestId('license-item');
    expect(within(items[0]!).getByText('In behandeling')).toBeTruthy();
    expect(within(items[0]!).getByRole('button', { name: 'Aanvraag JetBrains intrekken' })).toBeTruthy();
    expect(within(items[1]!).getByText('Goedgekeurd')).toBeTruthy();
    expect(within(items[1]!).queryByRole('button')).toBeNull();
  });

  it('shows the server’s refusal', () => {
    renderView({ formError: 'De licentie moet minimaal 2 tekens lang zijn.' });
    expect(screen.getByRole('alert').textContent).toBe('De licentie moet minimaal 2 tekens lang zijn.');
  });
});
