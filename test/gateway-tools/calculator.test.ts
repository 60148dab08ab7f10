import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  calculatorTool,
  evaluateExpression,
  MAX_EXPRESSION_LENGTH,
  MAX_NESTING_DEPTH,
} from '../../src/gateway-tools/tools/calculator.js';
import { runGatewayTool } from '../../src/gateway-tools/run-tool.js';
import { ToolFailure } from '../../src/gateway-tools/types.js';

describe('gateway_calculator parser', () => {
  const cases: Array<[string, number]> = [
    ['1 + 2', 3],
    ['2 + 3 * 4', 14],
    ['(2 + 3) * 4', 20],
    ['10 - 4 - 3', 3],
    ['100 / 10 / 5', 2],
    ['7 % 3', 1],
    ['2 ^ 10', 1024],
    ['2 ^ 3 ^ 2', 512],
    ['-2 ^ 2', -4],
    ['(-2) ^ 2', 4],
    ['2 ^ -1', 0.5],
    ['-3 + 5', 2],
    ['--3', 3],
    ['+4', 4],
    ['3 * -2', -6],
    ['1.5 * 4', 6],
    ['.5 + .25', 0.75],
    ['0.1 + 0.2', 0.3],
    ['1e3 + 2.5E-1', 1000.25],
    ['  ( ( 1 ) )  ', 1],
    ['2 * (3 + (4 - 1)) / 3', 4],
    ['9007199254740991 + 0', 9007199254740991],
  ];
  for (const [expression, expected] of cases) {
    it(`${expression} = ${expected}`, () => assert.equal(evaluateExpression(expression), expected));
  }

  const failures: Array<[string, RegExp]> = [
    ['1 / 0', /Division by zero/],
    ['5 % 0', /Division by zero/],
    ['1 / (2 - 2)', /Division by zero/],
    ['', /Unexpected the end/],
    ['1 +', /Unexpected the end/],
    ['(1 + 2', /expected "\)"/],
    ['1 + 2)', /Unexpected "\)"/],
    ['1 2', /Unexpected "2"/],
    ['2 ** 3', /Unexpected "\*"/],
    ['10 ^ 400', /too large/],
    ['(-8) ^ 0.5', /not a real number/],
    ['constructor', /Unexpected "c" at position 1/],
    ['process.exit()', /Unexpected "p"/],
    ['this.constructor.constructor("return process")()', /Unexpected "t"/],
    ['1 + require("fs")', /Unexpected "r"/],
    ['__proto__', /Unexpected "_"/],
    ['1; 2', /Unexpected ";"/],
    ['0x10', /Unexpected "x"/],
    ['Infinity', /Unexpected "I"/],
    ['NaN', /Unexpected "N"/],
    ['1,5', /Unexpected ","/],
  ];
  for (const [expression, message] of failures) {
    it(`refuses ${JSON.stringify(expression)}`, () => {
      assert.throws(
        () => evaluateExpression(expression),
        (error: unknown) => error instanceof ToolFailure && message.test(error.message),
      );
    });
  }

  it('refuses expressions longer than the limit without parsing them', () => {
    const long = Array.from({ length: 600 }, () => '1').join('+');
    assert.ok(long.length > MAX_EXPRESSION_LENGTH);
    assert.throws(() => evaluateExpression(long), /longer than 1000/);
  });

  it('accepts nesting up to the depth limit and refuses deeper nesting', () => {
    const nested = (depth: number) => '('.repeat(depth) + '1' + ')'.repeat(depth);
    assert.equal(evaluateExpression(nested(MAX_NESTING_DEPTH - 1)), 1);
    assert.throws(() => evaluateExpression(nested(MAX_NESTING_DEPTH + 1)), /nested more than 64/);
    assert.throws(() => evaluateExpression('-'.repeat(200) + '1'), /nested more than 64/);
    assert.throws(() => evaluateExpression('2^'.repeat(200) + '1'), /nested more than 64/);
  });

  it('a deep expression cannot overflow the stack (500 levels, under the length limit)', () => {
    assert.throws(() => evaluateExpression('('.repeat(499) + '1' + ')'.repeat(499)), ToolFailure);
  });

  it('runs through the tool runner: result, and failures reported for the model', async () => {
    const ok = await runGatewayTool(calculatorTool, JSON.stringify({ expression: '(2 + 3) * 4' }));
    assert.equal(ok.success, true);
    assert.deepEqual(JSON.parse(ok.content), { expression: '(2 + 3) * 4', result: 20 });
    const zero = await runGatewayTool(calculatorTool, JSON.stringify({ expression: '1/0' }));
    assert.equal(zero.success, false);
    assert.deepEqual(JSON.parse(zero.content), { error: 'Division by zero.' });
    const extra = await runGatewayTool(calculatorTool, JSON.stringify({ expression: '1', code: 'x' }));
    assert.equal(extra.success, false);
    const tooLong = await runGatewayTool(
      calculatorTool,
      JSON.stringify({ expression: '1'.repeat(MAX_EXPRESSION_LENGTH + 1) }),
    );
    assert.equal(tooLong.success, false);
    assert.match(tooLong.error!, /Invalid arguments at \/expression/);
  });
});
