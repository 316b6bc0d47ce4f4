import type { Knex } from 'knex';
import { slugifyName } from '../lib/slugify-name.ts';
import { seedCurriculum } from './seed-curriculum.ts';
import { PHP_KEEP_PATHS } from '@devplein/contract/validation/imageDeploy';

/**
 * Demo data for development, demos and tests: deterministic (the same rows, in the same
 * order, every run), so ids on an empty database are predictable — the six demo accounts are
 * users 1–6 in the order of `demoAccounts`, groups 1–4 are SD20–SD23, team 1 is 'Beheer'.
 */

/** The demo accounts other parts (dev identity provider, README, tests) rely on. */
export const demoAccounts = [
  { email: 'admin@devplein.test', name: 'Anna Admin', admin: true, developer: true, cohort: null, verified: true },
  { email: 'docent@devplein.test', name: 'Dirk Docent', admin: true, developer: false, cohort: null, verified: true },
  { email: 'ontwikkelaar@devplein.test', name: 'Olga Ontwikkelaar', admin: false, developer: true, cohort: 'SD22', verified: true },
  { email: 'student@devplein.test', name: 'Sam Student', admin: false, developer: false, cohort: 'SD23', verified: true },
  { email: 'zonderklas@devplein.test', name: 'Zoë Zonderklas', admin: false, developer: false, cohort: null, verified: true },
  { email: 'nieuw@devplein.test', name: 'Nina Nieuw', admin: false, developer: false, cohort: 'SD23', verified: false },
] as const;

export const COHORTS = ['SD20', 'SD21', 'SD22', 'SD23'] as const;
type Cohort = (typeof COHORTS)[number];

/** The domain under which student projects are served in the demo. */
export const DEMO_SITE_DOMAIN = 'dev.devplein.test';

interface SeedStudent {
  name: string;
  cohort: Cohort | null;
  developer?: boolean;
  /** Not yet activated by a teacher. */
  unverified?: boolean;
  disabled?: boolean;
  /** Overrides the e-mail address made from the name (e.g. for the account named 'import'). */
  email?: string;
}

// Further students. Developers are those in the developer track; 'import' is what accounts
// created by the yearly student import are called until someone fixes the name.
const students: readonly SeedStudent[] = [
  { name: 'Daan de Vries', cohort: 'SD20', developer: true },
  { name: 'Lotte Jansen', cohort: 'SD20' },
  { name: 'Bram Bakker', cohort: 'SD20', developer: true },
  { name: 'Sanne Visser', cohort: 'SD20' },
  { name: 'Thijs Smit', cohort: 'SD20' },
  { name: 'Fleur Meijer', cohort: 'SD20', developer: true },
  { name: 'Ruben de Boer', cohort: 'SD20' },
  { name: 'Eva Mulder', cohort: 'SD20' },
  { name: 'Jesse de Groot', cohort: 'SD21', developer: true },
  { name: 'Lisa Bos', cohort: 'SD21' },
  { name: 'Milan Vos', cohort: 'SD21' },
  { name: 'Noa Peters', cohort: 'SD21', developer: true },
  { name: 'Luuk Hendriks', cohort: 'SD21' },
  { name: 'Julia van Leeuwen', cohort: 'SD21' },
  { name: 'Sem Dekker', cohort: 'SD21', developer: true },
  { name: 'Iris Brouwer', cohort: 'SD21' },
  { name: 'Stijn de Wit', cohort: 'SD21' },
  { name: 'Finn Dijkstra', cohort: 'SD22', developer: true },
  { name: 'Emma Smits', cohort: 'SD22' },
  { name: 'Lars de Graaf', cohort: 'SD22', developer: true },
  { name: 'Tess van der Meer', cohort: 'SD22' },
  { name: 'Gijs van den Berg', cohort: 'SD22' },
  { name: 'Mila Kok', cohort: 'SD22' },
  { name: 'Niels Jacobs', cohort: 'SD22', developer: true },
  { name: 'Roos de Haan', cohort: 'SD22' },
  { name: 'Koen Vermeulen', cohort: 'SD22' },
  { name: 'Anouk van Dijk', cohort: 'SD22' },
  { name: 'Mees Schouten', cohort: 'SD23' },
  { name: 'Yara El Amrani', cohort: 'SD23' },
  { name: 'Sven van Beek', cohort: 'SD23', developer: true },
  { name: 'Lieke Willems', cohort: 'SD23' },
  { name: 'Timo Hoekstra', cohort: 'SD23' },
  { name: 'Femke Maas', cohort: 'SD23' },
  { name: 'Bilal Yilmaz', cohort: 'SD23' },
  { name: 'Jasmijn Verhoeven', cohort: 'SD23' },
  { name: 'Hidde Koster', cohort: 'SD23' },
  { name: 'Saar Prins', cohort: 'SD23', unverified: true },
  { name: 'import', cohort: 'SD23', unverified: true, email: 'r.dekker@student.devplein.test' },
  { name: 'Mohammed Bouzid', cohort: null },
  { name: 'Chloé Lambert', cohort: null },
  { name: 'Tim Huisman', cohort: null, developer: true },
  { name: 'Esmée Kuipers', cohort: null },
  { name: 'Rick Blom', cohort: null, disabled: true },
];

/** When each cohort's accounts were activated: the first school day of their first year. */
const cohortStart: Record<Cohort, string> = {
  SD20: '2020-08-31T08:00:00Z',
  SD21: '2021-08-30T08:00:00Z',
  SD22: '2022-08-29T08:00:00Z',
  SD23: '2023-09-04T08:00:00Z',
};
const STAFF_VERIFIED_AT = '2019-08-26T08:00:00Z';

/** Share of a category's levels a student of the cohort has finished (SD20 are furthest). */
const cohortProgress: Record<Cohort, number> = { SD20: 0.7, SD21: 0.5, SD22: 0.3, SD23: 0.15 };

const teams = [
  { name: 'Beheer', members: ['admin@devplein.test', 'docent@devplein.test', 'Jesse de Groot', 'Finn Dijkstra'] },
  { name: 'Webteam', members: ['admin@devplein.test', 'ontwikkelaar@devplein.test', 'Lars de Graaf', 'Emma Smits'] },
  { name: 'Open dag 2025', members: ['student@devplein.test', 'zonderklas@devplein.test', 'Mees Schouten', 'Lieke Willems'] },
] as const;

// Image id 1 is the special "other" choice: the spec shows such a request always in edit mode
// without an approve button, so a teacher first picks a real image.
/**
 * Linux capabilities of the seeded options (docs/operations.md, "Capabilities"). 'Statische site' is
 * busybox httpd as root on :80 (scripts/start.ts makes it): it needs none, since Docker lets any
 * user of a container bind ports below 1024. The SSH options get what dropbear needs (measured
 * with the SSH test image): SETUID/SETGID to become the student, CHOWN/FOWNER to hand over the
 * terminal, KILL so the agent can end a student's SSH sessions.
 */
const SSH_CAPABILITIES = ['CHOWN', 'FOWNER', 'KILL', 'SETGID', 'SETUID'];

const dockerImages = [
  { name: 'Anders (docent kiest)', image: 'devplein/base:latest', ssh: true, wordpress: false, capabilities: SSH_CAPABILITIES },
  { name: 'PHP 8.3 + Apache', image: 'devplein/php:8.3', ssh: true, wordpress: false, capabilities: SSH_CAPABILITIES, deploy_web_root: '/var/www/html', deploy_keep_paths: ['.env'] },
  { name: 'Node.js 20', image: 'devplein/node:20', ssh: true, wordpress: false, capabilities: SSH_CAPABILITIES },
  { name: 'WordPress', image: 'devplein/wordpress:6', ssh: true, wordpress: true, capabilities: SSH_CAPABILITIES, deploy_web_root: '/var/www/html', deploy_keep_paths: [...PHP_KEEP_PATHS] },
  { name: 'Statische site', image: 'devplein/static:latest', ssh: false, wordpress: false, capabilities: [] as string[], deploy_web_root: '/www' },
  { name: 'Python 3.12 (Flask)', image: 'devplein/python:3.12', ssh: true, wordpress: false, capabilities: SSH_CAPABILITIES },
] as const;
type DockerImageName = (typeof dockerImages)[number]['name'];

interface SeedProject {
  name: string;
  /** Members in order: demo e-mail addresses or student names. */
  members: readonly string[];
  image: DockerImageName;
  visible: boolean;
  validated: boolean | null;
  description: string;
  endDate?: string;
  /** Whether the project has a git repository yet. */
  git?: boolean;
}

const projects: readonly SeedProject[] = [
  { name: 'sam-portfolio', members: ['student@devplein.test'], image: 'PHP 8.3 + Apache', visible: true, validated: true, git: true,
    description: 'Mijn persoonlijke portfolio met de opdrachten van het eerste jaar en een contactformulier.' },
  { name: 'kantine-app', members: ['student@devplein.test', 'Mees Schouten', 'Lieke Willems'], image: 'Node.js 20', visible: false, validated: null,
    description: 'Bestel-app voor de schoolkantine: vooraf je lunch bestellen en ophalen zonder wachtrij.' },
  { name: 'olga-api', members: ['ontwikkelaar@devplein.test'], image: 'Node.js 20', visible: false, validated: true, git: true,
    description: 'REST API voor het roosterproject; alleen bedoeld voor de andere teams, daarom niet zichtbaar.' },
  { name: 'webshop-groen', members: ['ontwikkelaar@devplein.test', 'Lars de Graaf', 'Emma Smits'], image: 'PHP 8.3 + Apache', visible: true, validated: true, git: true,
    description: 'Webshop voor een tuincentrum, gemaakt in Laravel als groepsproject van SD22.', endDate: '2025-07-04' },
  { name: 'zoe-blog', members: ['zonderklas@devplein.test'], image: 'WordPress', visible: true, validated: true,
    description: 'Een WordPress-blog over mijn stage bij een webbureau, met een weekverslag per week.' },
  { name: 'daan-portfolio', members: ['Daan de Vries'], image: 'Statische site', visible: true, validated: true, git: true,
    description: 'Portfolio met mijn afstudeerproject en de projecten die ik tijdens mijn stage heb gemaakt.' },
  { name: 'lotte-fotografie', members: ['Lotte Jansen'], image: 'WordPress', visible: true, validated: true,
    description: 'Website voor mijn fotografiebedrijfje met een galerij en een boekingsformulier.', endDate: '2025-07-01' },
  { name: 'stage-dashboard', members: ['Bram Bakker', 'Sanne Visser'], image: 'PHP 8.3 + Apache', visible: false, validated: true, git: true,
    description: 'Dashboard waarop stagebegeleiders de voortgang van hun stagiairs kunnen volgen.' },
  { name: 'quiz-master', members: ['Jesse de Groot', 'Noa Peters'], image: 'Node.js 20', visible: true, validated: true, git: true,
    description: 'Een live quiz voor in de klas: de docent stelt vragen en studenten antwoorden op hun telefoon.' },
  { name: 'recepten-site', members: ['Lisa Bos'], image: 'PHP 8.3 + Apache', visible: true, validated: false,
    description: 'Receptenwebsite waar je op ingrediënten kunt zoeken en je eigen recepten kunt delen.' },
  { name: 'game-jam', members: ['Finn Dijkstra', 'Tess van der Meer', 'Gijs van den Berg'], image: 'Node.js 20', visible: true, validated: null,
    description: 'Browsergame die we in 48 uur maken tijdens de game jam van school, gebouwd met canvas.' },
  { name: 'eigen-server', members: ['Luuk Hendriks'], image: 'Anders (docent kiest)', visible: false, validated: null,
    description: 'Ik wil een Go-server draaien voor mijn Discord-bot; welke image daarvoor past weet ik nog niet.' },
  { name: 'roos-portfolio', members: ['Roos de Haan'], image: 'Statische site', visible: true, validated: true,
    description: 'Portfolio met mijn ontwerpen uit het vak UX en de front-endopdrachten van dit jaar.' },
  { name: 'yara-portfolio', members: ['Yara El Amrani'], image: 'Statische site', visible: true, validated: true,
    description: 'Mijn eerste website: een portfolio met HTML en CSS, gemaakt in de eerste periode.' },
  { name: 'bilal-webshop', members: ['Bilal Yilmaz'], image: 'PHP 8.3 + Apache', visible: false, validated: null,
    description: 'Webshop voor de sneakerwinkel van mijn oom, als oefenproject naast de lessen back-end.' },
  { name: 'voetbal-uitslagen', members: ['Milan Vos', 'Sem Dekker'], image: 'Python 3.12 (Flask)', visible: true, validated: true, git: true,
    description: 'Uitslagen en standen van de zaalvoetbalcompetitie van school, met een beheerpagina.' },
  { name: 'oude-intranet', members: [], image: 'PHP 8.3 + Apache', visible: false, validated: true,
    description: 'Het oude intranet van de opleiding; bewaard tot alles naar het nieuwe platform is overgezet.' },
];

const licenses = [
  { holder: 'ontwikkelaar@devplein.test', description: 'JetBrains PhpStorm (studentenlicentie)', license: 'JB-EDU-7Q4K-2M9P',
    approvedBy: 'docent@devplein.test', approvedAt: '2024-09-12T10:15:00Z' },
  { holder: 'Emma Smits', description: 'Adobe Creative Cloud voor het portfolio', license: 'ACC-STU-31F8-77AD', approvedBy: null, approvedAt: null },
  { holder: 'docent@devplein.test', description: 'Figma Education (docent)', license: 'FIG-EDU-0042-DD',
    approvedBy: 'admin@devplein.test', approvedAt: '2024-08-28T09:00:00Z' },
] as const;

/** How much the seed inserted, per table. */
export type SeedSummary = Record<
  'groups' | 'users' | 'teams' | 'levelCategories' | 'levelContents' | 'courses' | 'levels' | 'dockerImages' | 'projects' | 'licenses',
  number
>;

function studentEmail(student: SeedStudent): string {
  return student.email ?? `${slugifyName(student.name).replace(/-/g, '.')}@student.devplein.test`;
}

/** Sets a serial sequence to the table's highest id, after rows were inserted with explicit ids. */
async function syncIdSequence(knex: Knex, table: string): Promise<void> {
  await knex.raw(
    `select setval(pg_get_serial_sequence(?, 'id'), coalesce((select max(id) from ??), 0) + 1, false)`,
    [table, table],
  );
}

async function insertReturningIds<Row extends object>(knex: Knex, table: string, rows: readonly Row[]): Promise<number[]> {
  if (rows.length === 0) return [];
  const inserted = (await knex(table).insert(rows).returning('id')) as Array<{ id: number }>;
  return inserted.map((row) => row.id);
}

/**
 * Fills an empty, migrated database with the demo data (one transaction). Refuses when the
 * users table already has rows: the seed is meant for a fresh database only.
 */
export async function seedDemoData(knex: Knex): Promise<SeedSummary> {
  return knex.transaction(async (trx) => {
    const [{ count }] = (await trx('users').count({ count: '*' })) as [{ count: number | string }];
    if (Number(count) > 0) throw new Error('seedDemoData: the users table is not empty; seed only a fresh database');

    const groupIds = await insertReturningIds(trx, 'groups', COHORTS.map((cohort) => ({ cohort })));
    const groupIdOf = (cohort: Cohort | null): number | null => (cohort ? groupIds[COHORTS.indexOf(cohort)]! : null);

    // Users: the demo accounts first (ids 1-6 on an empty database), then the students.
    const demoRows = demoAccounts.map((account) => ({
      name: account.name,
      name_slug: slugifyName(account.name),
      email: account.email,
      email_verified_at: account.verified ? (account.cohort ? cohortStart[account.cohort] : STAFF_VERIFIED_AT) : null,
      admin: account.admin,
      developer: account.developer,
      group_id: groupIdOf(account.cohort),
    }));
    const studentRows = students.map((student) => ({
      name: student.name,
      name_slug: slugifyName(student.name),
      email: studentEmail(student),
      email_verified_at: student.unverified ? null : student.cohort ? cohortStart[student.cohort] : STAFF_VERIFIED_AT,
      disabled_at: student.disabled ? '2024-02-01T12:00:00Z' : null,
      admin: false,
      developer: student.developer ?? false,
      group_id: groupIdOf(student.cohort),
    }));
    const userIds = await insertReturningIds(trx, 'users', [...demoRows, ...studentRows]);
    const userIdByKey = new Map<string, number>();
    demoAccounts.forEach((account, index) => userIdByKey.set(account.email, userIds[index]!));
    students.forEach((student, index) => userIdByKey.set(student.name, userIds[demoAccounts.length + index]!));
    const userId = (key: string): number => {
      const id = userIdByKey.get(key);
      if (id === undefined) throw new Error(`seedDemoData: unknown user ${key}`);
      return id;
    };

    // Team 1 must have id 1 (its members see the project request counter): explicit id, then
    // the sequence moves past it so the other teams and later inserts get fresh ids.
    const [firstTeam, ...otherTeams] = teams;
    await trx('teams').insert({ id: 1, name: firstTeam.name });
    await syncIdSequence(trx, 'teams');
    const teamIds = [1, ...(await insertReturningIds(trx, 'teams', otherTeams.map((team) => ({ name: team.name }))))];
    await trx('team_user').insert(
      teams.flatMap((team, index) => team.members.map((member) => ({ team_id: teamIds[index]!, user_id: userId(member) }))),
    );

    // Curriculum.
    let levelContentCount = 0;
    let courseCount = 0;
    const categories: Array<{ id: number; number: number; contentIds: number[] }> = [];
    for (const category of seedCurriculum) {
      const [categoryId] = await insertReturningIds(trx, 'level_categories', [
        { title: category.title, number: category.number, icons: category.icons },
      ]);
      const contentIds: number[] = [];
      for (const content of category.contents) {
        const [contentId] = await insertReturningIds(trx, 'level_contents', [
          { title: content.title, title_for_teachers: content.titleForTeachers, level_category_id: categoryId },
        ]);
        contentIds.push(contentId!);
        for (const [coursePosition, course] of content.courses.entries()) {
          const [courseId] = await insertReturningIds(trx, 'courses', [
            { level_content_id: contentId, title: course.title, position: coursePosition },
          ]);
          await trx('course_texts').insert(
            course.texts.map((text, position) => ({ course_id: courseId, title: text.title, body: text.body, position })),
          );
          courseCount += 1;
        }
      }
      levelContentCount += contentIds.length;
      categories.push({ id: categoryId!, number: category.number, contentIds });
    }

    // Per-student levels for activated students of an SD cohort: finished levels, the one
    // they work on now (open) and the next one (locked). The spread within a cohort comes from
    // the student's position in the list, not from randomness.
    const levelRows: Array<Record<string, unknown>> = [];
    const levelStudents = [
      ...demoAccounts.filter((account) => account.cohort && account.verified).map((account) => ({ key: account.email, cohort: account.cohort! })),
      ...students.filter((student) => student.cohort && !student.unverified && !student.disabled).map((student) => ({ key: student.name, cohort: student.cohort! })),
    ];
    levelStudents.forEach((student, index) => {
      for (const category of categories) {
        const finished = Math.max(0, Math.min(category.number, Math.floor(category.number * cohortProgress[student.cohort]) + (index % 3) - 1));
        const last = Math.min(category.number, finished + 2);
        for (let number = 1; number <= last; number += 1) {
          levelRows.push({
            user_id: userId(student.key),
            level_category_id: category.id,
            level_content_id: category.contentIds[(number - 1) % category.contentIds.length] ?? null,
            number,
            status: number <= finished ? 'success' : number === finished + 1 ? 'open' : 'locked',
          });
        }
      }
    });
    await trx.batchInsert('levels', levelRows, 500);

    // Docker image options and projects.
    const imageIds = await insertReturningIds(trx, 'docker_images', dockerImages);
    const imageIdByName = new Map(dockerImages.map((image, index) => [image.name as string, imageIds[index]!]));
    for (const project of projects) {
      const owner = project.members[0];
      const [projectId] = await insertReturningIds(trx, 'projects', [
        {
          name: project.name,
          description: project.description,
          domain: `${project.name}.${DEMO_SITE_DOMAIN}`,
          visible: project.visible,
          repro: project.git && owner ? `https://git.devplein.test/${slugifyName(owner.split('@')[0]!)}/${project.name}.git` : null,
          end_date: project.endDate ?? null,
          docker_image_id: imageIdByName.get(project.image) ?? null,
          validated: project.validated,
          created_by: owner ? userId(owner) : userId('admin@devplein.test'),
        },
      ]);
      if (project.members.length > 0) {
        await trx('project_user').insert(
          project.members.map((member, position) => ({ project_id: projectId, user_id: userId(member), position })),
        );
      }
    }

    await trx('licenses').insert(
      licenses.map((license) => ({
        user_id: userId(license.holder),
        description: license.description,
        license: license.license,
        approved_at: license.approvedAt,
        approved_by: license.approvedBy ? userId(license.approvedBy) : null,
      })),
    );

    return {
      groups: groupIds.length,
      users: userIds.length,
      teams: teamIds.length,
      levelCategories: categories.length,
      levelContents: levelContentCount,
      courses: courseCount,
      levels: levelRows.length,
      dockerImages: imageIds.length,
      projects: projects.length,
      licenses: licenses.length,
    };
  });
}
