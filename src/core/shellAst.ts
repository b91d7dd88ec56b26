// mvdan-sh is mvdan/sh compiled to JavaScript by GopherJS. Its JS API wraps every node it hands out
// (each Walk callback, each field read) and names types with fmt.Sprintf; on a 20-part command that
// costs five times the parse itself. The Go values behind the wrappers (`__internal_object__`) are
// plain objects, read here directly. The layout is GopherJS's, for the exactly pinned mvdan-sh in
// package.json: the splitCommand tests (a corpus of every construct) check it on each upgrade.

/** A node of mvdan/sh's syntax tree, as GopherJS lays out a Go pointer to a struct. */
export interface GoNode {
  readonly constructor: { readonly string: string; readonly nil: unknown };
  Pos(): { Offset(): number };
  End(): { Offset(): number };
  readonly [field: string]: unknown;
}

/** A Go slice: a window on a backing array. */
interface GoSlice {
  readonly $array: ArrayLike<unknown>;
  readonly $offset: number;
  readonly $length: number;
}

const TYPE_PREFIX = '*syntax.';

/** The syntax tree of `source`; throws mvdan-sh's error (with an `Error()` method) when it does not parse. */
export function parseShell(parser: { Parse(source: string, name: string): unknown }, source: string): GoNode {
  return (parser.Parse(source, '') as { __internal_object__: GoNode }).__internal_object__;
}

/** `CallExpr`, `Word`, `Lit`…: the Go type name. */
export function nodeType(node: GoNode): string {
  return node.constructor.string.slice(TYPE_PREFIX.length);
}

/** A node, not a nil pointer, a nil interface or a position (a struct with methods but no Pos/End). */
export function isNode(value: unknown): value is GoNode {
  if (typeof value !== 'object' || value === null) return false;
  const node = value as GoNode;
  return typeof node.Pos === 'function' && typeof node.End === 'function' && node !== node.constructor.nil
    && typeof node.constructor.string === 'string' && node.constructor.string.startsWith(TYPE_PREFIX);
}

/** The nodes of a slice field such as `Args` or `Parts`. */
export function nodesOf(slice: unknown): GoNode[] {
  const { $array, $offset, $length } = slice as GoSlice;
  const nodes: GoNode[] = [];
  for (let i = $offset; i < $offset + $length; i++) {
    const item = $array[i];
    if (isNode(item)) nodes.push(item);
  }
  return nodes;
}

/** A Go string field as text: GopherJS keeps Go strings as one character per UTF-8 byte. */
export function goString(value: unknown): string {
  const text = value as string;
  return /[^\x00-\x7f]/.test(text) ? Buffer.from(text, 'latin1').toString('utf8') : text;
}

/** Depth first in field order, like mvdan/sh's own syntax.Walk; `visit` returns false to skip a node's children. */
export function walk(node: GoNode, visit: (node: GoNode) => boolean): void {
  if (!visit(node)) return;
  for (const key of Object.keys(node)) {
    // `$val` is the struct itself.
    if (key === '$val') continue;
    const value = node[key];
    if (isNode(value)) walk(value, visit);
    else if (typeof value === 'object' && value !== null && '$array' in value) nodesOf(value).forEach((child) => walk(child, visit));
  }
}
