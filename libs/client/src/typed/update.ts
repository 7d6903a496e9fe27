import type { Entity, PropertyDescription, TypeDescription, Value, ValueFieldDescription, ValueInput } from '../types';
import { definitionOf, InputError, REFERENCE_SYSTEM, toValueInputs, UnknownPropertyError } from './values';

/** What an update sends: one POST of values (all or nothing), then the deletions of values it drops. */
export interface UpdatePlan {
  values: ValueInput[];
  deletions: string[];
}

/** The properties whose present values an update must know: lists, rights, and what it removes. */
export function namesToRead(type: TypeDescription, patch: Record<string, unknown>): string[] {
  return Object.keys(patch).filter((name) => {
    const value = patch[name];
    if (value === undefined) return false;
    if (value === null) return true;
    if ((REFERENCE_SYSTEM as readonly string[]).includes(name)) return true;
    const property = definitionOf(type, name);
    return property !== undefined && (property.list || (property.multilingual && Object.values(value as object).includes(null)));
  });
}

/**
 * A datetime as the server stores it (UTC, SPEC §3), so that `…+02:00` matches its stored `…Z`.
 * Only ISO 8601 with an offset: other text is compared as given (the server refuses it).
 */
function momentOf(datetime: unknown): unknown {
  const time = typeof datetime === 'string' && /^\d{4}-\d{2}-\d{2}T[^ ]*(Z|[+-]\d{2}:\d{2})$/.test(datetime) ? Date.parse(datetime) : Number.NaN;
  return Number.isNaN(time) ? datetime : new Date(time).toISOString();
}

/** What a right list or `_parent` holds: entity ids. */
const REFERENCE_FIELDS: ValueFieldDescription[] = [{ name: 'reference', scalar: 'id' }];

/**
 * The identity of a value's data, to keep values that stay as they are: the fields the schema says
 * its property's values hold (so a reference's id, not the label it also carries in `string`), and
 * its language.
 */
function dataOf(value: ValueInput | Value, fields: readonly ValueFieldDescription[]): string {
  const data = value as unknown as Record<string, unknown>;
  return JSON.stringify([...fields.map((field) => (field.scalar === 'datetime' ? momentOf(data[field.name]) : data[field.name])), value.language]);
}

/**
 * `current` values become `desired` ones: equal ones are kept untouched, changed ones overwritten in
 * place (their `_id` stays), extra desired ones added, extra current ones deleted.
 */
function replaceList(current: Value[], desired: ValueInput[], plan: UpdatePlan, fields: readonly ValueFieldDescription[]): void {
  const unmatched = [...current];
  const fresh: ValueInput[] = [];
  for (const value of desired) {
    const same = unmatched.findIndex((present) => dataOf(present, fields) === dataOf(value, fields));
    if (same >= 0) unmatched.splice(same, 1);
    else fresh.push(value);
  }
  for (const value of fresh) {
    const reuse = unmatched.shift();
    plan.values.push(reuse ? { ...value, _id: reuse._id } : value);
  }
  plan.deletions.push(...unmatched.map((value) => value._id));
}

function valuesIn(entity: Entity | undefined, name: string): Value[] {
  const values = entity && Object.hasOwn(entity, name) ? entity[name] : undefined;
  return Array.isArray(values) ? values : [];
}

function updateProperty(type: TypeDescription, property: PropertyDescription, input: unknown, current: Entity | undefined, plan: UpdatePlan): void {
  const present = valuesIn(current, property.name);
  if (input === null) {
    plan.deletions.push(...present.map((value) => value._id));
    return;
  }
  const written = toValueInputs(type, { [property.name]: input });
  if (!property.multilingual) {
    if (property.list) replaceList(present, written, plan, property.fields);
    else plan.values.push(...written);
    return;
  }
  // Per language: the languages the input names change, the others stay.
  for (const [language, value] of Object.entries(input as Record<string, unknown>)) {
    if (value === undefined) continue;
    const inLanguage = present.filter((v) => v.language === language);
    if (value === null) plan.deletions.push(...inLanguage.map((v) => v._id));
    else if (property.list) replaceList(inLanguage, written.filter((v) => v.language === language), plan, property.fields);
    else plan.values.push(...written.filter((v) => v.language === language));
  }
}

/**
 * An update in values: a single value is replaced (per language when multilingual), a list becomes
 * exactly the given values, rights and parents exactly the given ids, `null` removes a property's
 * values. `current` holds the present values of `namesToRead(type, patch)`.
 */
export function planUpdate(type: TypeDescription, patch: Record<string, unknown>, current: Entity | undefined): UpdatePlan {
  const plan: UpdatePlan = { values: [], deletions: [] };
  for (const name of Object.keys(patch)) {
    const input = patch[name];
    if (input === undefined) continue;
    if ((REFERENCE_SYSTEM as readonly string[]).includes(name)) {
      if (input === null) throw new InputError(`"${name}" cannot be emptied; give the ids it should hold`);
      // Inherited rights are the parents' (SPEC §4), and the holders of a higher level the API lists
      // under a lower one (`property_type`) hold that level: neither is this list's to keep,
      // overwrite or delete.
      const own = valuesIn(current, name).filter((value) => !value.inherited && value.property_type === undefined);
      replaceList(own, toValueInputs(type, { [name]: input }), plan, REFERENCE_FIELDS);
      continue;
    }
    if (name.startsWith('_')) {
      if (input === null) throw new InputError(`"${name}" cannot be removed`);
      plan.values.push(...toValueInputs(type, { [name]: input }));
      continue;
    }
    const property = definitionOf(type, name);
    if (!property) throw new UnknownPropertyError(name, type.name);
    if (property.formula !== undefined || property.readonly) throw new InputError(`"${name}" is ${property.formula !== undefined ? 'computed' : 'read-only'}`);
    updateProperty(type, property, input, current, plan);
  }
  return plan;
}
