// @vitest-environment jsdom
import { cleanup, render, screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { afterEach, describe, expect, it } from 'vitest';
import type { Profile } from '../../api/queries/profile.ts';
import { ProfilePageView } from './ProfilePageView.tsx';

afterEach(cleanup);

const student: Profile = {
  id: 4,
  name: 'Sam Student',
  name_slug: 'sam-student',
  email: 'student@devplein.test',
  admin: false,
  developer: false,
  teams: [{ id: 3, name: 'Open dag 2025' }],
  group: { id: 4, cohort: 'SD23' },
  levelCategories: [
    { id: 1, title: 'Front-end', finished: 1, number: 10 },
    { id: 3, title: 'Projecten', finished: 2, number: 10 },
  ],
};

const teacher: Profile = { ...student, id: 2, name: 'Dirk Docent', teams: [], group: null, levelCategories: [] };

function renderView(profile: Profile, options: { admin?: boolean; count?: number | null } = {}) {
  render(
    <MemoryRouter>
      <ProfilePageView
        profile={profile}
        linkToRequests={options.admin ?? false}
        loading={false}
        notFound={false}
        failed={false}
        projectRequestCount={options.count}
        sshKeys={null}
      />
    </MemoryRouter>,
  );
}

describe('ProfilePageView', () => {
  it("says 'Profiel van {name}' for a student with level categories, with their progress", () => {
    renderView(student);
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Profiel van Sam Student');
    const lines = screen.getAllByTestId('level-progress').map((line) => line.textContent);
    expect(lines).toEqual(['Front-end afgerond1 van 10', 'Projecten afgerond2 van 10']);
  });

  it("says just 'Profiel' without level categories, and 'Geen team' / 'Geen klas'", () => {
    renderView(teacher);
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Profiel');
    const table = screen.getByRole('table');
    expect(within(table).getByRole('row', { name: /Teams/ }).textContent).toContain('Geen team');
    expect(within(table).getByRole('row', { name: /Klas/ }).textContent).toContain('Geen klas');
    expect(screen.queryAllByTestId('level-progress')).toHaveLength(0);
  });

  it('shows name, e-mail address, team(s) and group', () => {
    renderView(student);
    const rows = within(screen.getByRole('table')).getAllByRole('row').map((row) => row.textContent);
    expect(rows).toEqual(['NaamSam Student', 'E-mailadresstudent@devplein.test', 'TeamOpen dag 2025', 'KlasSD23']);
  });

  it('shows the project request counter only when asked to', () => {
    renderView(student, { admin: true, count: 3 });
    expect(screen.getByTestId('project-request-counter').textContent).toContain('Nieuwe projectaanvragen: 3');
    expect(screen.getByRole('link', { name: 'Bekijk de aanvragen' }).getAttribute('href')).toBe('/admin/dockers/open');
    cleanup();
    renderView(student, { count: 0 });
    expect(screen.getByTestId('project-request-counter').textContent).toContain('Nieuwe projectaanvragen: 0');
    expect(screen.queryByRole('link', { name: 'Bekijk de aanvragen' })).toBeNull();
    cleanup();
    renderView(student);
    expect(screen.queryByTestId('project-request-counter')).toBeNull();
  });
});
