import type { Document } from 'mongodb';

/**
 * Which index MongoDB would use for a compiled list query, derived from the index definitions alone
 * (no mongod is at hand). Deliberately simple and stated plainly:
 *
 * - A predicate can bound an index scan when it is an equality (with null too), `$in`, a range
 *   (`$gt`…`$lte`, or `$not` of one: its complement), an element of `$all` (MongoDB turns `$all`
 *   into an AND of equalities), or a case-sensitive regex anchored with `^` and a literal prefix.
 *   `$exists`, `$ne` / `$elemMatch` with `$ne`, unanchored or case-insensitive regexes, and a
 *   top-level `$or` (a cursor's keyset: applied as a filter) give no useful bounds here.
 * - An index is a *filter candidate* when its first key has such a predicate (further keys extend
 *   the bounds while the previous ones are equalities). Its cost is the number of documents inside
 *   its bounds, counted on the seeded data.
 * - An index *provides the sort* when, after its equality-bound leading keys, its keys are the sort
 *   keys in the same (or all reversed) directions.
 * - For `find`, the expected plan is the filter candidate with the fewest documents in bounds, unless
 *   walking a sort-providing index would touch fewer (≈ limit × documents in its bounds / matches,
 *   matches spread evenly; an unbounded walk's bounds are the collection): MongoDB's planner races
 *   the candidates and keeps the one that fills the first batch soonest, which these estimates
 *   approximate. A bounded candidate that gives the sort stops after `limit` matches too. `countDocuments` has no sort, so only filter
 *   candidates serve it. No candidate at all: COLLSCAN.
 */

export interface IndexSpec {
  name: string;
  key: [string, number][];
  unique?: boolean;
}

type Bound = 'eq' | 'in' | 'range' | 'all' | 'prefix';

export interface Predicate {
  path: string;
  /** How it bounds an index on `path`; undefined when it cannot. */
  bound?: Bound;
  /** Single-field conditions equivalent to the bounds (to count the documents inside them). */
  conditions: Document[];
  /** Human-readable form. */
  text: string;
  /** The predicate as a query of its own (to count its matches). */
  match: Document;
  /** For an `__av` (attribute-value) condition: the `property.field` whose exact condition it stands beside. */
  twinOf?: string;
}

export interface Candidate {
  index: string;
  keys: string;
  predicates: string[];
  /** Documents inside the bounds (counted), when known. */
  docsInBounds?: number;
  providesSort: boolean;
  /** Bounded by a derived `__av` entry standing for this `property.field` condition. */
  twinOf?: string;
}

export interface MongoPlan {
  candidates: Candidate[];
  /** Indexes that only provide the sort (no bounds). */
  sortOnly: Candidate[];
  find: { plan: string; index?: string; docsExamined?: number; blockingSort: boolean; alternative?: string };
  count: { plan: string; index?: string; docsExamined?: number };
  wholeCollection: { find: boolean; count: boolean };
  /** Filter predicates that no index serves, with their match counts (for the recommendation). */
  unindexed: { path: string; text: string; docs: number }[];
}

const RANGE_OPS = ['$gt', '$gte', '$lt', '$lte'];

const isRange = (spec: unknown): boolean =>
  spec !== null && typeof spec === 'object' && !Array.isArray(spec) && Object.keys(spec).length > 0 && Object.keys(spec).every((k) => RANGE_OPS.includes(k));

/** Operators as written, for the report. */
function show(value: unknown): string {
  return JSON.stringify(value, (_, v) => (v && typeof v === 'object' && v._bsontype === 'ObjectId' ? `ObjectId(${v.toHexString()})` : v));
}

function literalPrefix(pattern: string): string | undefined {
  const match = /^\^([A-Za-z0-9 _-]+)/.exec(pattern);
  return match?.[1];
}

/** `property.field` of an attribute-value entry (`property\u001ffield\u001fvalue`, see libs/domain attribute-values.ts). */
function attributeOf(entry: unknown): string | undefined {
  const parts = typeof entry === 'string' ? entry.split('\u001f') : [];
  return parts.length >= 3 ? `${parts[0]}.${parts[1]}` : undefined;
}

/** The predicates of a compiled filter (`{$and: [...]}` as compileFilter builds it, or a plain document). */
export function predicatesOf(filter: Document): Predicate[] {
  const conditions: Document[] = Array.isArray(filter.$and) ? filter.$and : [filter];
  const predicates: Predicate[] = [];
  for (const condition of conditions) {
    for (const [path, spec] of Object.entries(condition)) {
      const match = { [path]: spec };
      if (path.startsWith('$')) {
        predicates.push({ path, conditions: [], text: show(match), match });
        continue;
      }
      const text = show(match);
      const operators = spec && typeof spec === 'object' && !Array.isArray(spec) && Object.keys(spec).every((k) => k.startsWith('$')) ? (spec as Document) : { $eq: spec };
      const keys = Object.keys(operators);
      if ('$elemMatch' in operators) {
        // `ne` compiles to {p: {$elemMatch: {field: {$exists: true, $ne: v}}}}: bounds are everything but v.
        for (const field of Object.keys(operators.$elemMatch as Document)) predicates.push({ path: `${path}.${field}`, conditions: [], text, match });
      } else if ('$eq' in operators && keys.length === 1) {
        predicates.push({ path, bound: 'eq', conditions: [{ [path]: operators.$eq }], text, match });
      } else if ('$in' in operators && keys.length === 1) {
        const twin = path === '__av' ? attributeOf((operators.$in as unknown[])[0]) : undefined;
        predicates.push({ path, bound: 'in', conditions: [{ [path]: { $in: operators.$in } }], text, match, ...(twin ? { twinOf: twin } : {}) });
      } else if ('$all' in operators && keys.length === 1) {
        // One element of $all bounds the scan; the planner may pick any, so each is a condition.
        predicates.push({ path, bound: 'all', conditions: (operators.$all as unknown[]).map((v) => ({ [path]: v })), text, match });
      } else if (keys.length > 0 && keys.every((k) => RANGE_OPS.includes(k))) {
        predicates.push({ path, bound: 'range', conditions: [{ [path]: operators }], text, match });
      } else if (keys.length === 1 && isRange(operators.$not)) {
        // The complement of a range is one or two ranges (a cursor's bound on a descending key).
        predicates.push({ path, bound: 'range', conditions: [{ [path]: operators }], text, match });
      } else if ('$regex' in operators) {
        const options = String(operators.$options ?? '');
        const prefix = literalPrefix(String(operators.$regex));
        predicates.push(
          prefix !== undefined && !options.includes('i')
            ? { path, bound: 'prefix', conditions: [{ [path]: operators }], text, match }
            : { path, conditions: [], text: `${text} (case-insensitive or unanchored: no index bounds)`, match },
        );
      } else {
        predicates.push({ path, conditions: [], text, match });
      }
    }
  }
  return predicates;
}

/** Whether `sort` (as compileSort builds it) is the index's key order after `skip` leading keys. */
function providesSort(index: IndexSpec, skip: number, sort: Document | undefined): boolean {
  const sortKeys = Object.entries(sort ?? {});
  if (sortKeys.length === 0) return false;
  const rest = index.key.slice(skip, skip + sortKeys.length);
  if (rest.length < sortKeys.length) return false;
  const same = rest.every(([field, dir], i) => field === sortKeys[i]![0] && dir === sortKeys[i]![1]);
  const reversed = rest.every(([field, dir], i) => field === sortKeys[i]![0] && dir === -sortKeys[i]![1]);
  return same || reversed;
}

const keysOf = (index: IndexSpec) => `{${index.key.map(([f, d]) => `${f}: ${d}`).join(', ')}}`;

/**
 * The analysis of one query. `countDocs(conditions)` counts the documents matching a single-field
 * condition on the seeded data (memoised by the caller); `total` is the collection size.
 */
export async function mongoPlan(
  indexes: IndexSpec[],
  filter: Document,
  sort: Document | undefined,
  limit: number,
  total: number,
  countDocs: (condition: Document) => Promise<number>,
): Promise<MongoPlan> {
  const predicates = predicatesOf(filter);
  const candidates: Candidate[] = [];
  const sortOnly: Candidate[] = [];

  for (const index of indexes) {
    // Each bounded predicate on the leading key is its own plan (MongoDB cannot intersect the
    // bounds of two predicates on one multikey field; its planner enumerates and races them).
    const leading = predicates.filter((p) => p.path === index.key[0]?.[0] && p.bound !== undefined);
    if (leading.length === 0) {
      if (providesSort(index, 0, sort)) sortOnly.push({ index: index.name, keys: keysOf(index), predicates: [], providesSort: true });
      continue;
    }
    for (const head of leading) {
      const used: Predicate[] = [head];
      let equalities = head.bound === 'eq' ? 1 : 0;
      for (const [field] of index.key.slice(1)) {
        if (equalities < used.length) break;
        const predicate = predicates.find((p) => p.path === field && p.bound !== undefined);
        if (!predicate) break;
        used.push(predicate);
        if (predicate.bound === 'eq') equalities++;
      }
      const sorts = providesSort(index, equalities, sort);
      // Documents in bounds: the bounded predicates together; for $all, the best single element.
      let docsInBounds: number | undefined;
      const fixed = used.filter((p) => p.bound !== 'all').flatMap((p) => p.conditions);
      const alls = used.filter((p) => p.bound === 'all');
      if (alls.length === 0) docsInBounds = await countDocs(fixed.length === 1 ? fixed[0]! : { $and: fixed });
      else {
        const counts = await Promise.all(alls[0]!.conditions.map((c) => countDocs(fixed.length === 0 ? c : { $and: [...fixed, c] })));
        docsInBounds = Math.min(...counts);
      }
      candidates.push({
        index: index.name,
        keys: keysOf(index),
        predicates: used.map((p) => p.text),
        docsInBounds,
        providesSort: sorts,
        ...(head.twinOf ? { twinOf: head.twinOf } : {}),
      });
    }
  }
  // Fewest documents first; on a tie, an index on the filtered path itself before a derived twin.
  candidates.sort((a, b) => (a.docsInBounds ?? Infinity) - (b.docsInBounds ?? Infinity) || Number(a.twinOf !== undefined) - Number(b.twinOf !== undefined));

  const unindexed: MongoPlan['unindexed'] = [];
  const served = new Set(candidates.flatMap((c) => c.predicates));
  // An exact condition whose derived twin (an `__av` entry of the same property and field) an index serves is covered.
  const twins = new Set(candidates.flatMap((c) => (c.twinOf ? [c.twinOf] : [])));
  for (const predicate of predicates) {
    if (served.has(predicate.text) || predicate.path.startsWith('$') || twins.has(predicate.path)) continue;
    unindexed.push({ path: predicate.path, text: predicate.text, docs: await countDocs(predicate.match) });
  }

  const best = candidates[0];
  const wholeThreshold = 0.9 * total;
  const sorted = sort !== undefined && Object.keys(sort).length > 0;
  // A walk of a sort-providing index stops after `limit` matches: about limit × (documents in its
  // bounds) / matches when the matches are spread evenly over the sort order (all of them when none match).
  const matching = await countDocs(filter);
  const walk = (inBounds: number) => Math.min(inBounds, matching === 0 ? inBounds : Math.ceil((limit * inBounds) / matching));
  const examined = (candidate: Candidate) => (candidate.providesSort && sorted ? walk(candidate.docsInBounds ?? total) : (candidate.docsInBounds ?? total));
  const sortProvider = sortOnly[0];
  const sortWalk = sortProvider ? walk(total) : undefined;

  let find: MongoPlan['find'];
  const bestBlocking = best ? !best.providesSort && sorted : false;
  // A bounded candidate that gives the sort, walked in order from its bounds: cheaper than the best when that one sorts in memory.
  const boundedWalk = candidates.filter((c) => c.providesSort && sorted).sort((a, b) => examined(a) - examined(b))[0];
  if (best && bestBlocking && boundedWalk && examined(boundedWalk) < examined(best) && (sortWalk === undefined || examined(boundedWalk) <= sortWalk)) {
    find = {
      plan: `IXSCAN ${boundedWalk.index} ${boundedWalk.keys} bounded, in sort order → FETCH + filter, stops after ${limit} matches`,
      index: boundedWalk.index,
      docsExamined: examined(boundedWalk),
      blockingSort: false,
      alternative: `IXSCAN ${best.index} (${best.docsInBounds} docs in bounds) → SORT in memory`,
    };
  } else if (best && (sortWalk === undefined || !bestBlocking || examined(best) <= sortWalk)) {
    find = {
      plan: `IXSCAN ${best.index} ${best.keys}${!bestBlocking && sorted ? ' in sort order' : ''} → FETCH + filter${bestBlocking ? ` → SORT (in memory, top ${limit})` : ''}`,
      index: best.index,
      docsExamined: examined(best),
      blockingSort: bestBlocking,
      ...(sortProvider && bestBlocking
        ? { alternative: `IXSCAN ${sortProvider.index} in sort order, unbounded, stops after ${limit} matches (≈ ${sortWalk} docs)` }
        : {}),
    };
  } else if (sortProvider) {
    find = {
      plan: `IXSCAN ${sortProvider.index} ${sortProvider.keys} unbounded, in sort order → FETCH + filter, stops after ${limit} matches`,
      index: sortProvider.index,
      docsExamined: sortWalk,
      blockingSort: false,
      ...(best ? { alternative: `IXSCAN ${best.index} (${best.docsInBounds} docs in bounds) → SORT in memory` } : {}),
    };
  } else {
    find = { plan: 'COLLSCAN → filter' + (sorted ? ` → SORT (in memory, top ${limit})` : ''), docsExamined: total, blockingSort: sorted };
  }
  const count: MongoPlan['count'] = best
    ? { plan: `IXSCAN ${best.index} → FETCH + filter → COUNT`, index: best.index, docsExamined: best.docsInBounds }
    : { plan: 'COLLSCAN → filter → COUNT', docsExamined: total };
  return {
    candidates,
    sortOnly,
    find,
    count,
    wholeCollection: {
      find: (find.docsExamined ?? total) >= wholeThreshold,
      count: (count.docsExamined ?? total) >= wholeThreshold,
    },
    unindexed,
  };
}

/** One line per stage of a MongoDB winningPlan (for when the benchmark runs against a real mongod). */
export function summariseWinningPlan(plan: Document | undefined): string | undefined {
  if (!plan) return undefined;
  const parts: string[] = [];
  let node: Document | undefined = plan;
  while (node) {
    parts.push(node.indexName ? `${node.stage} ${node.indexName}` : String(node.stage));
    node = (node.inputStage as Document | undefined) ?? (node.inputStages as Document[] | undefined)?.[0] ?? (node.queryPlan as Document | undefined);
  }
  return parts.join(' ← ');
}

/**
 * Whether a cursor page's `find` (`compilePage`: the keyset `$or` after a bound on the first sort
 * key) is served from the cursor onwards: the chosen index has the first sort key (or `_id` for the
 * default order) first and gives the sort, so the scan starts at the cursor. Otherwise the keyset is
 * only a filter, and the next page examines what the first one does (no more with depth: unlike
 * `skip`, nothing before the cursor is sorted or stepped over).
 */
export function keysetVerdict(plan: MongoPlan, sort: Document): { served: boolean; text: string } {
  const [first] = Object.entries(sort);
  const path = first?.[0] ?? '_id';
  const fromCursor = plan.candidates.filter((c) => c.providesSort && c.keys.startsWith(`{${path}:`));
  const chosen = fromCursor.find((c) => c.index === plan.find.index);
  if (chosen && !plan.find.blockingSort) {
    return { served: true, text: `index-served: \`${chosen.index}\` from the cursor, in sort order (≈ ${plan.find.docsExamined} documents examined)` };
  }
  const filter = `${plan.find.index ? `\`${plan.find.index}\`` : 'a collection scan'} (≈ ${plan.find.docsExamined} documents examined${plan.find.blockingSort ? ', sorted in memory' : ''})`;
  if (fromCursor.length > 0) {
    return {
      served: true,
      text:
        `index-servable: \`${fromCursor[0]!.index}\` would start at the cursor (${fromCursor[0]!.docsInBounds} documents in its bounds), ` +
        `but ${filter} is expected to be cheaper for this filter; either way no page costs more for being deeper`,
    };
  }
  const suggestion = `{${path}: ${first?.[1] ?? 1}, _id: ${first?.[1] ?? 1}}`;
  return {
    served: false,
    text:
      `not index-served: no index starts with \`${path}\` and gives the sort, so the keyset is a filter on ${filter}: ` +
      `as many as the first page, and no more on deeper pages (unlike \`skip\`); an index \`${suggestion}\` would serve it`,
  };
}
