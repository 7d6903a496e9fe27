import { DomainError, changesOf, mayReadGone, newProperties, parseInstant, propertiesAt, type Author, type Change, type Properties, type Value } from '@entia/domain';

const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-02T00:00:00.000Z';
const ADA = 'aaaaaaaaaaaaaaaaaaaaaaaa';
const BOB = 'bbbbbbbbbbbbbbbbbbbbbbbb';
const byAda: Author = { at: T1, by: ADA };
const byWorker: Author = { at: T1, worker: true };

let n = 1;
const id = () => (n++).toString(16).padStart(24, '0');
const value = (type: string, data: Partial<Value>, _id = id(), at = T0): Value => ({ _id, type, ...data, created: { at, by: ADA } });
const props = (...values: Value[]): Properties => {
  const properties = newProperties();
  for (const v of values) properties[v.type] = [...(properties[v.type] ?? []), v];
  return properties;
};
// `title` and `_sharing` hold one value, `tag` and `_owner` a list.
const isList = (name: string) => name === 'tag' || name === '_owner';
const summary = (changes: Change[]) => changes.map((c) => [c.type, c.old?._id ?? null, c.new?._id ?? null]);

describe('changesOf: what a write changed, one change per value', () => {
  const created = value('_created', { datetime: T0, reference: ADA });
  const title = value('title', { string: 'Dune' });
  const tag = value('tag', { string: 'sf' });
  const owner = value('_owner', { reference: ADA, string: 'Ada' });

  const cases: Array<[string, Properties | undefined, Properties | undefined, Author, Array<[string, string | null, string | null]>]> = [
    ['nothing before, nothing after', undefined, undefined, byAda, []],
    ['a creation: `_created` first, then each value', undefined, props(title, created, owner), byAda, [['_created', null, created._id], ['_owner', null, owner._id], ['title', null, title._id]]],
    ['a deletion is one `_deleted` change', props(title, created), undefined, byAda, [['_deleted', null, null]]],
    ['a value added to a list', props(tag), props(tag, { ...tag, _id: 'f1'.padStart(24, '0'), string: 'classic' }), byAda, [['tag', null, 'f1'.padStart(24, '0')]]],
    ['a value deleted', props(title, tag), props(title), byAda, [['tag', tag._id, null]]],
    ['a value overwritten under its own id', props(title), props({ ...title, string: 'Dune Messiah', created: { at: T1, by: BOB } }), byAda, [['title', title._id, title._id]]],
    ['a single value replaced by a new one is one change', props(title), props(value('title', { string: 'Emma' }, 'f2'.padStart(24, '0'))), byAda, [['title', title._id, 'f2'.padStart(24, '0')]]],
    ['a list value removed and another added are two changes', props(tag), props(value('tag', { string: 'x' }, 'f3'.padStart(24, '0'))), byAda, [['tag', tag._id, null], ['tag', null, 'f3'.padStart(24, '0')]]],
    ['a relabelled reference is no change', props(owner), props({ ...owner, string: 'Ada Lovelace' }), byWorker, []],
    ['the same values: no change', props(title, tag), props(title, tag), byAda, []],
  ];
  it.each(cases)('%s', (_name, before, after, author, expected) => {
    expect(summary(changesOf(before, after, author, isList))).toEqual(expected);
  });

  it('replaces per language on a multilingual single-valued property', () => {
    const en = value('title', { string: 'Dune', language: 'en' });
    const et = value('title', { string: 'Düün', language: 'et' });
    const newEt = value('title', { string: 'Luited', language: 'et' });
    expect(summary(changesOf(props(en, et), props(en, newEt), byAda, isList))).toEqual([['title', et._id, newEt._id]]);
  });

  it('says who and when: a person, or the worker marked as such', () => {
    const [byPerson] = changesOf(props(title), props(), byAda, isList);
    expect(byPerson).toMatchObject({ type: 'title', at: T1, by: ADA, old: title });
    expect(byPerson!.worker).toBeUndefined();
    const [computed] = changesOf(props(), props(title), byWorker, isList);
    expect(computed).toEqual({ type: 'title', at: T1, by: null, worker: true, new: title });
  });

  it('never records a secret: an API key shows as clients see it', () => {
    const key = value('_api_key', { string: 'sha256-hash-of-the-key' });
    const [added] = changesOf(props(), props(key), byAda, isList);
    expect(added!.new!.string).toBe('***');
    const [removed] = changesOf(props(key), props(), byAda, isList);
    expect(removed!.old!.string).toBe('***');
  });
});

describe('propertiesAt: an entity as it was, from its changes', () => {
  const created = value('_created', { datetime: T0, reference: ADA });
  const title = value('title', { string: 'Dune' });
  const tag = value('tag', { string: 'sf' });
  const states: Properties[] = [props(created, title), props(created, title, tag)];
  const renamed = props(created, value('title', { string: 'Emma' }), tag);
  states.push(renamed);
  states.push(props(created, renamed.title![0]!));

  // Each state's changes from the one before, as they would be recorded.
  const history: Change[][] = states.map((state, i) => changesOf(i === 0 ? undefined : states[i - 1], state, byAda, isList));

  it.each(states.map((state, i) => [i, state] as const))('after write %i it is that state again', (i, state) => {
    expect(propertiesAt(history.slice(0, i + 1).flat())).toEqual(state);
  });

  it('before its creation, and after its deletion, there is no entity', () => {
    expect(propertiesAt([])).toBeUndefined();
    expect(propertiesAt([...history.flat(), ...changesOf(states[3], undefined, byAda, isList)])).toBeUndefined();
  });

  it('an overwrite keeps the value in its place', () => {
    const a = value('tag', { string: 'a' });
    const b = value('tag', { string: 'b' });
    const before = props(created, a, b);
    const after = props(created, { ...a, string: 'A' }, b);
    const replayed = propertiesAt([...changesOf(undefined, before, byAda, isList), ...changesOf(before, after, byAda, isList)]);
    expect(replayed!.tag!.map((v) => v.string)).toEqual(['A', 'b']);
  });

  it('changes without a creation before them (history begun later) give no state', () => {
    expect(propertiesAt(changesOf(props(title), props(title, tag), byAda, isList))).toBeUndefined();
  });
});

describe('parseInstant: `?at=`', () => {
  it.each([
    ['2026-11-23T10:00:00Z', '2026-11-23T10:00:00.000Z'],
    ['2026-11-23T12:00:00+02:00', '2026-11-23T10:00:00.000Z'],
    ['2026-11-23T10:00:00.123456Z', '2026-11-23T10:00:00.123Z'],
  ])('%s is %s', (text, expected) => {
    expect(parseInstant(text)).toBe(expected);
  });

  it.each(['', 'yesterday', '2026-11-23', '2026-11-23T10:00:00', '2026-02-30T10:00:00Z', '1700000000000', '2026-11-23T25:00:00Z', '{"$gt":""}'])(
    '%j is refused naming the parameter',
    (text) => {
      const refusal = (() => {
        try {
          parseInstant(text);
        } catch (error) {
          return error;
        }
      })();
      expect(refusal).toBeInstanceOf(DomainError);
      expect((refusal as DomainError).kind).toBe('invalid');
      expect((refusal as DomainError).errors[0]!.parameter).toBe('at');
    },
  );
});

describe('mayReadGone: the history of a deleted entity', () => {
  it.each([
    [[ADA], { personId: ADA }, true],
    [[ADA], { personId: BOB }, false],
    [[ADA], {}, false],
    [[], { personId: ADA }, false],
  ] as const)('last owners %j, caller %j: %s', (owners, caller, expected) => {
    expect(mayReadGone(owners, caller)).toBe(expected);
  });
});
