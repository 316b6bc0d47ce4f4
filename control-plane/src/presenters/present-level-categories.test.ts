import { describe, expect, it } from 'vitest';
import { presentLevelCategories, presentLevelProgress, shownLevelCount } from './present-level-categories.ts';

const categories = [
  { id: 1, title: 'Front-end', number: 3, icons: true },
  { id: 2, title: 'Projecten', number: 16, icons: false },
];

describe('shownLevelCount (spec §9)', () => {
  it('shows the 16-level category as 10 unless the cohort is SD20 or SD21', () => {
    expect(shownLevelCount(16, 'SD20')).toBe(16);
    expect(shownLevelCount(16, 'SD21')).toBe(16);
    expect(shownLevelCount(16, 'SD22')).toBe(10);
    expect(shownLevelCount(16, 'SD23')).toBe(10);
    expect(shownLevelCount(16, null)).toBe(10);
  });

  it('leaves every other category as it is', () => {
    expect(shownLevelCount(8, 'SD23')).toBe(8);
    expect(shownLevelCount(17, 'SD22')).toBe(17);
    expect(shownLevelCount(0, null)).toBe(0);
  });
});

describe('presentLevelCategories', () => {
  const levels = [
    { id: 11, level_category_id: 1, number: 1, status: 'success' as const, content_title: 'HTML', first_course_title: 'Je eerste webpagina' },
    { id: 12, level_category_id: 1, number: 2, status: 'open' as const, content_title: 'CSS', first_course_title: null },
    { id: 13, level_category_id: 2, number: 12, status: 'locked' as const, content_title: null, first_course_title: null },
  ];

  it('gives tiles 1..n with the first course title, placeholders for missing levels', () => {
    const [frontEnd] = presentLevelCategories(categories, levels, 'SD23');
    expect(frontEnd).toMatchObject({ id: 1, title: 'Front-end', number: 3, shownNumber: 3, icons: true });
    expect(frontEnd!.levels).toEqual([
      { id: 11, number: 1, title: 'Je eerste webpagina', status: 'success', content: { title: 'HTML' } },
      { id: 12, number: 2, title: 'CSS', status: 'open', content: { title: 'CSS' } },
      { id: null, number: 3, title: '-', status: 'locked', content: null },
    ]);
  });

  it('cuts the 16-level category to 10 tiles outside SD20/SD21 and keeps 16 inside', () => {
    const short = presentLevelCategories(categories, levels, 'SD22')[1]!;
    expect(short.number).toBe(16);
    expect(short.levels).toHaveLength(10);
    expect(short.levels.some((tile) => tile.id === 13)).toBe(false);
    const long = presentLevelCategories(categories, levels, 'SD21')[1]!;
    expect(long.levels).toHaveLength(16);
    expect(long.levels[11]).toEqual({ id: 13, number: 12, title: '-', status: 'locked', content: null });
  });
});

describe('presentLevelProgress', () => {
  it('counts finished levels per category within the shown count', () => {
    const levels = [
      { level_category_id: 1, number: 1, status: 'success' as const },
      { level_category_id: 1, number: 2, status: 'open' as const },
      { level_category_id: 2, number: 1, status: 'success' as const },
      { level_category_id: 2, number: 11, status: 'success' as const },
    ];
    expect(presentLevelProgress(categories, levels, 'SD23')).toEqual([
      { id: 1, title: 'Front-end', finished: 1, number: 3 },
      { id: 2, title: 'Projecten', finished: 1, number: 10 },
    ]);
    expect(presentLevelProgress(categories, levels, 'SD20')[1]).toEqual({ id: 2, title: 'Projecten', finished: 2, number: 16 });
  });

  it('is empty for a user without levels', () => {
    expect(presentLevelProgress(categories, [], 'SD23')).toEqual([]);
  });
});
