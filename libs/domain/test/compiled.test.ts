import { compileType, type PropertyDefinition } from '@entia/domain';
import { def } from './fixtures';

/** A type's definitions compiled once per schema: formulas and reference queries parsed, searchable known. */

const compile = (...definitions: PropertyDefinition[]) => compileType(new Map(definitions.map((d) => [d.name, d])));

describe('compileType', () => {
  it('parses each formula once, with the paths it reads', () => {
    const compiled = compile(def('double', 'number', { formula: 'count 2 MULTIPLY' }), def('total', 'number', { formula: '_child.row.amount SUM' }), def('count', 'number'));
    expect(compiled.formulas.map((f) => [f.definition.name, f.paths.length])).toEqual([
      ['double', 0],
      ['total', 1],
    ]);
  });

  it('parses each reference_query, by property', () => {
    const compiled = compile(def('author', 'reference', { referenceQuery: 'name.string=Ann' }), def('title', 'string'));
    expect([...compiled.referenceQueries.keys()]).toEqual(['author']);
    expect(compiled.referenceQueries.get('author')!.filters).toEqual([expect.objectContaining({ property: 'name', field: 'string', value: 'Ann' })]);
  });

  it('knows the searchable properties', () => {
    expect([...compile(def('title', 'string', { search: true }), def('pages', 'number')).searchable]).toEqual(['title']);
  });

  it('leaves out what does not parse (only data written around the API) instead of failing', () => {
    const compiled = compile(def('bad', 'number', { formula: '1 +' }), def('worse', 'reference', { referenceQuery: 'sort=name' }), def('ok', 'number', { formula: '1' }));
    expect(compiled.formulas.map((f) => f.definition.name)).toEqual(['ok']);
    expect(compiled.referenceQueries.size).toBe(0);
  });

  it('keeps the definitions themselves', () => {
    expect([...compile(def('title', 'string')).definitions.keys()]).toEqual(['title']);
  });
});
