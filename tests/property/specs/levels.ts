/** Property specs of the teachers' level tools (admin): categories, content, courses, texts, files, student levels. */
import fc from 'fast-check';
import type { Knex } from 'knex';
import { bodyOf, hostileString, idSegment, idValue, queryOf, taint, type Fields, type RequestBody } from '../arbitraries.ts';
import { ids, validText } from '../fixtures.ts';
import { endpoint, type EndpointSpec, type PropertyStack } from '../harness.ts';

const categoryFields: Fields = {
  title: { valid: validText(1, 100), hostile: taint(validText(1, 100)) },
  number: { valid: fc.oneof(fc.integer({ min: 1, max: 50 }), fc.integer({ min: 1, max: 50 }).map(String)) },
  icons: { valid: fc.constantFrom(true, false, 0, 1, '0', '1'), optional: true },
};

const moveFields: Fields = { direction: { valid: fc.constantFrom('up', 'down'), hostile: fc.constantFrom('UP', 'up ', 'left', '', 'down\u0000') } };
const titleFields: Fields = { title: { valid: validText(1, 200), hostile: taint(validText(1, 200)) } };
const textFields: Fields = {
  title: { valid: validText(1, 200), hostile: taint(validText(1, 200)) },
  body: { valid: fc.oneof(validText(0, 400), fc.constant('# Kop\n\n```js\nconsole.log(1)\n```\n<script>x</script>')), hostile: taint(validText(0, 400)), optional: true },
};

interface Curriculum {
  categories: Array<{ id: number; number: number }>;
  contents: Array<{ id: number; level_category_id: number }>;
  courses: number[];
  /** Texts and files with their course. */
  texts: Array<{ id: number; course_id: number }>;
  files: Array<{ id: number; course_id: number }>;
  levels: number[];
  students: number[];
}

/** A course of the first content that the batch's deletes may take away: made afresh when few are left. */
async function ensureCourses(knex: Knex, atLeast: number): Promise<void> {
  const count = Number((await knex('courses').count<{ n: string }[]>({ n: '*' }))[0]?.n ?? 0);
  if (count >= atLeast) return;
  const content = await knex('level_contents').orderBy('id').first<{ id: number }>('id');
  await knex('courses').insert(Array.from({ length: atLeast - count }, (_, index) => ({ level_content_id: content.id, title: `Proefcursus ${index}`, position: 100 + index })));
}

async function ensureTexts(knex: Knex, atLeast: number): Promise<void> {
  const count = Number((await knex('course_texts').count<{ n: string }[]>({ n: '*' }))[0]?.n ?? 0);
  if (count >= atLeast) return;
  const courses = await ids(knex('courses').orderBy('id').limit(10));
  await knex('course_texts').insert(Array.from({ length: atLeast - count }, (_, index) => ({ course_id: courses[index % courses.length], title: `Proeftekst ${index}`, body: 'tekst', position: 100 + index })));
}

/** Course files go through the upload route (the bytes live in the store, the invariants compare both). */
async function ensureFiles(stack: PropertyStack, atLeast: number): Promise<void> {
  const count = Number((await stack.knex('course_files').count<{ n: string }[]>({ n: '*' }))[0]?.n ?? 0);
  const courses = await ids(stack.knex('courses').orderBy('id').limit(10));
  for (let index = count; index < atLeast; index++) {
    const answer = await stack.client('admin').send('POST', `/api/level/courses/${courses[index % courses.length]}/files?title=Proef&filename=proef.txt`, { kind: 'raw', data: 'inhoud', contentType: 'application/octet-stream' });
    if (answer.status !== 201) throw new Error(`fixture upload answered ${answer.status}: ${answer.text}`);
  }
}

async function curriculum(stack: PropertyStack, options: { courses?: number; texts?: number; files?: number } = {}): Promise<Curriculum> {
  const { knex } = stack;
  await ensureCourses(knex, options.courses ?? 20);
  await ensureTexts(knex, options.texts ?? 20);
  await ensureFiles(stack, options.files ?? 10);
  return {
    categories: (await knex('level_categories').select('id', 'number').orderBy('id').limit(50)).map((row: { id: number; number: number }) => ({ id: Number(row.id), number: Number(row.number) })),
    contents: await knex('level_contents').select('id', 'level_category_id').orderBy('id', 'desc').limit(100),
    courses: await ids(knex('courses').orderBy('id', 'desc').limit(200)),
    texts: await knex('course_texts').select('id', 'course_id').orderBy('id', 'desc').limit(200),
    files: await knex('course_files').select('id', 'course_id').orderBy('id', 'desc').limit(200),
    levels: await ids(knex('levels').orderBy('id', 'desc').limit(200)),
    students: await ids(knex('users').whereNotNull('group_id').orderBy('id').limit(60)),
  };
}

const categoryIds = (c: Curriculum): number[] => c.categories.map((category) => category.id);
const noParams = (body: fc.Arbitrary<RequestBody>) => body.map((b) => ({ body: b }));

/** A text or file of the curriculum with its course as the two path parameters (or hostile ones). */
const childParams = (rows: Array<{ id: number; course_id: number }>, courses: number[], child: 'textId' | 'fileId') =>
  fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom(...rows).map((row) => ({ courseId: String(row.course_id), [child]: String(row.id) })) },
    { weight: 2, arbitrary: fc.record({ courseId: idSegment(courses), [child]: idSegment(rows.map((row) => row.id)) }) },
  );

/** Valid level-change references: a category, a level number within it, content of that category. */
const levelChange = (c: Curriculum) =>
  fc.constantFrom(...c.categories).chain((category) => {
    const contents = c.contents.filter((content) => content.level_category_id === category.id).map((content) => content.id);
    return fc.record({
      category_id: fc.constant(category.id),
      level: fc.integer({ min: 1, max: Math.max(1, category.number) }),
      content_id: contents.length > 0 ? fc.constantFrom(...contents) : fc.constant(null),
    });
  });

const STATUS = fc.constantFrom('locked', 'open', 'success');
const STATUS_HOSTILE = fc.constantFrom('LOCKED', 'open ', 'done', '', 'success\u0000');

export const levelSpecs: EndpointSpec[] = [
  endpoint({ route: 'POST /api/level/categories/store', as: 'admin', request: () => noParams(bodyOf(categoryFields, { form: true })) }),
  endpoint({
    route: 'POST /api/level/categories/update/:id',
    as: 'admin',
    prepare: (stack) => curriculum(stack),
    request: (c) => fc.record({ params: fc.record({ id: idSegment(categoryIds(c)) }), body: bodyOf(categoryFields) }),
  }),
  endpoint({
    route: 'POST /api/level/content/store',
    as: 'admin',
    prepare: (stack) => curriculum(stack),
    request: (c) =>
      noParams(
        bodyOf({
          title: { valid: validText(1, 200), hostile: taint(validText(1, 200)) },
          title_for_teachers: { valid: fc.oneof(validText(0, 200), fc.constant(null)), optional: true },
          level_categories_id: { valid: idValue(categoryIds(c)) },
        }),
      ),
  }),
  endpoint({
    route: 'POST /api/level/content/update/:id',
    as: 'admin',
    prepare: (stack) => curriculum(stack),
    request: (c) =>
      fc.record({
        params: fc.record({ id: idSegment(c.contents.map((content) => content.id)) }),
        body: bodyOf({
          title: { valid: validText(1, 200), hostile: taint(validText(1, 200)) },
          title_for_teachers: { valid: fc.oneof(validText(0, 200), fc.constant(null)), optional: true },
          level_categories_id: { valid: idValue(categoryIds(c)) },
        }),
      }),
  }),
  endpoint({
    route: 'POST /api/level/content/:id/courses',
    as: 'admin',
    prepare: (stack) => curriculum(stack),
    request: (c) => fc.record({ params: fc.record({ id: idSegment(c.contents.map((content) => content.id)) }), body: bodyOf(titleFields) }),
  }),
  endpoint({
    route: 'PUT /api/level/courses/:courseId',
    as: 'admin',
    prepare: (stack) => curriculum(stack),
    request: (c) => fc.record({ params: fc.record({ courseId: idSegment(c.courses) }), body: bodyOf(titleFields) }),
  }),
  endpoint({
    route: 'DELETE /api/level/courses/:courseId',
    as: 'admin',
    // Deletes take courses (with their texts and files) away: a fresh stock every batch.
    batchSize: 100,
    prepare: (stack) => curriculum(stack, { courses: 60, texts: 20, files: 5 }),
    request: (c) => fc.record({ params: fc.record({ courseId: idSegment(c.courses) }), body: bodyOf({}) }),
  }),
  endpoint({
    route: 'POST /api/level/courses/:courseId/move',
    as: 'admin',
    prepare: (stack) => curriculum(stack),
    request: (c) => fc.record({ params: fc.record({ courseId: idSegment(c.courses) }), body: bodyOf(moveFields, { form: true }) }),
  }),
  endpoint({
    route: 'POST /api/level/courses/:courseId/texts',
    as: 'admin',
    prepare: (stack) => curriculum(stack),
    request: (c) => fc.record({ params: fc.record({ courseId: idSegment(c.courses) }), body: bodyOf(textFields) }),
  }),
  endpoint({
    route: 'PUT /api/level/courses/:courseId/texts/:textId',
    as: 'admin',
    prepare: (stack) => curriculum(stack),
    request: (c) => fc.record({ params: childParams(c.texts, c.courses, 'textId'), body: bodyOf(textFields) }),
  }),
  endpoint({
    route: 'DELETE /api/level/courses/:courseId/texts/:textId',
    as: 'admin',
    batchSize: 100,
    prepare: (stack) => curriculum(stack, { texts: 60 }),
    request: (c) => fc.record({ params: childParams(c.texts, c.courses, 'textId'), body: bodyOf({}) }),
  }),
  endpoint({
    route: 'POST /api/level/courses/:courseId/texts/:textId/move',
    as: 'admin',
    prepare: (stack) => curriculum(stack),
    request: (c) => fc.record({ params: childParams(c.texts, c.courses, 'textId'), body: bodyOf(moveFields) }),
  }),
  endpoint({
    route: 'POST /api/level/courses/:courseId/files',
    as: 'admin',
    prepare: (stack) => curriculum(stack),
    request: (c) =>
      fc.record({
        params: fc.record({ courseId: idSegment(c.courses) }),
        query: queryOf({
          title: { valid: validText(1, 200), hostile: taint(validText(1, 200)) },
          filename: {
            valid: fc.tuple(validText(1, 40), fc.constantFrom('pdf', 'zip', 'png', 'jpg', 'JPEG', 'txt', 'md', 'docx', 'pptx', 'xlsx')).map(([stem, extension]) => `${stem.trim()}.${extension}`),
            hostile: fc.oneof(
              fc.constantFrom('../../../escape.pdf', '..\\..\\escape.pdf', '/etc/passwd.txt', 'a/b.pdf', '..', '.pdf', 'x.pdf\u0000.exe', 'x.exe', 'x.PDF ', 'x.pdf/', 'con.txt', '%2e%2e%2fx.pdf', 'x\r\nSet-Cookie: a=b.txt', 'x.txt\u202egpj'),
              hostileString().map((stem) => `${stem}.pdf`),
            ),
          },
        }),
        body: fc.oneof(
          { weight: 6, arbitrary: fc.uint8Array({ minLength: 1, maxLength: 2048 }).map((data): RequestBody => ({ kind: 'raw', data, contentType: 'application/octet-stream' })) },
          { weight: 1, arbitrary: fc.constantFrom<RequestBody>({ kind: 'none' }, { kind: 'raw', data: '', contentType: 'application/octet-stream' }, { kind: 'raw', data: '%PDF-1.4', contentType: 'text/plain' }) },
          { weight: 1, arbitrary: bodyOf({}) },
        ),
      }),
  }),
  endpoint({
    route: 'PUT /api/level/courses/:courseId/files/:fileId',
    as: 'admin',
    prepare: (stack) => curriculum(stack),
    request: (c) => fc.record({ params: childParams(c.files, c.courses, 'fileId'), body: bodyOf(titleFields) }),
  }),
  endpoint({
    route: 'DELETE /api/level/courses/:courseId/files/:fileId',
    as: 'admin',
    batchSize: 100,
    prepare: (stack) => curriculum(stack, { files: 40 }),
    request: (c) => fc.record({ params: childParams(c.files, c.courses, 'fileId'), body: bodyOf({}) }),
  }),
  endpoint({
    route: 'POST /api/level/courses/:courseId/files/:fileId/move',
    as: 'admin',
    prepare: (stack) => curriculum(stack),
    request: (c) => fc.record({ params: childParams(c.files, c.courses, 'fileId'), body: bodyOf(moveFields) }),
  }),
  endpoint({
    route: 'POST /api/level/update/multiple',
    as: 'admin',
    prepare: (stack) => curriculum(stack),
    request: (c) =>
      levelChange(c).chain((change) =>
        noParams(
          bodyOf(
            {
              level: { valid: fc.oneof(fc.constant(change.level), fc.constant(String(change.level))) },
              status: { valid: STATUS, hostile: STATUS_HOSTILE },
              category_id: { valid: idValue([change.category_id]) },
              content_id: { valid: change.content_id === null ? fc.constant(undefined) : idValue([change.content_id]), optional: true },
              ids: { valid: fc.uniqueArray(fc.constantFrom(...c.students), { minLength: 1, maxLength: 8 }), hostile: fc.array(idValue(c.students), { maxLength: 5 }) },
            },
            { form: true },
          ),
        ),
      ),
  }),
  endpoint({
    route: 'POST /api/level/update-status',
    as: 'admin',
    prepare: (stack) => curriculum(stack),
    request: (c) => noParams(bodyOf({ level: { valid: idValue(c.levels) }, status: { valid: STATUS, hostile: STATUS_HOSTILE } }, { form: true })),
  }),
  endpoint({
    route: 'POST /api/level/store',
    as: 'admin',
    prepare: (stack) => curriculum(stack),
    request: (c) =>
      levelChange(c).chain((change) =>
        noParams(
          bodyOf({
            number: { valid: fc.constant(change.level) },
            level: { valid: fc.constantFrom(change.level, String(change.level), null), optional: true },
            content_id: { valid: fc.oneof(fc.constant(change.content_id), fc.constant(null)) },
            category_id: { valid: idValue([change.category_id]) },
            user: { valid: idValue(c.students) },
          }),
        ),
      ),
  }),
];

