import { RARE_WORD } from './data';

/** One benchmark query: a GET /api/{db}/entity query string, exactly as a client would send it. */
export interface BenchQuery {
  id: string;
  kind: 'list' | 'q';
  title: string;
  params: [string, string][];
}

/** The query string as sent (what `rawQueryOf` and the HTTP layer parse). */
export function queryString(query: BenchQuery): string {
  return new URLSearchParams(query.params).toString();
}

/** What the queries name of the seeded world (`World`, seed.ts): its types and its most reviewed book. */
export interface QueryWorld {
  types: { author: string; book: string; review: string };
  popularBook: string;
}

/** Six list queries (filter + sort + limit; the last lists referrers) and three `q` searches over the seeded world. */
export function benchQueries(world: QueryWorld): BenchQuery[] {
  const { author, book, review } = world.types;
  return [
    {
      id: 'L1',
      kind: 'list',
      title: 'books sorted by title',
      params: [['_type.reference', book], ['sort', 'title.string'], ['limit', '20']],
    },
    {
      id: 'L2',
      kind: 'list',
      title: 'books with 200–300 pages, newest first',
      params: [['_type.reference', book], ['pages.number.gte', '200'], ['pages.number.lte', '300'], ['sort', '-published.date'], ['limit', '20']],
    },
    {
      id: 'L3',
      kind: 'list',
      title: 'anything tagged poetry or travel, newest first (no type filter)',
      params: [['tag.string.in', 'poetry,travel'], ['sort', '-_created.datetime'], ['limit', '20']],
    },
    {
      id: 'L4',
      kind: 'list',
      title: `reviews of the most reviewed book, best first`,
      params: [['_type.reference', review], ['book.reference', world.popularBook], ['sort', '-rating.number'], ['limit', '20']],
    },
    {
      id: 'L5',
      kind: 'list',
      title: 'authors whose name starts with "Ma" (any case), by name',
      params: [['_type.reference', author], ['name.string.regex', '/^Ma/i'], ['sort', 'name.string'], ['limit', '20']],
    },
    {
      id: 'L6',
      kind: 'list',
      title: 'everything that refers to the most reviewed book (`_reference`), newest first',
      params: [['_reference.reference', world.popularBook], ['sort', '-_created.datetime'], ['limit', '20']],
    },
    { id: 'Q1', kind: 'q', title: 'common prefix', params: [['q', 'mar']] },
    { id: 'Q2', kind: 'q', title: 'rare word', params: [['q', RARE_WORD]] },
    { id: 'Q3', kind: 'q', title: 'two terms (word + prefix)', params: [['q', 'river sto']] },
  ];
}
