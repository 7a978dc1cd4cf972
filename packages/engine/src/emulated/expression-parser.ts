/**
 * The subset of DynamoDB's condition and update expressions the local stores emulate for a
 * transactional step's writes (see `emulated-tables.ts`), parsed into small trees. Everything
 * outside the subset is refused with `unsupported_expression` rather than guessed at:
 *
 * - paths: one top-level attribute, by placeholder (`#s`) only: a bare name might be one of
 *   DynamoDB's reserved words, refused there; no `a.b`, no `a[0]`;
 * - conditions: `=`, `<>`, `<`, `<=`, `>`, `>=`, `BETWEEN … AND …`, `IN (…)`, `attribute_exists`,
 *   `attribute_not_exists`, `begins_with`, `AND`, `OR`, `NOT`, parentheses;
 * - updates: `SET p = v`, `SET p = v + v`, `SET p = v - v`, `SET p = if_not_exists(p, v)`,
 *   `REMOVE p`, `ADD p :n` (a number, or a set), `DELETE p :set`.
 */

/** An operand: an attribute of the item, or an `ExpressionAttributeValues` placeholder. */
export type Operand = { path: string } | { value: string };

/** A parsed condition. */
export type Condition =
  | { op: 'and' | 'or'; left: Condition; right: Condition }
  | { op: 'not'; of: Condition }
  | { op: 'cmp'; cmp: '=' | '<>' | '<' | '<=' | '>' | '>='; left: Operand; right: Operand }
  | { op: 'between'; of: Operand; low: Operand; high: Operand }
  | { op: 'in'; of: Operand; list: Operand[] }
  | { op: 'exists' | 'not_exists'; path: string }
  | { op: 'begins_with'; of: Operand; prefix: Operand };

/** A SET value. */
export type SetValue =
  | { kind: 'operand'; of: Operand }
  | { kind: 'plus' | 'minus'; left: SetValue; right: SetValue }
  | { kind: 'if_not_exists'; path: string; fallback: Operand };

/** A parsed update expression. */
export interface UpdateActions {
  set: Array<{ path: string; value: SetValue }>;
  remove: string[];
  add: Array<{ path: string; value: string }>;
  delete: Array<{ path: string; value: string }>;
}

/** A part of an expression outside the subset, or malformed. */
export class ExpressionError extends Error {
  constructor(
    readonly unsupported: boolean,
    message: string,
  ) {
    super(message);
  }
}

const TOKEN = /\s*(<>|<=|>=|[=<>(),+-]|#[A-Za-z0-9_]+|:[A-Za-z0-9_]+|[A-Za-z_][A-Za-z0-9_]*|\S)/y;

function tokenize(text: string): string[] {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < text.length) {
    const at = TOKEN.lastIndex;
    const m = TOKEN.exec(text);
    if (!m) {
      if (text.slice(at).trim() === '') break;
      throw new ExpressionError(false, `cannot read "${text.slice(at)}"`);
    }
    tokens.push(m[1] as string);
  }
  return tokens;
}

const KEYWORDS = new Set(['AND', 'OR', 'NOT', 'BETWEEN', 'IN', 'SET', 'REMOVE', 'ADD', 'DELETE']);

class Tokens {
  private i = 0;
  constructor(
    private readonly list: string[],
    private readonly names: Record<string, string>,
    readonly usedNames: Set<string>,
    readonly usedValues: Set<string>,
  ) {}
  peek(): string | undefined {
    return this.list[this.i];
  }
  /** The token `ahead` places on. */
  peekAt(ahead: number): string | undefined {
    return this.list[this.i + ahead];
  }
  peekUpper(): string | undefined {
    return this.list[this.i]?.toUpperCase();
  }
  next(): string {
    const t = this.list[this.i++];
    if (t === undefined) throw new ExpressionError(false, 'the expression ends too early');
    return t;
  }
  expect(token: string): void {
    const t = this.next();
    if (t.toUpperCase() !== token) throw new ExpressionError(false, `expected "${token}", found "${t}"`);
  }
  done(): boolean {
    return this.i >= this.list.length;
  }
  /** A top-level attribute name: a `#placeholder`. */
  path(): string {
    const t = this.next();
    let name = '';
    if (t.startsWith('#')) {
      const real = this.names[t];
      if (real === undefined) throw new ExpressionError(false, `the name placeholder ${t} is not defined`);
      this.usedNames.add(t);
      name = real;
    } else if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(t) && !KEYWORDS.has(t.toUpperCase())) {
      // DynamoDB refuses some 570 reserved words as bare names (`status`, `name`, `count`, …); the
      // local store does not carry that list, so a bare name it accepted might fail on DynamoDB.
      throw new ExpressionError(
        true,
        `the bare attribute name ${t}: name attributes through ExpressionAttributeNames (#${t}) in locally emulated expressions`,
      );
    } else {
      throw new ExpressionError(false, `expected an attribute name, found "${t}"`);
    }
    const after = this.peek();
    if (after === '.' || after === '[') {
      throw new ExpressionError(true, `nested paths (${name}${after}…) are not emulated locally`);
    }
    return name;
  }
  value(): string {
    const t = this.next();
    if (!t.startsWith(':')) throw new ExpressionError(false, `expected a value placeholder, found "${t}"`);
    this.usedValues.add(t);
    return t;
  }
  operand(): Operand {
    const t = this.peek();
    if (t?.startsWith(':')) return { value: this.value() };
    if (t !== undefined && /^[A-Za-z_]/.test(t) && this.peekAt(1) === '(') {
      throw new ExpressionError(true, `the function ${t}() is not emulated locally as an operand`);
    }
    return { path: this.path() };
  }
}

/** The tokens of an expression, with the placeholders it uses noted. */
export function tokensOf(
  text: string,
  names: Record<string, string>,
  usedNames: Set<string>,
  usedValues: Set<string>,
): Tokens {
  return new Tokens(tokenize(text), names, usedNames, usedValues);
}

/** Parses a whole condition expression. */
export function parseCondition(t: Tokens): Condition {
  const c = orOf(t);
  if (!t.done()) throw new ExpressionError(false, `unexpected "${t.peek()}"`);
  return c;
}

function orOf(t: Tokens): Condition {
  let left = andOf(t);
  while (t.peekUpper() === 'OR') {
    t.next();
    left = { op: 'or', left, right: andOf(t) };
  }
  return left;
}

function andOf(t: Tokens): Condition {
  let left = notOf(t);
  while (t.peekUpper() === 'AND') {
    t.next();
    left = { op: 'and', left, right: notOf(t) };
  }
  return left;
}

function notOf(t: Tokens): Condition {
  if (t.peekUpper() === 'NOT') {
    t.next();
    return { op: 'not', of: notOf(t) };
  }
  return primary(t);
}

const COMPARATORS = new Set(['=', '<>', '<', '<=', '>', '>=']);

function primary(t: Tokens): Condition {
  if (t.peek() === '(') {
    t.next();
    const c = orOf(t);
    t.expect(')');
    return c;
  }
  const head = t.peek() ?? '';
  const fn = head.toLowerCase();
  if (/^[a-z_]+$/.test(fn) && !head.startsWith('#')) {
    // A function call: the name, then `(`.
    if (t.peekAt(1) === '(') {
      t.next();
      t.next();
      if (fn === 'attribute_exists' || fn === 'attribute_not_exists') {
        const path = t.path();
        t.expect(')');
        return { op: fn === 'attribute_exists' ? 'exists' : 'not_exists', path };
      }
      if (fn === 'begins_with') {
        const of = t.operand();
        t.expect(',');
        const prefix = t.operand();
        t.expect(')');
        return { op: 'begins_with', of, prefix };
      }
      throw new ExpressionError(true, `the function ${head}() is not emulated locally`);
    }
  }
  const left = t.operand();
  const op = t.next();
  const upper = op.toUpperCase();
  if (COMPARATORS.has(op)) return { op: 'cmp', cmp: op as '=', left, right: t.operand() };
  if (upper === 'BETWEEN') {
    const low = t.operand();
    t.expect('AND');
    return { op: 'between', of: left, low, high: t.operand() };
  }
  if (upper === 'IN') {
    t.expect('(');
    const list = [t.operand()];
    while (t.peek() === ',') {
      t.next();
      list.push(t.operand());
    }
    t.expect(')');
    return { op: 'in', of: left, list };
  }
  throw new ExpressionError(false, `expected a comparison after the operand, found "${op}"`);
}

/** Parses a whole update expression. */
export function parseUpdate(t: Tokens): UpdateActions {
  const actions: UpdateActions = { set: [], remove: [], add: [], delete: [] };
  const seen = new Set<string>();
  while (!t.done()) {
    const clause = t.next().toUpperCase();
    if (!['SET', 'REMOVE', 'ADD', 'DELETE'].includes(clause)) {
      throw new ExpressionError(false, `expected SET, REMOVE, ADD or DELETE, found "${clause}"`);
    }
    if (seen.has(clause)) throw new ExpressionError(false, `the ${clause} clause appears twice`);
    seen.add(clause);
    do {
      if (clause === 'SET') {
        const path = t.path();
        t.expect('=');
        actions.set.push({ path, value: setValue(t) });
      } else if (clause === 'REMOVE') {
        actions.remove.push(t.path());
      } else {
        const path = t.path();
        (clause === 'ADD' ? actions.add : actions.delete).push({ path, value: t.value() });
      }
    } while (t.peek() === ',' && t.next() === ',');
  }
  return actions;
}

function setValue(t: Tokens): SetValue {
  const left = setOperand(t);
  const op = t.peek();
  if (op === '+' || op === '-') {
    t.next();
    return { kind: op === '+' ? 'plus' : 'minus', left, right: setOperand(t) };
  }
  return left;
}

function setOperand(t: Tokens): SetValue {
  const head = t.peek() ?? '';
  if (head.toLowerCase() === 'if_not_exists') {
    t.next();
    t.expect('(');
    const path = t.path();
    t.expect(',');
    const fallback = t.operand();
    t.expect(')');
    return { kind: 'if_not_exists', path, fallback };
  }
  if (t.peekAt(1) === '(') throw new ExpressionError(true, `the function ${head}() is not emulated locally`);
  return { kind: 'operand', of: t.operand() };
}
