import type { CallOptions } from '../src/signals';
import type { DatabaseSchema, TypeDescription } from '../src/types';
import { DEFAULT_SCHEMA_TTL_MS, SchemaCache, type KnownSchema } from '../src/typed/schema-cache';
import { definitionOf, InputError, UnknownPropertyError, UnknownTypeError } from '../src/typed/values';
import { def } from './support/definitions';

/**
 * The schema a database handle works from: fetched once for callers arriving together, kept for a
 * while, fetched afresh once when a name is missing from an older copy, never in a loop.
 */

const type = (id: string, name: string, ...properties: string[]): TypeDescription => ({ _id: id, name, properties: properties.map((name) => def(name)) });

const V1: DatabaseSchema = { types: [type('t-book', 'book', 'title'), type('t-person', 'person', 'name')] };
const V2: DatabaseSchema = { types: [type('t-book', 'book', 'title', 'subtitle'), type('t-person', 'person', 'name'), type('t-shelf', 'shelf', 'label')] };

/** A fetch that answers the given schemas in turn (the last one from then on) and counts its calls. */
function fetcher(...answers: (DatabaseSchema | Error)[]) {
  const calls: CallOptions[] = [];
  const fetch = jest.fn(async (options: CallOptions) => {
    calls.push(options);
    const answer = answers[Math.min(calls.length, answers.length) - 1]!;
    await Promise.resolve();
    if (answer instanceof Error) throw answer;
    return answer;
  });
  return { fetch, calls };
}

/** A fetch that answers only when told, to hold callers while it runs; it stops, as the client's does, when its signal aborts. */
function gated() {
  const pending: { resolve: (schema: DatabaseSchema) => void; reject: (error: Error) => void }[] = [];
  const fetch = jest.fn(
    (options: CallOptions) =>
      new Promise<DatabaseSchema>((resolve, reject) => {
        pending.push({ resolve, reject });
        options.signal?.addEventListener('abort', () => reject(options.signal?.reason as Error), { once: true });
        if (options.timeoutMs) setTimeout(() => reject(new DOMException('timed out', 'TimeoutError')), options.timeoutMs);
      }),
  );
  return { fetch, pending };
}

/** Reads property `name` of the type, as toValueInputs does: unknown when the type lacks it. */
const property = (name: string) => (t: TypeDescription) => {
  const found = definitionOf(t, name);
  if (!found) throw new UnknownPropertyError(name, t.name);
  return found.name;
};

let now = 1_000_000;
beforeEach(() => {
  now = 1_000_000;
  jest.spyOn(Date, 'now').mockImplementation(() => now);
});
afterEach(() => jest.restoreAllMocks());

describe('SchemaCache: fetching', () => {
  it('fetches on first use, not before', async () => {
    const { fetch } = fetcher(V1);
    const cache = new SchemaCache(fetch);
    expect(fetch).not.toHaveBeenCalled();
    const known = await cache.current();
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(known.schema).toBe(V1);
    expect(known.loadedAt).toBe(now);
  });

  it.each<[string, number]>([
    ['two callers', 2],
    ['ten callers', 10],
  ])('%s arriving together share one fetch', async (_case, callers) => {
    const { fetch, pending } = gated();
    const cache = new SchemaCache(fetch);
    const all = Promise.all(Array.from({ length: callers }, () => cache.current()));
    await Promise.resolve();
    expect(fetch).toHaveBeenCalledTimes(1);
    pending[0]!.resolve(V1);
    const known = await all;
    expect(new Set(known).size).toBe(1);
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it('callers of withType arriving together share one fetch', async () => {
    const { fetch, pending } = gated();
    const cache = new SchemaCache(fetch);
    const all = Promise.all([cache.withType('book', {}, (t) => t._id), cache.withType('person', {}, (t) => t._id), cache.current()]);
    await Promise.resolve();
    pending[0]!.resolve(V1);
    expect((await all).slice(0, 2)).toEqual(['t-book', 't-person']);
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it('reload joins a fetch under way', async () => {
    const { fetch, pending } = gated();
    const cache = new SchemaCache(fetch);
    const first = cache.current();
    const second = cache.reload();
    pending[0]!.resolve(V1);
    expect(await second).toBe(await first);
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it('one caller giving up does not fail the others sharing the fetch', async () => {
    const { fetch, pending } = gated();
    const cache = new SchemaCache(fetch);
    const leaving = new AbortController();
    const first = cache.current({ signal: leaving.signal });
    const second = cache.current();
    leaving.abort(new Error('unmounted'));
    await expect(first).rejects.toThrow('unmounted');
    pending[0]!.resolve(V1);
    expect((await second).schema).toBe(V1);
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it('a caller’s short timeout ends its own wait only', async () => {
    const { fetch, pending } = gated();
    const cache = new SchemaCache(fetch);
    const hasty = cache.current({ timeoutMs: 1 });
    const patient = cache.withType('book', {}, (t) => t._id);
    await expect(hasty).rejects.toMatchObject({ name: 'TimeoutError' });
    pending[0]!.resolve(V1);
    await expect(patient).resolves.toBe('t-book');
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it('an already aborted signal fails at once', async () => {
    const { fetch, pending } = gated();
    const cache = new SchemaCache(fetch);
    const reason = new Error('stop');
    await expect(cache.current({ signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    pending[0]?.resolve(V1);
  });

  it('the shared fetch runs under no caller’s signal or timeout (the client’s own limit applies)', async () => {
    const { fetch, calls } = fetcher(V1);
    await new SchemaCache(fetch).current({ signal: new AbortController().signal, timeoutMs: 5 });
    expect(calls).toEqual([{}]);
  });

  it('a failed fetch fails every caller waiting for it, and is not kept: the next call fetches again', async () => {
    const { fetch } = fetcher(new Error('503'), V1);
    const cache = new SchemaCache(fetch);
    const results = await Promise.allSettled([cache.current(), cache.current()]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    expect(fetch).toHaveBeenCalledTimes(1);
    expect((await cache.current()).schema).toBe(V1);
    expect(fetch).toHaveBeenCalledTimes(2);
  });
});

describe('SchemaCache: how long a schema is kept', () => {
  it.each<[string, number | undefined, number, number]>([
    ['just fetched', undefined, 0, 1],
    ['a moment before the default minute ends', undefined, DEFAULT_SCHEMA_TTL_MS - 1, 1],
    ['when the default minute ends', undefined, DEFAULT_SCHEMA_TTL_MS, 2],
    ['long after', undefined, 3_600_000, 2],
    ['a TTL of 5 s, after 4 s', 5_000, 4_000, 1],
    ['a TTL of 5 s, after 5 s', 5_000, 5_000, 2],
    ['a TTL of 0: every call', 0, 0, 2],
  ])('%s', async (_case, ttl, elapsed, fetches) => {
    const { fetch } = fetcher(V1, V2);
    const cache = ttl === undefined ? new SchemaCache(fetch) : new SchemaCache(fetch, ttl);
    await cache.current();
    now += elapsed;
    const known = await cache.current();
    expect(fetch).toHaveBeenCalledTimes(fetches);
    expect(known.schema).toBe(fetches === 1 ? V1 : V2);
    expect(known.loadedAt).toBe(fetches === 1 ? now - elapsed : now);
  });

  it('a refetch restarts the TTL', async () => {
    const { fetch } = fetcher(V1, V2, V1);
    const cache = new SchemaCache(fetch, 1_000);
    await cache.current();
    now += 1_000;
    await cache.current();
    now += 999;
    await cache.current();
    expect(fetch).toHaveBeenCalledTimes(2);
  });
});

describe('SchemaCache.withType: a name missing from the schema', () => {
  /** A cache holding V1 for a while already, then V2 on a refetch. */
  async function warm(...next: (DatabaseSchema | Error)[]) {
    const counted = fetcher(V1, ...(next.length > 0 ? next : [V2]));
    const cache = new SchemaCache(counted.fetch);
    await cache.current();
    now += 1_000;
    return { cache, fetch: counted.fetch };
  }

  it.each<[string, string, (t: TypeDescription, known: KnownSchema) => unknown, unknown]>([
    ['a type created since: fetched once more, then found', 'shelf', (t) => t._id, 't-shelf'],
    ['a property created since: fetched once more, then found', 'book', property('subtitle'), 'subtitle'],
    [
      'an async use that misses a property',
      'book',
      async (t) => {
        await Promise.resolve();
        return property('subtitle')(t);
      },
      'subtitle',
    ],
  ])('%s', async (_case, name, use, expected) => {
    const { cache, fetch } = await warm();
    await expect(cache.withType(name, {}, use)).resolves.toEqual(expected);
    expect(fetch).toHaveBeenCalledTimes(2);
    // The fresh schema is kept: the next call fetches nothing.
    await expect(cache.withType(name, {}, use)).resolves.toEqual(expected);
    expect(fetch).toHaveBeenCalledTimes(2);
  });

  it.each<[string, string, (t: TypeDescription) => unknown, abstract new (...args: never[]) => InputError]>([
    ['a type that does not exist', 'nothing', (t) => t, UnknownTypeError],
    ['a property that does not exist', 'book', property('nothing'), UnknownPropertyError],
  ])('%s: one refetch, then the error, never a loop', async (_case, name, use, error) => {
    const { cache, fetch } = await warm();
    await expect(cache.withType(name, {}, use)).rejects.toBeInstanceOf(error);
    expect(fetch).toHaveBeenCalledTimes(2);
  });

  it('runs use once before and once after the refetch', async () => {
    const { cache } = await warm();
    const use = jest.fn(property('nothing'));
    await expect(cache.withType('book', {}, use)).rejects.toThrow(UnknownPropertyError);
    expect(use.mock.calls.map(([t]) => t.properties.length)).toEqual([1, 2]);
  });

  it('names the type in the error', async () => {
    const { cache } = await warm();
    await expect(cache.withType('nothing', {}, (t) => t)).rejects.toMatchObject({ typeName: 'nothing', message: 'no type "nothing" (or none the caller may read)' });
  });

  it.each<[string, (cache: SchemaCache) => Promise<unknown>]>([
    ['on the first fetch', async () => undefined],
    [
      'on a fetch made because the TTL ran out',
      async (cache) => {
        await cache.current();
        now += DEFAULT_SCHEMA_TTL_MS;
      },
    ],
  ])('a schema fetched for this very call is not fetched again: %s', async (_case, before) => {
    const { fetch } = fetcher(V1, V1, V2);
    const cache = new SchemaCache(fetch);
    await before(cache);
    const calls = fetch.mock.calls.length;
    await expect(cache.withType('shelf', {}, (t) => t)).rejects.toBeInstanceOf(UnknownTypeError);
    expect(fetch).toHaveBeenCalledTimes(calls + 1);
  });

  it.each<[string, unknown]>([
    ['an error of the caller’s', new InputError('"pages" takes a finite number')],
    ['a server error', Object.assign(new Error('403'), { status: 403 })],
    ['a plain TypeError', new TypeError('x is not a function')],
  ])('%s is not a reason to refetch', async (_case, thrown) => {
    const { cache, fetch } = await warm();
    await expect(
      cache.withType('book', {}, () => {
        throw thrown;
      }),
    ).rejects.toBe(thrown);
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it('misses arriving together share one refetch', async () => {
    const { cache, fetch } = await warm();
    const found = await Promise.all([cache.withType('shelf', {}, (t) => t._id), cache.withType('book', {}, property('subtitle')), cache.withType('shelf', {}, (t) => t.name)]);
    expect(found).toEqual(['t-shelf', 'subtitle', 'shelf']);
    expect(fetch).toHaveBeenCalledTimes(2);
  });

  it('a failed refetch fails the call with its error', async () => {
    const failure = new Error('network down');
    const { cache, fetch } = await warm(failure);
    await expect(cache.withType('shelf', {}, (t) => t)).rejects.toBe(failure);
    expect(fetch).toHaveBeenCalledTimes(2);
    // The older schema still serves what it has.
    await expect(cache.withType('book', {}, (t) => t._id)).resolves.toBe('t-book');
  });

  it('gives use the schema that found the type', async () => {
    const { cache } = await warm();
    const seen = await cache.withType('shelf', {}, (_t, known) => known.schema);
    expect(seen).toBe(V2);
  });
});

describe('SchemaCache: types that share a name', () => {
  const SHARED: DatabaseSchema = { types: [type('t-a', 'book', 'title'), type('t-b', 'book', 'isbn'), type('t-person', 'person', 'name')] };

  it('refuses the shared name, naming both ids, without refetching', async () => {
    const { fetch } = fetcher(SHARED);
    const cache = new SchemaCache(fetch);
    await cache.current();
    now += 1_000;
    const attempt = cache.withType('book', {}, (t) => t);
    await expect(attempt).rejects.toBeInstanceOf(InputError);
    await expect(attempt).rejects.toThrow('2 types are named "book" (t-a, t-b): rename one');
    await expect(attempt).rejects.not.toBeInstanceOf(UnknownTypeError);
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it.each<[string, (known: KnownSchema) => unknown, unknown]>([
    ['another type is found by name', (known) => known.typeNamed('person')?._id, 't-person'],
    ['each of them is named by id', (known) => [known.typeName('t-a'), known.typeName('t-b')], ['book', 'book']],
    ['an unknown id has no name', (known) => known.typeName('t-x'), undefined],
    ['an unknown name has no type', (known) => known.typeNamed('shelf'), undefined],
    ['a name from Object.prototype is no type', (known) => [known.typeNamed('constructor'), known.typeName('toString')], [undefined, undefined]],
  ])('%s', async (_case, read, expected) => {
    const known = await new SchemaCache(fetcher(SHARED).fetch).current();
    expect(read(known)).toEqual(expected);
  });
});
