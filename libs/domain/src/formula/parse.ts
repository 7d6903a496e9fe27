/**
 * The formula language of SPEC §9, in the RPN form Entu uses (`price quantity MULTIPLY`).
 *
 * ## Tokens (separated by whitespace; `(` and `)` need none)
 *
 * | token | example | pushes |
 * |---|---|---|
 * | string | `'a b'`, `"it's"` | that string; escapes `\\` `\'` `\"` `\n` `\t` |
 * | number | `12`, `-0.5`, `1e3` | that number |
 * | `true` / `false` | | that boolean |
 * | `_id` | | this entity's id |
 * | property | `price`, `_type` | every value of this entity's property (none when absent) |
 * | `_child.<type\|*>.<property>` | `_child.row.amount` | the values of the children (of that type) |
 * | `_referrer.<type\|*>.<property>` | `_referrer.*._id` | the values of the entities referencing this one |
 * | `<reference>.<type\|*>.<property>` | `customer.*.name` | the values of the entities this reference property points to |
 * | function | `SUM` | see below |
 * | `(` … `)` | `(a b SUM) 2 DIVIDE` | a group: its own stack, ended like a whole formula |
 *
 * A word written in capitals, digits and `_` only (`SUM`, `FOO`, `VAT`) is a function name, so a
 * property named that way cannot be read by a formula. `_api_key` can never be read.
 *
 * ## The stack
 *
 * Every operand pushes one entry: a LIST of scalars (number, string or boolean), possibly empty
 * (a property without values) or long (`_child.*.amount`). A function pops its operands and
 * pushes one list. Functions of kind "all" take every entry of the current group (the whole
 * formula, or the innermost parentheses), as Entu does with `a b c SUM`; chaining still works
 * (`a b SUM c MULTIPLY` is (a+b)·c), and parentheses limit what they take
 * (`'Total: ' (a b SUM) CONCAT`). Fixed functions take exactly their operands from the top.
 * At the end of the formula (or of a group), one entry is the result as it is (so `price` keeps
 * its number, and `_child.*.name` gives every name); several entries are joined as by CONCAT.
 * Arity is checked when parsing: `a IF` is an error, never a runtime surprise.
 *
 * ## Functions (V = all values of the operands, flattened in order)
 *
 * | function | operands | result | on empty V |
 * |---|---|---|---|
 * | CONCAT | all (≥1) | V as text, joined without separator | none |
 * | CONCAT_WS | all (≥2) | V of all but the top entry, joined with the top entry (one value) | none |
 * | SUM | all | sum of V (numbers) | 0 |
 * | SUBTRACT | all | V[0] − V[1] − … | none |
 * | MULTIPLY | all | product of V | none (not 1: a product of nothing is no total) |
 * | DIVIDE | all | V[0] ÷ V[1] ÷ …; a zero divisor is a failure | none |
 * | AVERAGE | all | mean of V | none |
 * | COUNT | all | how many values V has (any type) | 0 |
 * | MIN, MAX | all | smallest / largest of V: all numbers, or all strings (ISO dates order right) | none |
 * | IN, NIN | all (≥2) | `needle a b IN`: does any value of the first entry equal a value of the others (NIN: none) | IN false, NIN true |
 * | ABS | 1 | the absolute value of each value | none |
 * | ROUND | 2 | `x 2 ROUND`: each value of x rounded (half away from zero) to n digits, n one integer in −15…15 | none |
 * | EXISTS | 1 | true when the entry has a value | false |
 * | EQ, NE | 2 | `a b EQ`: a = b; values of different types are unequal | none if a side has no value |
 * | GT, GTE, LT, LTE | 2 | `a b GT`: a > b; numbers, or strings (code-unit order); others fail | none if a side has no value |
 * | IF | 3 | `cond then else IF`: then-entry or else-entry; cond one boolean, or empty (false) | |
 *
 * Text of a value: numbers as JavaScript prints them, booleans as `true`/`false`. Results of
 * SUM, SUBTRACT, MULTIPLY, DIVIDE and AVERAGE keep 15 significant digits (what a double holds
 * reliably), so `0.1 0.2 SUM` is 0.3.
 *
 * ## No value, and failures
 *
 * "None" above is an empty list: it flows on like a property without values (`(a 2 ROUND) EXISTS`
 * is false when `a` has no value, and `(a 2 ROUND) 1 SUM` is 1).
 * A failure — a type error (a string in SUM, two values where one is needed), a zero divisor, a
 * result that is not a finite number, a string over `MAX_FORMULA_STRING` — makes the whole
 * formula evaluate to no value (the property is absent). IF evaluates only the branch it takes,
 * so `b 0 EQ 0 (a b DIVIDE) IF` is safe.
 *
 * Stored values are seen as scalars by `formulaValuesOf`: numbers, booleans, dates and datetimes
 * (ISO text), a reference's label (`string`) or else its id, a file's name, strings.
 *
 * ## Differences from Entu
 *
 * Functions may appear anywhere (Entu: only last, nesting by parentheses — both forms work here);
 * quoted strings take escapes; one entry of several values is returned as several values (Entu
 * joins them); strings are never taken as numbers (`'5' 1 SUM` is a type error); IF, the
 * comparisons, EXISTS, IN and NIN are new.
 *
 * ## Errors
 *
 * A malformed formula throws DomainError `invalid` with one FieldError (`parameter: 'formula'`)
 * whose message gives the 1-based character position, e.g. `unterminated string at position 12`.
 * At most `MAX_FORMULA_LENGTH` characters and `MAX_FORMULA_TOKENS` tokens.
 */
import { invalid } from '../errors';
import { isAnyPropertyName } from '../names';
import { isSecretProperty } from '../definitions/system';
import {
  ARITY,
  MAX_FORMULA_LENGTH,
  MAX_FORMULA_TOKENS,
  isFormulaFunction,
  type Formula,
  type FormulaNode,
  type FormulaPath,
} from './ast';

const NUMBER = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;
const FUNCTION_WORD = /^[A-Z][A-Z0-9_]*$/;
const TYPE_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
const WHITESPACE = /\s/;
// A Map: the escaped character comes from the formula, and is looked up by name.
const ESCAPES: ReadonlyMap<string, string> = new Map([['\\', '\\'], ["'", "'"], ['"', '"'], ['n', '\n'], ['t', '\t']]);
/** Names that are not properties of the entity itself. */
const NOT_OWN = new Set(['_child', '_referrer']);

type Token =
  | { kind: 'open' | 'close'; at: number }
  | { kind: 'string'; value: string; at: number }
  | { kind: 'word'; text: string; at: number };

class Parser {
  constructor(private readonly text: string) {}

  /** Refuses the formula with `message … at position N` (N counts characters, from 1). */
  fail(message: string, at: number): never {
    const position = [...this.text.slice(0, at)].length + 1;
    throw refused(`${message} at position ${position}`);
  }

  tokens(): Token[] {
    const { text } = this;
    const tokens: Token[] = [];
    let i = 0;
    while (i < text.length) {
      const char = text[i]!;
      if (WHITESPACE.test(char)) {
        i++;
        continue;
      }
      if (tokens.length === MAX_FORMULA_TOKENS) this.fail(`more than ${MAX_FORMULA_TOKENS} tokens`, i);
      if (char === '(' || char === ')') {
        tokens.push({ kind: char === '(' ? 'open' : 'close', at: i });
        i++;
      } else if (char === "'" || char === '"') {
        const [value, end] = this.string(i);
        tokens.push({ kind: 'string', value, at: i });
        i = end;
        const next = text[i];
        if (next !== undefined && next !== '(' && next !== ')' && !WHITESPACE.test(next)) this.fail('missing space after a string', i);
      } else {
        let end = i;
        while (end < text.length && text[end] !== '(' && text[end] !== ')' && !WHITESPACE.test(text[end]!)) end++;
        tokens.push({ kind: 'word', text: text.slice(i, end), at: i });
        i = end;
      }
    }
    return tokens;
  }

  /** The string that opens at `start`, and the index just after its closing quote. */
  private string(start: number): [string, number] {
    const { text } = this;
    const quote = text[start]!;
    let value = '';
    let i = start + 1;
    while (i < text.length) {
      const char = text[i]!;
      if (char === quote) return [value, i + 1];
      if (char === '\\') {
        const escaped = text[i + 1];
        const replacement = escaped === undefined ? undefined : ESCAPES.get(escaped);
        if (replacement === undefined) {
          if (escaped === undefined) break;
          this.fail(`unknown escape \\${escaped} (use \\\\ \\' \\" \\n \\t)`, i);
        }
        value += replacement;
        i += 2;
      } else {
        value += char;
        i++;
      }
    }
    return this.fail('unterminated string', start);
  }

  /** What one word stands for: a literal, a property, a path or a function name. */
  operand(word: string, at: number): FormulaNode {
    if (NUMBER.test(word)) {
      const value = Number(word);
      if (!Number.isFinite(value)) this.fail(`number ${word} is out of range`, at);
      return { kind: 'literal', value: Object.is(value, -0) ? 0 : value };
    }
    if (word === 'true' || word === 'false') return { kind: 'literal', value: word === 'true' };
    if (word === '_id') return { kind: 'id' };
    if (word.includes('.')) return { kind: 'path', path: this.path(word, at) };
    if (isSecretProperty(word)) this.fail(`${word} cannot be read by a formula`, at);
    if (NOT_OWN.has(word)) this.fail(`${word} needs a type and a property, as ${word}.<type|*>.<property>`, at);
    if (isAnyPropertyName(word)) return { kind: 'property', name: word };
    return this.fail(`unexpected ${show(word)}`, at);
  }

  private path(word: string, at: number): FormulaPath {
    const parts = word.split('.');
    const [via, type, property] = parts;
    if (parts.length !== 3 || !via || !type || !property) {
      this.fail(`path ${show(word)} must have three parts: <reference|_child|_referrer>.<type|*>.<property>`, at);
    }
    const secret = [via, property].find((part) => part !== undefined && isSecretProperty(part));
    if (secret !== undefined) this.fail(`${secret} cannot be read by a formula`, at);
    if (!isAnyPropertyName(via) || via === '_id') this.fail(`path ${show(word)} must start with _child, _referrer or a reference property`, at);
    if (type !== '*' && !TYPE_NAME.test(type)) this.fail(`path ${show(word)} must name a type or *`, at);
    if (!isAnyPropertyName(property) || NOT_OWN.has(property)) this.fail(`path ${show(word)} must end with a property name or _id`, at);
    const kind = via === '_child' ? 'child' : via === '_referrer' ? 'referrer' : 'reference';
    return { text: word, kind, via, type, property };
  }

  parse(): Formula {
    const { text } = this;
    // Frames of the stack machine: the formula, then one per open parenthesis.
    const frames: { nodes: FormulaNode[]; at: number }[] = [{ nodes: [], at: 0 }];
    for (const token of this.tokens()) {
      const frame = frames[frames.length - 1]!;
      switch (token.kind) {
        case 'open':
          frames.push({ nodes: [], at: token.at });
          break;
        case 'close': {
          if (frames.length === 1) this.fail('unmatched )', token.at);
          frames.pop();
          if (frame.nodes.length === 0) this.fail('empty parentheses', frame.at);
          frames[frames.length - 1]!.nodes.push(finish(frame.nodes));
          break;
        }
        case 'string':
          frame.nodes.push({ kind: 'literal', value: token.value });
          break;
        case 'word':
          if (FUNCTION_WORD.test(token.text)) this.call(token.text, token.at, frame.nodes);
          else frame.nodes.push(this.operand(token.text, token.at));
          break;
      }
    }
    if (frames.length > 1) this.fail('unclosed (', frames[frames.length - 1]!.at);
    const nodes = frames[0]!.nodes;
    if (nodes.length === 0) throw refused('formula is empty');
    return { text, root: finish(nodes) };
  }

  /** Applies function `name` to the stack of the current group. */
  private call(name: string, at: number, nodes: FormulaNode[]): void {
    if (!isFormulaFunction(name)) this.fail(`unknown function ${name}`, at);
    const arity = ARITY[name];
    if (arity.kind === 'all') {
      if (nodes.length < arity.min) this.fail(`${name} needs at least ${operands(arity.min)}`, at);
      nodes.splice(0, nodes.length, { kind: 'call', name, args: nodes.slice() });
    } else {
      if (nodes.length < arity.count) this.fail(`${name} needs ${operands(arity.count)}`, at);
      nodes.push({ kind: 'call', name, args: nodes.splice(nodes.length - arity.count) });
    }
  }
}

const refused = (detail: string) => invalid(`formula does not parse: ${detail}`, [{ parameter: 'formula', message: detail }]);
const operands = (n: number) => (n === 1 ? '1 operand' : `${n} operands`);
const show = (word: string) => JSON.stringify(word.length > 40 ? `${word.slice(0, 40)}…` : word);

/** The end of a formula or group: one entry as it is, several joined as by CONCAT. */
function finish(nodes: FormulaNode[]): FormulaNode {
  return nodes.length === 1 ? nodes[0]! : { kind: 'call', name: 'CONCAT', args: nodes };
}

/**
 * Parses a formula (SPEC §9; grammar and semantics above). Throws DomainError `invalid` whose
 * one FieldError names the 1-based position of the first problem.
 */
export function parseFormula(text: string): Formula {
  if (typeof text !== 'string') throw refused('formula must be a string');
  const length = text.length > 2 * MAX_FORMULA_LENGTH ? text.length : [...text].length;
  if (length > MAX_FORMULA_LENGTH) {
    throw refused(`formula is ${length} characters long, at most ${MAX_FORMULA_LENGTH} are allowed`);
  }
  return new Parser(text).parse();
}
