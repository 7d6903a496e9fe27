import { RIGHT_PROPERTIES } from '../rights';
import { shownFrom } from '../rights-shown';
import type { Filter, FilterOf } from './ast';
import type { Operator } from './operators';

/**
 * A filter as the store compiles it and the in-memory matcher evaluates it: it holds when any of
 * `any` holds, or when each of `all` does. Every filter is one of these, so both read it the same.
 */
export type FilterCondition = { readonly any: readonly Filter[] } | { readonly all: readonly Filter[] };

const RIGHTS: ReadonlySet<string> = new Set(RIGHT_PROPERTIES);

type Levels = 'any' | 'all';
const anyLevel = (): Levels => 'any';

/** How each operator's filter reads a right list's levels (below): some level satisfies it, or every level does. */
const OVER_LEVELS: { readonly [O in Operator]: (filter: FilterOf<O>) => Levels } = {
  eq: anyLevel,
  ne: anyLevel,
  gt: anyLevel,
  gte: anyLevel,
  lt: anyLevel,
  lte: anyLevel,
  in: anyLevel,
  regex: anyLevel,
  exists: (filter) => (filter.value ? 'any' : 'all'),
};

/**
 * Right lists filter as they are shown, cumulative (SPEC §4, §7a: owner ⊇ editor ⊇ expander ⊇
 * viewer), while each person's right is stored at one level: `_expander.reference=X` holds where X
 * is an owner, an editor or an expander (Entu's parents picker asks `_expander.reference=<me>` and
 * expects the caller's own entities). The levels a shown list is made of are `shownFrom`'s, the rule
 * the read answer follows. A filter keeps its ANY-value meaning over the whole shown list:
 * - `eq`, `in`, `ne`, the ranges, `regex`, `exists=true`: some value of some level satisfies it
 *   (`any`), so `_editor.reference.ne=X` holds where anyone but X is an editor or an owner;
 * - `exists=false`: no value of any level has the field (`all` of the levels lack it).
 * Other properties are themselves. Inherited rights are stored in the levels they were inherited
 * at, so they are matched as they are shown.
 */
export function conditionOf(filter: Filter): FilterCondition {
  if (!RIGHTS.has(filter.property)) return { any: [filter] };
  const levels = shownFrom(filter.property).map((property) => ({ ...filter, property }) as Filter);
  return (OVER_LEVELS[filter.op] as (filter: Filter) => Levels)(filter) === 'all' ? { all: levels } : { any: levels };
}
