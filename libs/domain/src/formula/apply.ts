import type { PropertyDefinition } from '../definitions/definition';
import { newProperties, type Entity, type Properties } from '../entity';
import type { Value, ValueData } from '../values/types';
import { formulaDependencies } from './dependencies';
import { evaluateFormula, formulaValueData, formulaValueType } from './evaluate';
import { parseFormula } from './parse';

// Formulas may read other formulas of the same entity; a few passes settle any acyclic chain,
// and a cycle simply stops changing (or is cut off here).
const MAX_PASSES = 4;

const FIELD_OF: Partial<Record<PropertyDefinition['type'], 'number' | 'string' | 'boolean'>> = {
  number: 'number',
  string: 'string',
  text: 'string',
  boolean: 'boolean',
};

const sameData = (values: readonly Value[], data: readonly ValueData[]) =>
  values.length === data.length &&
  values.every((value, i) => value.number === data[i]!.number && value.string === data[i]!.string && value.boolean === data[i]!.boolean);

/**
 * Recomputes the entity's own formula properties (SPEC §9), those reading only the entity
 * itself; formulas that read other entities are the worker's. A result of the wrong type for its
 * definition, or none, leaves the property absent. Unchanged results keep their values (and ids).
 */
export function computeOwnFormulas(
  entity: Entity,
  definitions: ReadonlyMap<string, PropertyDefinition>,
  stamp: { at: string; by: string },
  newId: () => string,
): { properties: Properties; changed: Value[] } {
  const properties = newProperties(Object.entries(entity.properties));
  const own = [...definitions.values()].flatMap((definition) => {
    if (definition.formula === undefined) return [];
    const formula = parseFormula(definition.formula);
    return formulaDependencies(formula).paths.length === 0 ? [{ definition, formula }] : [];
  });
  const changed = new Map<string, Value[]>();
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    let settled = true;
    for (const { definition, formula } of own) {
      const result = evaluateFormula(formula, { id: entity._id, properties, resolve: () => [] });
      const fits = formulaValueType(result) !== undefined && formulaValueType(result) === FIELD_OF[definition.type];
      const data = fits ? formulaValueData(definition.list ? result : result.slice(0, 1)) : [];
      if (sameData(properties[definition.name] ?? [], data)) continue;
      settled = false;
      const values = data.map((fields) => ({ _id: newId(), type: definition.name, ...fields, created: stamp }));
      if (values.length > 0) properties[definition.name] = values;
      else delete properties[definition.name];
      changed.set(definition.name, values);
    }
    if (settled) break;
  }
  return { properties, changed: [...changed.values()].flat() };
}
