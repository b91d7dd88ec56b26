import { parse, parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser';

/** A config file's JSON, or why it is not: one message and where, for the problem list. */
export type JsonDocument = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly message: string; readonly offset: number };

/**
 * Keys that a JavaScript object turns into its prototype instead of a property: the validation would
 * read hooks from them while the consent hash, which walks own keys, would not see them.
 */
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** Reads JSON with comments and trailing commas, like VS Code's own settings files; never throws. */
export function parseJsonDocument(text: string): JsonDocument {
  // A byte order mark is not content; a space keeps every offset in place.
  const source = text.replace(/^\uFEFF/, ' ');
  try {
    const errors: ParseError[] = [];
    const tree = parseTree(source, errors, { allowTrailingComma: true, allowEmptyContent: false });
    if (errors.length > 0) return { ok: false, message: `not valid JSON: ${describeAt(printParseErrorCode(errors[0]!.error).replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase(), source, errors[0]!.offset)}`, offset: errors[0]!.offset };
    const reserved = tree && findPrototypeKey(tree);
    if (reserved) return { ok: false, message: describeAt(`the key "${reserved.value}" is not allowed`, source, reserved.offset), offset: reserved.offset };
    return { ok: true, value: parse(source, [], { allowTrailingComma: true }) };
  } catch (error) {
    // Thousands of nested brackets exhaust the stack: a hostile file is a broken file, not a crash.
    return { ok: false, message: `cannot be read: ${(error as Error).message}`, offset: 0 };
  }
}

function findPrototypeKey(node: Node): Node | undefined {
  for (const child of node.children ?? []) {
    const key = child.type === 'property' ? child.children?.[0] : undefined;
    if (key && PROTOTYPE_KEYS.has(String(key.value))) return key;
    const found = findPrototypeKey(child);
    if (found) return found;
  }
  return undefined;
}

function describeAt(what: string, text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const column = before.length - before.lastIndexOf('\n');
  return `${what} at line ${line}, column ${column}`;
}
