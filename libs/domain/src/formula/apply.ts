import type { PropertyDefinition } from '../definitions/definition';
import { newProperties, type Entity, type Properties } from '../entity';
import { descriptorOf } from '../values/registry';
import type { Value, ValueData } from '../values/types';
import type { Formula, FormulaPath, FormulaValue } from './ast';
import { formulaDependencies } from './dependencies';
import { evaluateFormula, formulaValueData, formulaValueType } from './evaluate';
import { parseFormula } from './parse';

// Formulas may read other formulas of the same entity; a few passes settle any acyclic chain,
// and a cycle simply stops changing (or is cut off here).
const MAX_PASSES = 4;

const sameData = (values: readonly Value[], data: readonly ValueData[]) =>
  values.length === data.length &&
  values.every((value, i) => value.number === data[i]!.number && value.string === data[i]!.string && value.boolean === data[i]!.boolean);

export interface FormulaRun {
  stamp: { at: string; by: string };
  newId: () => string;
  /**
   * The values at paths into other entities (loaded by the caller). Without it only the formulas
   * that read the entity alone are computed: what a write does in its own request (SPEC §9).
   */
  resolve?: (path: FormulaPath) => readonly FormulaValue[];
}

/** A definition's formula, parsed, with the paths into other entities it reads. */
export interface ParsedFormula {
  definition: PropertyDefinition;
  formula: Formula;
  paths: FormulaPath[];
}

/** The parsed formulas of a type's definitions, and whether each reads other entities. */
export function formulasOf(definitions: ReadonlyMap<string, PropertyDefinition>): ParsedFormula[] {
  return [...definitions.values()].flatMap((definition) => {
    if (definition.formula === undefined) return [];
    const formula = parseFormula(definition.formula);
    return [{ definition, formula, paths: formulaDependencies(formula).paths }];
  });
}

/**
 * Recomputes the entity's formula properties (SPEC §9). A result of the wrong type for its
 * definition, or none, leaves the property absent. Unchanged results keep their values (and ids).
 * Returns the properties and the values that changed.
 */
export function computeFormulas(
  entity: Entity,
  definitions: ReadonlyMap<string, PropertyDefinition> | readonly ParsedFormula[],
  run: FormulaRun,
): { properties: Properties; changed: Value[] } {
  const properties = newProperties(Object.entries(entity.properties));
  const resolve = run.resolve;
  // Parsed once per schema by the caller's cache when it passes them (`compileType`).
  const parsed = definitions instanceof Map ? formulasOf(definitions) : (definitions as readonly ParsedFormula[]);
  const formulas = parsed.filter(({ paths }) => resolve !== undefined || paths.length === 0);
  const changed = new Map<string, Value[]>();
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    let settled = true;
    for (const { definition, formula } of formulas) {
      const result = evaluateFormula(formula, { id: entity._id, properties, resolve: resolve ?? (() => []) });
      const fits = formulaValueType(result) !== undefined && formulaValueType(result) === descriptorOf(definition.type).formula.stores;
      const data = fits ? formulaValueData(definition.list ? result : result.slice(0, 1)) : [];
      if (sameData(properties[definition.name] ?? [], data)) continue;
      settled = false;
      const values = data.map((fields) => ({ _id: run.newId(), type: definition.name, ...fields, created: run.stamp }));
      if (values.length > 0) properties[definition.name] = values;
      else delete properties[definition.name];
      changed.set(definition.name, values);
    }
    if (settled) break;
  }
  return { properties, changed: [...changed.values()].flat() };
}
