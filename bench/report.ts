import type { BenchResult, QueryResult } from './results';

const ms = (value: number | undefined) => (value === undefined || Number.isNaN(value) ? '–' : value >= 100 ? value.toFixed(0) : value.toFixed(1));
const n = (value: number | undefined) => (value === undefined ? '–' : value.toLocaleString('en-US'));
const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function engineCell(result: QueryResult): string {
  const { find, count } = result.engine;
  const flags = (e: typeof find) =>
    e.filterPushdown === undefined ? e.summary : `filter ${e.filterPushdown ? 'pushed' : '**not pushed**'}, sort ${e.sortPushdown ? 'pushed' : 'not pushed'}, limit ${e.limitPushdown ? 'pushed' : 'not pushed'}`;
  const sql = find.sqlPlan ? ` — SQLite \`${find.sqlPlan.join('; ')}\`` : find.winningPlan ? ` — ${find.winningPlan}` : '';
  return `find: ${flags(find)}${sql}<br>count: ${flags(count)}`;
}

function mongoCell(result: QueryResult, total: number): string {
  const { find, count, wholeCollection } = result.mongo;
  const pct = (docs: number | undefined) => (docs === undefined ? '' : ` (${n(docs)} docs, ${((docs / total) * 100).toFixed(docs / total < 0.01 ? 2 : 0)} %)`);
  const findText = `${find.index ?? 'COLLSCAN'}${pct(find.docsExamined)}${find.blockingSort ? ', in-memory sort' : find.index ? ', sort from index' : ''}`;
  // (for a walk of a sort-providing index, "docs" is the expected number examined before `limit` matches)
  const countText = `${count.index ?? 'COLLSCAN'}${pct(count.docsExamined)}`;
  const flag = wholeCollection.find || wholeCollection.count ? ' ⚠ whole collection' : '';
  return `find: ${findText}<br>count: ${countText}${flag}`;
}

export function renderMarkdown(bench: BenchResult): string {
  const { machine, world, options } = bench;
  const total = bench.collection.documents;
  const lines: string[] = [];
  const add = (...text: string[]) => lines.push(...text);

  add(`# Query benchmark — ${bench.startedAt.slice(0, 10)}`, '');
  add(
    `- Engine: **${machine.engine}**, wire version ${machine.serverVersion} (no mongod on this machine: the MongoDB column is derived from the index definitions, see below)`,
    `- Machine: ${machine.nproc} CPUs (${machine.cpu}), ${machine.memoryGiB} GiB RAM (${machine.freeMemoryGiB} GiB free at start), Node ${machine.node}, ${machine.os}` +
      (machine.loadAverage ? `; load average ${machine.loadAverage.start.join(' / ')} at start${machine.loadAverage.end ? `, ${machine.loadAverage.end.join(' / ')} at the end` : ''} (the FerretDB server may be shared with other work)` : ''),
    `- Data: ${n(total)} documents in \`entity\` (${n(world.size)} seeded: ${n(world.counts.author)} authors, ${n(world.counts.book)} books, ${n(world.counts.review)} reviews; the rest are bootstrap and schema entities), seed ${world.seed}` +
      `; sharing: ${Object.entries(world.sharing).map(([k, v]) => `${k} ${n(v)}`).join(', ')} (\`viewer\` = private + \`_viewer\` the second person)`,
    `- Caller: **${bench.caller.name}** (read tags ${bench.caller.tags.map((t) => (t.length === 24 ? 'person' : t)).join(', ')})` +
      (bench.caller.name === 'owner' ? ' — sees every entity: the worst case for the access-list index' : ''),
    `- Path measured: \`EntityCollection.list(parseListQuery(raw), callerTags(caller))\` in-process (the store call of GET /api/{db}/entity: one \`find\` and one \`countDocuments\` in parallel), concurrency 1, ` +
      `${options.warmup} warm-up + up to ${options.iterations} measured runs per query${options.budgetSeconds ? ` (time budget ${options.budgetSeconds} s per query, at least ${options.minIterations} runs)` : ''}` +
      (options.apiIterations > 0 ? `; "API" = the API's \`listEntities\` (adds the per-request definitions lookup), ${options.apiIterations} runs` : ''),
    `- \`maxTimeMS\` for the benchmark: ${options.timeoutMs} ms (the service uses MONGODB_TIMEOUT_MS = ${options.serviceTimeoutMs} ms)`,
    `- Run: ${bench.startedAt} → ${bench.finishedAt}; database \`${options.db}\` ${bench.dropped ? 'dropped at the end' : 'kept'}`,
    '',
  );

  if (bench.seeding) {
    const s = bench.seeding;
    const seeded = s.timings.reduce((a, t) => a + t.entities, 0);
    const bulkMs = s.timings.reduce((a, t) => a + t.buildMs + t.insertMs, 0);
    const measuredLookups = s.timings.every((t) => t.lookupMs !== undefined);
    const otherMs = s.totalMs - s.createDatabaseMs - s.schemaMs - bulkMs - (measuredLookups ? s.timings.reduce((a, t) => a + (t.lookupMs ?? 0), 0) : 0);
    add('## Seeding', '');
    if (bench.reused) add('Seeded by an earlier `--seed-only` run of this script (same code, same machine), measured here with `--reuse`.', '');
    add(
      `${n(seeded)} entities in **${(s.totalMs / 1000).toFixed(1)} s** overall (${n(Math.round(seeded / (s.totalMs / 1000)))} entities/s); the bulk inserts alone ` +
        `${(bulkMs / 1000).toFixed(1)} s (**${n(Math.round(seeded / (bulkMs / 1000)))} entities/s**), batches of ${s.batch} via \`importEntities\` ` +
        `(each entity checked by the write rules, its references against the database, and materialised as POST /entity would; inserted through \`EntityWriter.createMany\`). ` +
        `createDatabase ${ms(s.createDatabaseMs)} ms; the second person, 3 types and 11 definitions through the API's \`createEntity\` ${ms(s.schemaMs)} ms.`,
      '',
      `| type | entities | ${measuredLookups ? 'definitions lookup (s) | ' : ''}values (s) | import (s) | entities/s (values + import) |`,
      `|---|---:|${measuredLookups ? '---:|' : ''}---:|---:|---:|`,
      ...s.timings.map(
        (t) =>
          `| ${t.type} | ${n(t.entities)} | ${measuredLookups ? `${((t.lookupMs ?? 0) / 1000).toFixed(1)} | ` : ''}${(t.buildMs / 1000).toFixed(1)} | ${(t.insertMs / 1000).toFixed(1)} | ${n(Math.round(t.entities / ((t.buildMs + t.insertMs) / 1000)))} |`,
      ),
      '',
    );
    if (otherMs > 1000) {
      add(
        `The remaining ${(otherMs / 1000).toFixed(1)} s ${measuredLookups ? 'is' : 'are (mostly)'} the API's \`definitionsOf\` lookup before each type's bulk ` +
          '(`_parent.reference` + `_type.reference` on the growing collection: a full scan on FerretDB, as before every API write).',
        '',
      );
    }
  }

  add('## Latency', '');
  add(
    `| # | query | count | returned | p50 ms | p95 ms | max ms | runs | API p50 ms | API p95 ms |`,
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  );
  for (const q of bench.queries) {
    add(
      `| ${q.id} | ${cell(q.title)}<br>\`${cell(decodeURIComponent(q.query.replace(/\+/g, ' ')))}\` | ${n(q.count)} | ${q.returned} | ${ms(q.store.p50)} | ${ms(q.store.p95)} | ${ms(q.store.max)} | ${q.store.iterations}${q.store.budgetHit ? '*' : ''} | ${ms(q.api?.p50)} | ${ms(q.api?.p95)} |`,
    );
  }
  if (bench.queries.some((q) => q.store.budgetHit)) add('', '\\* stopped at the time budget before the requested number of runs.');
  add('');

  add('## Indexes: MongoDB (derived) next to FerretDB (explain)', '');
  add('| # | MongoDB would use | FerretDB explain |', '|---|---|---|');
  for (const q of bench.queries) add(`| ${q.id} | ${mongoCell(q, total)} | ${engineCell(q)} |`);
  add('');
  add(
    'MongoDB column: the index whose leading key is bounded by an equality, `$in`, range, `$all` element or anchored case-sensitive regex of the compiled filter ' +
      '(further keys while the previous are equalities; each such predicate is its own candidate, as the planner enumerates them; an `__av` attribute-value entry stands for its property\'s exact condition), ' +
      'the one with the fewest documents in its bounds (counted on this data set); "sort from index" when its next keys are the sort. ' +
      '`countDocuments` has no sort, so only bounded indexes serve it. "⚠ whole collection": no bound narrower than 90 % of the collection for this caller. ' +
      'Indexes in the database (from `ensureIndexes`, and `sort_…`: the sort indexes the lists\' first use built): ' +
      bench.collection.indexes.map((i) => `\`${i.name}\` {${i.key.map(([f, d]) => `${f}: ${d}`).join(', ')}}${i.unique ? ' unique' : ''}`).join(', ') +
      '.',
    '',
  );

  add('## Next pages by cursor (`after`, `count=none`)', '');
  add(
    'The page after the first, as a client walking with `after` = the first page\'s `next` and `count=none` asks for it: one `find` of `limit + 1` ' +
      '(the keyset `$or` over the sort keys and `_id`, after a bound on the first key; `compilePage`), no `countDocuments`. ' +
      '"MongoDB, first page" adds what `count=exact` costs beside its find.',
    '',
  );
  add('| # | MongoDB, first page: find + count (docs) | MongoDB, next page: find only | keyset | FerretDB next page | p50 ms first → next |', '|---|---:|---|---|---|---|');
  for (const q of bench.queries) {
    const c = q.cursor;
    const first = `${n(q.mongo.find.docsExamined)} + ${n(q.mongo.count.docsExamined)}`;
    if (!c) {
      add(`| ${q.id} | ${first} | – (one page: no \`next\`) | – | – | ${ms(q.store.p50)} |`);
      continue;
    }
    add(
      `| ${q.id} | ${first} | ${c.mongo.find.index ?? 'COLLSCAN'} (${n(c.mongo.find.docsExamined)} docs${c.mongo.find.blockingSort ? ', in-memory sort' : ''}) | ${c.keyset.text.startsWith('index-served') ? 'served from the cursor' : c.keyset.served ? 'servable (another index is cheaper)' : '**not index-served**'} | ${cell(c.engine.summary)} | ${ms(q.store.p50)} → ${ms(c.store.p50)} |`,
    );
  }
  add('');

  add('## Findings', '');
  const queries = bench.queries;
  const ferret = queries.filter((q) => q.engine.find.filterPushdown !== undefined);
  if (ferret.length > 0) {
    const pushed = ferret.filter((q) => q.engine.find.filterPushdown || q.engine.count.filterPushdown);
    add(
      `- **FerretDB pushes down ${pushed.length === 0 ? 'nothing' : 'little'} in this set**: ${pushed.length} of ${ferret.length} queries have their filter pushed to SQLite, ` +
        `${ferret.filter((q) => q.engine.find.sortPushdown).length} their sort, ${ferret.filter((q) => q.engine.find.limitPushdown).length} their limit. ` +
        'FerretDB 1.24 (SQLite) pushes down only a filter that is exactly `{_id: <ObjectId|string>}`, a `$natural` sort, and a limit when there is neither filter nor sort ' +
        '(`internal/backends/sqlite/collection.go`, `internal/handler/msg_find.go`); every list filter here starts with the `__read` access condition, so each `find` and each ' +
        '`countDocuments` reads and decodes the whole collection (`SCAN`), and the SQLite indexes that `ensureIndexes` creates are never used by these queries.',
    );
    const slow = queries.filter((q) => q.store.p50 > options.serviceTimeoutMs);
    if (slow.length > 0) {
      add(
        `- ${slow.length} of ${queries.length} queries take longer (p50) than the service's query limit MONGODB_TIMEOUT_MS = ${options.serviceTimeoutMs} ms: ` +
          `through the API they answer 503 at this size on FerretDB (${slow.map((q) => q.id).join(', ')}).`,
      );
    }
  }
  const whole = queries.filter((q) => q.mongo.wholeCollection.find || q.mongo.wholeCollection.count);
  add(
    whole.length === 0
      ? `- On MongoDB no query of the set needs a whole-collection scan with the current indexes (for caller ${bench.caller.name}).`
      : `- On MongoDB, with the current indexes, **${whole.map((q) => q.id).join(', ')} need${whole.length === 1 ? 's' : ''} a whole-collection scan** (for caller ${bench.caller.name}): ` +
          whole
            .map((q) => {
              const best = [...q.mongo.unindexed].sort((a, b) => a.docs - b.docs)[0];
              return `${q.id} (${[q.mongo.wholeCollection.find ? 'find' : '', q.mongo.wholeCollection.count ? 'count' : ''].filter(Boolean).join(' + ')}` +
                `${best ? `; its selective predicate \`${best.text}\` matches ${n(best.docs)} documents and has no index` : ''})`;
            })
            .join('; ') +
          '.',
  );
  const weak = queries.filter((q) => !whole.includes(q) && (q.mongo.count.docsExamined ?? 0) > 20 * Math.max(1, q.count) && (q.mongo.count.docsExamined ?? 0) > 0.2 * total);
  if (weak.length > 0) {
    add(
      `- Indexed, but examining far more than they return: ${weak
        .map((q) => `${q.id} (${n(q.mongo.count.docsExamined)} documents examined for ${n(q.count)} matches via \`${q.mongo.count.index}\`)`)
        .join('; ')}.`,
    );
  }
  add('');

  add('## Per query', '');
  for (const q of bench.queries) {
    add(`### ${q.id} — ${q.title}`, '');
    add(`- Query: \`GET /api/${options.db}/entity?${q.query}\``);
    add(`- Compiled filter: \`${JSON.stringify(q.compiled.filter)}\``);
    add(`- Sort: \`${JSON.stringify(q.compiled.sort)}\`, skip ${q.compiled.skip}, limit ${q.compiled.limit}`);
    add(`- MongoDB find: ${q.mongo.find.plan}${q.mongo.find.alternative ? ` (alternative the planner may race: ${q.mongo.find.alternative})` : ''}`);
    add(`- MongoDB count: ${q.mongo.count.plan}`);
    if (q.mongo.candidates.length > 0) {
      add(`- Candidates: ${q.mongo.candidates.map((c) => `\`${c.index}\` via ${c.predicates.map((p) => `\`${p}\``).join(' + ')} → ${n(c.docsInBounds)} docs${c.providesSort ? ', provides the sort' : ''}`).join('; ')}`);
    }
    if (q.mongo.unindexed.length > 0) add(`- Not served by any index: ${q.mongo.unindexed.map((u) => `\`${u.text}\` (${n(u.docs)} docs)`).join('; ')}`);
    add(`- FerretDB find: ${q.engine.find.summary}`);
    add(`- FerretDB count: ${q.engine.count.summary}`);
    if (q.cursor) {
      add(`- Next page (\`after\`, \`count=none\`) filter: \`${JSON.stringify(q.cursor.filter)}\``);
      add(`- MongoDB find of the next page: ${q.cursor.mongo.find.plan}${q.cursor.mongo.find.alternative ? ` (alternative: ${q.cursor.mongo.find.alternative})` : ''}; no count`);
      add(`- Keyset: ${q.cursor.keyset.text}`);
      add(`- FerretDB find of the next page: ${q.cursor.engine.summary}`);
    }
    for (const note of q.notes) add(`- ${note}`);
    add('');
  }
  return `${lines.join('\n')}\n`;
}
