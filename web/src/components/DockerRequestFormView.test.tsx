// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Project } from '../api/queries/projects.ts';
import { DockerRequestFormView } from './DockerRequestFormView.tsx';
import type { RepositoryAddressPolicy } from '@devplein/contract/validation/repositoryAddress';

afterEach(cleanup);

const images = [
  { id: 1, name: 'Anders (docent kiest)' },
  { id: 2, name: 'PHP 8.3 + Apache' },
];
const me = { id: 4, name: 'Sam Student' };

function renderForm(project?: Project, onSubmit = vi.fn(), siteDomains?: string[], gitPolicy?: RepositoryAddressPolicy) {
  render(
    <DockerRequestFormView
      gitPolicy={gitPolicy}
      project={project}
      images={images}
      siteDomain="dev.school.nl"
      siteDomains={siteDomains}
      currentUser={me}
      keepCurrentUser
      searchAll={false}
      saving={false}
      onSubmit={onSubmit}
    />,
  );
  return onSubmit;
}

const field = (label: string) => screen.getByLabelText(label, { exact: true }) as HTMLInputElement;

describe('DockerRequestFormView', () => {
  it('filters the name, fills the domain, counts the description and enables submit only when valid', () => {
    const onSubmit = renderForm();
    expect(screen.getByRole('heading', { name: 'Docker aanvragen' })).toBeTruthy();
    const submit = screen.getByRole('button', { name: 'Aanvragen' }) as HTMLButtonElement;
    expect(submit.disabled).toBe(true);

    fireEvent.change(field('Naam'), { target: { value: 'Mijn Shop!' } });
    expect(field('Naam').value).toBe('mijnshop');
    expect(field('Domein').value).toBe('mijnshop.dev.school.nl');

    fireEvent.change(field('Image'), { target: { value: '2' } });
    fireEvent.change(field('Beschrijving'), { target: { value: 'x'.repeat(39) } });
    const counter = screen.getByTestId('description-counter');
    expect(counter.textContent).toBe('Aantal tekens: 39 (min. 40)');
    expect(counter.className).toContain('enough');
    expect(submit.disabled).toBe(true);

    fireEvent.change(field('Beschrijving'), { target: { value: 'x'.repeat(40) } });
    expect(submit.disabled).toBe(false);
    fireEvent.click(submit);
    expect(onSubmit).toHaveBeenCalledWith(
      expect.objectContaining({ name: 'mijnshop', domain: 'mijnshop.dev.school.nl', docker_id: 2, visible: '1', users: [4] }),
    );
  });

  it('with a second dev server, accepts a domain under either site domain and fills in the one new projects go to', () => {
    renderForm(undefined, vi.fn(), ['dev1.school.nl', 'dev.school.nl']);
    const submit = screen.getByRole('button', { name: 'Aanvragen' }) as HTMLButtonElement;
    fireEvent.change(field('Naam'), { target: { value: 'winkel' } });
    expect(field('Domein').value).toBe('winkel.dev.school.nl');
    fireEvent.change(field('Image'), { target: { value: '2' } });
    fireEvent.change(field('Beschrijving'), { target: { value: 'x'.repeat(40) } });
    expect(submit.disabled).toBe(false);
    fireEvent.change(field('Domein'), { target: { value: 'winkel.dev1.school.nl' } });
    expect(submit.disabled).toBe(false);
    fireEvent.change(field('Domein'), { target: { value: 'winkel.elders.nl' } });
    expect(submit.disabled).toBe(true);
  });

  it('shows the current user as a member who cannot be removed', () => {
    renderForm();
    expect(screen.getByText('Sam Student')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Sam Student verwijderen' })).toBeNull();
  });

  it("opens an existing request as 'Docker bewerken'", () => {
    renderForm({
      id: 9,
      docker_id: 2,
      name: 'kantine-app',
      description: 'Bestel-app voor de schoolkantine: vooraf je lunch bestellen.',
      domain: 'kantine-app.dev.school.nl',
      visible: '0',
      repro: null,
      branch: null,
      users: [{ id: 7, name: 'Mees Schouten', group: null }],
      end_date: null,
      docker: 'PHP 8.3 + Apache',
      validated: null,
      deploy_token: null,
      created_at: '2026-01-01T00:00:00.000Z',
    });
    expect(screen.getByRole('heading', { name: 'Docker bewerken' })).toBeTruthy();
    expect(field('Naam').value).toBe('kantine-app');
    expect((screen.getByRole('button', { name: 'Opslaan' }) as HTMLButtonElement).disabled).toBe(false);
    expect(screen.getByRole('button', { name: 'Mees Schouten verwijderen' })).toBeTruthy();
  });

  describe('the repository address and branch (issue 23)', () => {
    const policy: RepositoryAddressPolicy = { allowedHosts: ['git.school.nl', 'github.com'], allowHttp: false };

    function fillValidRequest() {
      fireEvent.change(field('Naam'), { target: { value: 'winkel' } });
      fireEvent.change(field('Image'), { target: { value: '2' } });
      fireEvent.change(field('Beschrijving'), { target: { value: 'x'.repeat(40) } });
    }
    const submitButton = () => screen.getByRole('button', { name: 'Aanvragen' }) as HTMLButtonElement;
    const reproProblem = () => field('Git-repository (optioneel)').closest('.field')?.querySelector('.field-error')?.textContent ?? null;

    it('refuses a host the school does not allow at once, with the Dutch reason, and accepts an allowed one', () => {
      renderForm(undefined, vi.fn(), undefined, policy);
      fillValidRequest();
      expect(submitButton().disabled).toBe(false);
      fireEvent.change(field('Git-repository (optioneel)'), { target: { value: 'https://gitlab.example.com/sam/winkel.git' } });
      expect(reproProblem()).toMatch(/gitlab\.example\.com/);
      expect(reproProblem()).toMatch(/git\.school\.nl/);
      expect(submitButton().disabled).toBe(true);
      fireEvent.change(field('Git-repository (optioneel)'), { target: { value: 'https://git.school.nl/sam/winkel.git' } });
      expect(reproProblem()).toBeNull();
      expect(submitButton().disabled).toBe(false);
    });

    it('refuses file:// and a local path with a Dutch reason', () => {
      renderForm(undefined, vi.fn(), undefined, policy);
      fillValidRequest();
      fireEvent.change(field('Git-repository (optioneel)'), { target: { value: 'file:///home/sam/winkel' } });
      const fileReason = reproProblem();
      expect(fileReason).not.toBeNull();
      expect(fileReason).not.toMatch(/[Ff]ile protocol|not allowed/);
      expect(submitButton().disabled).toBe(true);
      fireEvent.change(field('Git-repository (optioneel)'), { target: { value: '/home/sam/winkel' } });
      expect(reproProblem()).not.toBeNull();
      expect(submitButton().disabled).toBe(true);
    });

    it('without the school policy (still loading, or failed) checks only the shape, as before', () => {
      renderForm();
      fillValidRequest();
      fireEvent.change(field('Git-repository (optioneel)'), { target: { value: 'https://gitlab.example.com/sam/winkel.git' } });
      expect(reproProblem()).toBeNull();
      expect(submitButton().disabled).toBe(false);
      fireEvent.change(field('Git-repository (optioneel)'), { target: { value: 'file:///home/sam/winkel' } });
      expect(reproProblem()).not.toBeNull();
    });

    it('sends the branch, empty for the default branch, and refuses an unsafe branch name', () => {
      const onSubmit = renderForm(undefined, vi.fn(), undefined, policy);
      fillValidRequest();
      fireEvent.change(field('Git-repository (optioneel)'), { target: { value: 'git@git.school.nl:sam/winkel.git' } });
      fireEvent.click(submitButton());
      expect(onSubmit).toHaveBeenLastCalledWith(expect.objectContaining({ repro: 'git@git.school.nl:sam/winkel.git', branch: '' }));
      fireEvent.change(field('Branch (leeg: de standaardbranch)'), { target: { value: '--upload-pack=x' } });
      expect(submitButton().disabled).toBe(true);
      fireEvent.change(field('Branch (leeg: de standaardbranch)'), { target: { value: 'develop' } });
      fireEvent.click(submitButton());
      expect(onSubmit).toHaveBeenLastCalledWith(expect.objectContaining({ branch: 'develop' }));
    });
  });
});
