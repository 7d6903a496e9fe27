import type { Formula, FormulaNode, FormulaPath } from './ast';

/** What a formula reads, so that the worker knows which entities to recompute when data changes. */
export interface FormulaDependencies {
  /**
   * Properties of the entity itself, sorted: those named, and the reference property of every
   * `<reference>.<type>.<property>` path (pointing elsewhere changes the result). `_id` is left out:
   * it never changes.
   */
  properties: string[];
  /** Paths into other entities, each once, in the order they first appear. */
  paths: FormulaPath[];
}

export function formulaDependencies(formula: Formula): FormulaDependencies {
  const properties = new Set<string>();
  const paths = new Map<string, FormulaPath>();
  const visit = (node: FormulaNode): void => {
    switch (node.kind) {
      case 'property':
        properties.add(node.name);
        break;
      case 'path':
        if (node.path.kind === 'reference') properties.add(node.path.via);
        if (!paths.has(node.path.text)) paths.set(node.path.text, node.path);
        break;
      case 'call':
        node.args.forEach(visit);
        break;
      case 'literal':
      case 'id':
        break;
    }
  };
  visit(formula.root);
  return { properties: [...properties].sort(), paths: [...paths.values()] };
}
