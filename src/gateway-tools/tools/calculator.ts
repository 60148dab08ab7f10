import { Type, type Static } from '@sinclair/typebox';
import { ToolFailure, type GatewayTool } from '../types.js';

export const MAX_EXPRESSION_LENGTH = 1_000;
export const MAX_NESTING_DEPTH = 64;

const Parameters = Type.Object(
  {
    expression: Type.String({
      minLength: 1,
      maxLength: MAX_EXPRESSION_LENGTH,
      description: 'Arithmetic expression with numbers, + - * / % ^ and parentheses, e.g. "(2 + 3) * 4 ^ 2 / 7".',
    }),
  },
  { additionalProperties: false },
);

/**
 * Arithmetic by a small recursive-descent parser over a fixed grammar: the input is never
 * handed to eval or Function, and nothing but numbers, operators and parentheses is accepted.
 *
 *   expression := term (("+" | "-") term)*
 *   term       := unary (("*" | "/" | "%") unary)*
 *   unary      := ("-" | "+") unary | power
 *   power      := primary ("^" unary)?          right-associative; -2^2 = -(2^2)
 *   primary    := number | "(" expression ")"
 *   number     := digits ["." digits] | "." digits, optionally followed by e[+-]digits
 */
export function evaluateExpression(source: string): number {
  if (source.length > MAX_EXPRESSION_LENGTH)
    throw new ToolFailure(`The expression is longer than ${MAX_EXPRESSION_LENGTH} characters.`);
  const parser = new Parser(source);
  const value = parser.parse();
  if (Number.isNaN(value)) throw new ToolFailure('The result is not a real number.');
  if (!Number.isFinite(value)) throw new ToolFailure('The result is too large.');
  // Hide binary floating-point noise (0.1 + 0.2) without touching integers.
  return Number.isInteger(value) ? value : Number(value.toPrecision(15));
}

class Parser {
  private position = 0;
  private depth = 0;

  constructor(private readonly source: string) {}

  parse(): number {
    const value = this.expression();
    this.skipSpaces();
    if (this.position < this.source.length) throw this.unexpected();
    return value;
  }

  private expression(): number {
    this.enter();
    let value = this.term();
    for (;;) {
      const op = this.peekOperator('+-');
      if (!op) break;
      this.position++;
      const right = this.term();
      value = op === '+' ? value + right : value - right;
    }
    this.depth--;
    return value;
  }

  private term(): number {
    let value = this.unary();
    for (;;) {
      const op = this.peekOperator('*/%');
      if (!op) break;
      this.position++;
      const right = this.unary();
      if ((op === '/' || op === '%') && right === 0) throw new ToolFailure('Division by zero.');
      value = op === '*' ? value * right : op === '/' ? value / right : value % right;
    }
    return value;
  }

  private unary(): number {
    const op = this.peekOperator('+-');
    if (!op) return this.power();
    this.position++;
    this.enter();
    const value = this.unary();
    this.depth--;
    return op === '-' ? -value : value;
  }

  private power(): number {
    const base = this.primary();
    if (!this.peekOperator('^')) return base;
    this.position++;
    this.enter();
    const exponent = this.unary();
    this.depth--;
    return base ** exponent;
  }

  private primary(): number {
    this.skipSpaces();
    const char = this.source[this.position];
    if (char === '(') {
      this.position++;
      const value = this.expression();
      this.skipSpaces();
      if (this.source[this.position] !== ')') throw this.unexpected('")"');
      this.position++;
      return value;
    }
    const match = /^(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/.exec(
      this.source.slice(this.position, this.position + 400),
    );
    if (!match) throw this.unexpected('a number or "("');
    this.position += match[0].length;
    return Number(match[0]);
  }

  private peekOperator(operators: string): string | undefined {
    this.skipSpaces();
    const char = this.source[this.position];
    return char !== undefined && operators.includes(char) ? char : undefined;
  }

  private skipSpaces(): void {
    while (this.position < this.source.length && /\s/.test(this.source[this.position]!)) this.position++;
  }

  private enter(): void {
    if (++this.depth > MAX_NESTING_DEPTH)
      throw new ToolFailure(`The expression is nested more than ${MAX_NESTING_DEPTH} levels deep.`);
  }

  private unexpected(expected?: string): ToolFailure {
    const char = this.source[this.position];
    const found = char === undefined ? 'the end of the expression' : `"${char}" at position ${this.position + 1}`;
    return new ToolFailure(
      `Unexpected ${found}${expected ? `; expected ${expected}` : ''}. Only numbers, + - * / % ^ and parentheses are allowed.`,
    );
  }
}

/** Evaluates an arithmetic expression (see evaluateExpression for the grammar). */
export const calculatorTool: GatewayTool<Static<typeof Parameters>> = {
  id: 'gateway_calculator',
  description:
    'Evaluate an arithmetic expression exactly as written: numbers, + - * / % ^ (power), unary minus and parentheses.',
  parameters: Parameters,
  run: (args) => ({ expression: args.expression, result: evaluateExpression(args.expression) }),
};
