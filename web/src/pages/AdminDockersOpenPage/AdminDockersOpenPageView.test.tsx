// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import type { Project } from '../../api/queries/projects.ts';
import { AdminDockersOpenPageView } from './AdminDockersOpenPageView.tsx';

afterEach(cleanup);

const project = (overrides: Partial<Project>): Project => ({
  id: 3,
  docker_id: 5,
  name: 'webshop-groen',
  description: 'Een webshop voor de kantine, met een winkelmandje en een kassa.',
  domain: 'webshop-groen.dev.devplein.test',
  visible: '0',
  repro: 'https://git.school.nl/sam/webshop.git',
  branch: null,
  users: [{ id: 4, name: 'Sam Student', group: { id: 1, cohort: '4A' } }],
  end_date: null,
  docker: 'Statische site',
  validated: null,
  deploy_token: null,
  created_at: '2026-11-20T10:00:00.000Z',
  ...overrides,
});

function renderList(projects: Project[]) {
  render(<AdminDockersOpenPageView projects={projects} failed={false} loading={false} busyId={null} onToggle={vi.fn()} onDelete={vi.fn()} onSaved={vi.fn()} />);
}

describe('AdminDockersOpenPageView (issue 35)', () => {
  it('tells the approving teacher that the project deploys with a stored token, and whose', () => {
    renderList([project({ deploy_token: { stored_by: { id: 4, name: 'Sam Student' } } })]);
    expect(screen.getByTestId('project-git-token').textContent).toBe('Deployt met een opgeslagen token van Sam Student (alleen voor dit adres).');
    expect(screen.getByTestId('project-git').textContent).toContain('https://git.school.nl/sam/webshop.git');
  });

  it('says nothing about a token when none is stored', () => {
    renderList([project({})]);
    expect(screen.queryByTestId('project-git-token')).toBeNull();
  });
});
