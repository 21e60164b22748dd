// Local ESLint rules (decision 39): a promise left running and an error left unhandled each carry a reason
// a reader can see — a comment on the same line or the line above — or they are handled instead.
// typescript-eslint's no-floating-promises already rejects a promise dropped without `void`; these rules
// make the `void` and the empty handler say why.

/** True when a comment ends on the line above `node`'s statement or on any line the node spans. */
function explained(context, node) {
  const source = context.sourceCode;
  let stmt = node;
  while (stmt.parent && !/Statement$|Declaration$/.test(stmt.type)) stmt = stmt.parent;
  const from = stmt.loc.start.line - 1;
  const to = node.loc.end.line;
  return source.getAllComments().some((c) => c.loc.end.line >= from && c.loc.start.line <= to);
}

/** `void f()`, `void p.then(…)`, `void (async () => …)()`: not awaited on purpose, so say why. */
const fireAndForget = {
  meta: {
    type: 'suggestion',
    docs: { description: 'a `void` promise carries a one-line reason why it is not awaited' },
    schema: [],
    messages: {
      why: 'say in a comment (same line or the line above) why this is not awaited and what happens if it fails, or await it / add .catch(log)',
    },
  },
  create(context) {
    const services = context.sourceCode.parserServices;
    if (!services?.program) return {}; // type information is what tells a promise from `void set.add(x)`
    const checker = services.program.getTypeChecker();
    const thenable = (node) => {
      const type = checker.getTypeAtLocation(services.esTreeNodeToTSNodeMap.get(node));
      return (type.isUnion() ? type.types : [type]).some((t) => t.getProperty('then') !== undefined);
    };
    return {
      'UnaryExpression[operator="void"]'(node) {
        if (thenable(node.argument) && !explained(context, node)) context.report({ node, messageId: 'why' });
      },
    };
  },
};

const isNoOp = (fn) =>
  (fn.type === 'ArrowFunctionExpression' || fn.type === 'FunctionExpression') &&
  fn.params.length === 0 &&
  ((fn.body.type === 'BlockStatement' && fn.body.body.length === 0) ||
    (fn.body.type === 'Identifier' && fn.body.name === 'undefined') ||
    fn.body.type === 'Literal');

/** `.catch(() => {})`, `.catch(() => undefined)` and `catch {}` without a word about why dropping the error is right. */
const swallowedError = {
  meta: {
    type: 'suggestion',
    docs: { description: 'a swallowed error is logged or carries a one-line reason' },
    schema: [],
    messages: {
      why: 'this drops an error: log it, or say in a comment (same line or the line above) why dropping it is right',
    },
  },
  create(context) {
    return {
      'CallExpression[callee.property.name="catch"]'(node) {
        const [handler] = node.arguments;
        if (handler && isNoOp(handler) && !explained(context, node)) context.report({ node: handler, messageId: 'why' });
      },
      CatchClause(node) {
        if (node.param === null && node.body.body.length === 0 && !explained(context, node.body)) {
          context.report({ node, messageId: 'why' });
        }
      },
    };
  },
};

export const explainedPlugin = { rules: { 'fire-and-forget': fireAndForget, 'swallowed-error': swallowedError } };
