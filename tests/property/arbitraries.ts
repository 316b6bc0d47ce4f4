/**
 * fast-check arbitraries for the property tests of the write endpoints: hostile values (long,
 * unicode, NUL and control characters, quotes and SQL/shell/path metacharacters, numbers as
 * strings, huge/negative/float ids, arrays where scalars belong, prototype-pollution keys), and
 * request bodies that mix totally random JSON, raw bytes, the right shape with hostile values and
 * near-valid bodies (so a good share gets through validation to the act step).
 */
import fc from 'fast-check';

/** What one generated request sends as its body. */
export type RequestBody =
  | { kind: 'none' }
  | { kind: 'json'; value: unknown }
  | { kind: 'raw'; data: string | Uint8Array; contentType?: string };

/** Strings that break naive code: quoting, LIKE and path metacharacters, NUL, lone surrogates, lookalikes. */
export const SPECIAL_STRINGS: readonly string[] = [
  '', ' ', '  ', '\t', '\n', '\r\n', '\u0000', 'a\u0000b', '\u0007', '\u001b[31m', '\u007f',
  "'", '"', '`', ';', "'; DROP TABLE users; --", "' OR '1'='1", '\\', '\\\\', '%', '_', '%_%', '\\%',
  '../', '../../../../etc/passwd', '..', '.', '/', '\\..\\..\\windows', '~', '~root', '$HOME', '${7*7}', '$(id)', '|| id',
  '<script>alert(1)</script>', '{{7*7}}', '%00', '%2e%2e%2f', '%252e', 'null', 'undefined', 'NaN', 'Infinity', 'true', 'false',
  '\ud800', '\udfff', 'a\ud83d', '😀', '👩‍👩‍👧', 'é', 'e\u0301', 'ß', 'İ', 'ﬀ', 'К', 'Ａ', '１２３', '٣', '\u202e', '\u200b', '\ufeff', '\u2028',
  '__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty',
  '0', '-1', '1.5', '1e3', '1e309', '0x10', '0b1', '0o7', ' 1', '1 ', '+1', '01', '00000000001', '2147483648', '9007199254740993', '-0',
  'localhost', '127.0.0.1', 'example.com', 'a.dev.devplein.test', '*.dev.devplein.test', 'xn--bcher-kva.dev.devplein.test',
  'http://x', 'https://evil.example/x', 'git@evil:x', 'file:///etc/passwd', 'javascript:alert(1)',
];

/** Property names that pollute or shadow when merged into objects carelessly. */
export const PROTO_KEYS: readonly string[] = ['__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', '__defineGetter__'];

const NUMBER_EDGES: readonly number[] = [
  0, -0, 1, -1, 2, 1.5, -1.5, 0.1, 2 ** 31 - 1, 2 ** 31, -(2 ** 31), 2 ** 32, 2 ** 53 - 1, 2 ** 53 + 2, 1e21, -1e21, 1e308, -1e308,
  Number.MIN_VALUE, Number.EPSILON, 50, 51, 100, 1000,
];

const NUMERIC_STRINGS: readonly string[] = ['0', '-1', '1.0', '1.5', '1e2', '1e-7', '0x1', ' 2', '2 ', '+3', '007', '１', '1_000', '1,5', '', 'Infinity', '-Infinity', 'NaN', '99999999999', '2147483648', '4294967296'];

/** Any JSON number worth trying where an id or a count belongs. */
export const hostileNumber = (): fc.Arbitrary<number> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...NUMBER_EDGES) },
    { weight: 2, arbitrary: fc.integer() },
    { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
  );

/** Long strings: around the limits of the schemas and the body parser. */
const longString = (): fc.Arbitrary<string> =>
  fc
    .tuple(
      fc.constantFrom('a', 'é', '😀', '\u0000', ' ', '-', '%', 'ab-'),
      fc.constantFrom(31, 32, 60, 61, 63, 64, 100, 101, 200, 201, 253, 254, 256, 300, 301, 500, 501, 5000, 5001, 20_000, 100_001),
    )
    .map(([unit, length]) => unit.repeat(length));

/** Inserts a special string into a (usually valid) string at some position: almost right, not quite. */
export const taint = (valid: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc.tuple(valid, fc.constantFrom(...SPECIAL_STRINGS), fc.nat()).map(([text, special, at]) => {
    const index = text.length === 0 ? 0 : at % (text.length + 1);
    return `${text.slice(0, index)}${special}${text.slice(index)}`;
  });

/** A hostile string of any kind. */
export const hostileString = (): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...SPECIAL_STRINGS) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
    { weight: 2, arbitrary: taint(fc.string({ unit: 'grapheme-ascii', maxLength: 20 })) },
    { weight: 1, arbitrary: longString() },
  );

const hostileScalar = (): fc.Arbitrary<unknown> =>
  fc.oneof(
    { weight: 4, arbitrary: hostileString() },
    { weight: 3, arbitrary: hostileNumber() },
    { weight: 1, arbitrary: fc.constantFrom(...NUMERIC_STRINGS) },
    { weight: 1, arbitrary: fc.constantFrom<unknown>(true, false, null) },
  );

/** An object whose keys include the prototype-pollution names. */
export const pollutedObject = (values: fc.Arbitrary<unknown> = hostileScalar()): fc.Arbitrary<Record<string, unknown>> =>
  fc
    .array(fc.tuple(fc.oneof(fc.constantFrom(...PROTO_KEYS), fc.string({ maxLength: 8 })), values), { maxLength: 4 })
    // fromEntries defines own properties, so '__proto__' is sent as a key, not swallowed as the prototype.
    .map((entries) => Object.fromEntries(entries));

/** Anything JSON can carry where one value is expected: scalars, arrays where scalars belong, objects. */
export const hostileValue = (): fc.Arbitrary<unknown> =>
  fc.oneof(
    { weight: 6, arbitrary: hostileScalar() },
    { weight: 1, arbitrary: fc.array(hostileScalar(), { maxLength: 3 }) },
    { weight: 1, arbitrary: pollutedObject() },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  );

/** A database id: one of the given (as a number or a string of digits), or a hostile value. */
export const idValue = (valid: readonly number[]): fc.Arbitrary<unknown> =>
  valid.length === 0
    ? hostileValue()
    : fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom(...valid) },
        { weight: 1, arbitrary: fc.constantFrom(...valid).map(String) },
        { weight: 1, arbitrary: hostileNumber() },
        { weight: 1, arbitrary: fc.constantFrom(...NUMERIC_STRINGS) },
        { weight: 1, arbitrary: hostileValue() },
      );

/** One field of a body or query: its valid values, and what to try instead (default: hostileValue). */
export interface Field {
  valid: fc.Arbitrary<unknown>;
  hostile?: fc.Arbitrary<unknown>;
  /** Left out of otherwise valid records now and then (it has a default). */
  optional?: boolean;
}

export type Fields = Record<string, Field>;

const MISSING = Symbol('missing');

const hostileOf = (field: Field): fc.Arbitrary<unknown> =>
  field.hostile ? fc.oneof({ weight: 2, arbitrary: field.hostile }, { weight: 1, arbitrary: hostileValue() }) : hostileValue();

/** Records with every field valid (optional ones sometimes left out). */
export const validRecord = (fields: Fields): fc.Arbitrary<Record<string, unknown>> =>
  fc
    .record(
      Object.fromEntries(
        Object.entries(fields).map(([name, field]) => [
          name,
          field.optional ? fc.option(field.valid, { nil: MISSING as unknown, freq: 4 }) : field.valid,
        ]),
      ),
    )
    .map((record) => Object.fromEntries(Object.entries(record).filter(([, value]) => value !== MISSING)));

/** A valid record with one thing wrong: a field hostile, a field missing, or an extra (polluting) key. */
export const nearValidRecord = (fields: Fields): fc.Arbitrary<Record<string, unknown>> => {
  const names = Object.keys(fields);
  if (names.length === 0) return pollutedObject();
  return fc.tuple(validRecord(fields), fc.constantFrom(...names), fc.nat({ max: 5 })).chain(([record, name, how]) => {
    const field = fields[name] as Field;
    if (how <= 2) return hostileOf(field).map((value) => ({ ...record, [name]: value }));
    if (how === 3) return fc.constant(Object.fromEntries(Object.entries(record).filter(([key]) => key !== name)));
    return fc.tuple(fc.constantFrom(...PROTO_KEYS), hostileValue()).map(([key, value]) => Object.fromEntries([...Object.entries(record), [key, value]]));
  });
};

/** Every field hostile: the right shape, wrong values. */
export const hostileRecord = (fields: Fields): fc.Arbitrary<Record<string, unknown>> =>
  fc.record(Object.fromEntries(Object.entries(fields).map(([name, field]) => [name, hostileOf(field)])));

/** Bodies that are not the JSON the route expects at all. */
export const rawBody = (): fc.Arbitrary<RequestBody> =>
  fc.oneof(
    fc.constant<RequestBody>({ kind: 'none' }),
    fc
      .constantFrom('', '{', '[', '{"a":', 'nul', '{"a":1,}', "{'a':1}", '{"a":1}{"b":2}', '\u0000', '{"__proto__":{"admin":true}}', '{"constructor":{"prototype":{"admin":true}}}', '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]', '"x"', '0', 'true', 'null', '1e999', '-')
      .map((data): RequestBody => ({ kind: 'raw', data, contentType: 'application/json' })),
    fc.string({ unit: 'binary', maxLength: 60 }).map((data): RequestBody => ({ kind: 'raw', data, contentType: 'application/json' })),
    fc
      .tuple(fc.uint8Array({ maxLength: 64 }), fc.constantFrom('application/json', 'text/plain', 'application/xml', 'application/octet-stream', 'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded', 'application/json; charset=latin1', 'application/vnd.api+json', 'Application/JSON'))
      .map(([data, contentType]): RequestBody => ({ kind: 'raw', data, contentType })),
    fc
      .constantFrom('a=1&a=2', '__proto__[admin]=true', 'constructor[prototype][admin]=1', 'a[b][c][d][e][f][g]=1', 'a[]=1&a[]=2', 'a=%zz', '%00=%00', '=&=&', 'a[0]=b&a[99999]=c')
      .map((data): RequestBody => ({ kind: 'raw', data, contentType: 'application/x-www-form-urlencoded' })),
  );

/** A record as an HTML form would post it (the body parser accepts forms; qs nests `a[b]` keys). */
const formOf = (record: Record<string, unknown>): RequestBody => {
  const form = new URLSearchParams();
  for (const [key, value] of Object.entries(record)) {
    if (Array.isArray(value)) for (const item of value) form.append(`${key}[]`, String(item));
    else form.append(key, typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value));
  }
  return { kind: 'raw', data: form.toString(), contentType: 'application/x-www-form-urlencoded' };
};

const json = (value: unknown): RequestBody => ({ kind: 'json', value });

/**
 * The body mix of one endpoint: totally random JSON and raw bytes now and then, the right shape
 * with hostile values, near-valid records, and (the largest share) valid ones, some of those as
 * a form post. With no fields, the route takes no body: everything sent is noise.
 */
export const bodyOf = (fields: Fields, options: { form?: boolean } = {}): fc.Arbitrary<RequestBody> =>
  fc.oneof(
    { weight: 1, arbitrary: fc.anything({ maxDepth: 2, withNullPrototype: true }).map((value) => json(value)) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map(json) },
    { weight: 1, arbitrary: rawBody() },
    { weight: 2, arbitrary: hostileRecord(fields).map(json) },
    { weight: 4, arbitrary: nearValidRecord(fields).map(json) },
    { weight: 6, arbitrary: validRecord(fields).map(json) },
    { weight: options.form ? 2 : 0, arbitrary: validRecord(fields).map(formOf) },
  );

/** Percent-encodes a string as a path segment or query part (lone surrogates become U+FFFD, as a browser does). */
export function encodePart(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const char = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-._~]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Path segments that are not even well-formed percent-encoding (sent as they are). */
const RAW_SEGMENTS: readonly string[] = ['%', '%zz', '%E0%A4%A', '%00', '%2e%2e', '..', '.', '%2F', '%252F', '%C0%AE', '%FF%FE', ';', ',', "'", '~', '%20', '+'];

/**
 * URLs stay below Node's 16 KB header limit: a longer one is refused (431) by the HTTP parser
 * before the app sees it, and no browser or proxy in front would pass it on anyway.
 */
const MAX_URL_PART = 4000;

/** A route parameter: mostly one of the valid values, else hostile (encoded) or malformed. */
export const pathSegment = (valid: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 6, arbitrary: valid.map(encodePart) },
    { weight: 2, arbitrary: hostileString().map(encodePart) },
    { weight: 1, arbitrary: fc.constantFrom(...NUMERIC_STRINGS, ...NUMBER_EDGES.map(String)).map(encodePart) },
    { weight: 1, arbitrary: fc.constantFrom(...RAW_SEGMENTS) },
  ).filter((segment) => segment.length <= MAX_URL_PART);

/** An id parameter: one of the valid ids, else hostile. */
export const idSegment = (valid: readonly number[]): fc.Arbitrary<string> =>
  pathSegment(valid.length === 0 ? fc.nat().map(String) : fc.constantFrom(...valid).map(String));

/** A query string (without '?'): valid, near-valid, hostile or malformed. */
export const queryOf = (fields: Fields): fc.Arbitrary<string> => {
  const encode = (record: Record<string, unknown>): string =>
    Object.entries(record)
      .flatMap(([key, value]) =>
        (Array.isArray(value) ? value : [value]).map((item) => `${encodePart(key)}=${encodePart(typeof item === 'object' && item !== null ? JSON.stringify(item) : String(item))}`),
      )
      .join('&');
  return fc.oneof(
    { weight: 6, arbitrary: validRecord(fields).map(encode) },
    { weight: 3, arbitrary: nearValidRecord(fields).map(encode) },
    { weight: 1, arbitrary: hostileRecord(fields).map(encode) },
    { weight: 1, arbitrary: fc.constantFrom('', '&', '=', '%', '%zz', 'a=%E0%A4%A', '__proto__=x', 'a[b]=c', '&&&=&&', ';') },
  ).filter((query) => query.length <= MAX_URL_PART);
};

/** A request whose only input is one id parameter (deletes, toggles): the body is noise to ignore. */
export const idOnlyRequest = (valid: readonly number[], param = 'id'): fc.Arbitrary<{ params: Record<string, string>; body: RequestBody }> =>
  fc.record({ params: fc.record({ [param]: idSegment(valid) }), body: bodyOf({}) });
