import type { Right } from '../rights';
import type { DefinitionOptionKey } from '../values/registry';
import type { ValueShape } from '../values/rules';

/** The definition options its value type takes (`referenceQuery`), by key; each only when defined. */
type DefinitionOptions = { [K in DefinitionOptionKey]?: string };

/** How a property behaves (SPEC §5); system properties have built-in definitions of the same shape. */
export interface PropertyDefinition extends ValueShape, DefinitionOptions {
  list: boolean;
  search: boolean;
  mandatory: boolean;
  readonly: boolean;
  formula?: string;
  /** The right needed to add, change or delete its values. */
  writeRight: Right;
  /**
   * Its values are credentials (or stand for them): shown as `***`, never filtered on (but for
   * `exists`), sorted by, searched or read by formulas. Only system properties are secret; see
   * `isSecretProperty`.
   */
  secret?: true;
}
