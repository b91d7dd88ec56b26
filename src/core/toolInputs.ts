// The inputs of the guarded language-model tools, validated here because a model's input is
// untrusted: a bad input becomes a message the model can act on, never an exception.
import * as z from 'zod/mini';
import { describeIssues } from './issues';
import { lazy } from './lazy';

export const COMMAND_TIMEOUT_MS = { default: 60_000, max: 600_000 } as const;

// Schemas are built on first use (see lazy.ts).
const path = lazy(() => z.string().check(z.minLength(1), z.describe('A file path, relative to the workspace folder (in a multi-root workspace it may start with the folder name) or absolute inside it.')));

/** Each tool, its canonical name for hooks (undefined: no tool call, it runs stop hooks) and its input. */
export const LM_TOOL_INPUTS = {
  garuda_runCommand: {
    tool: 'bash',
    schema: lazy(() =>
      z.strictObject({
        command: z.string().check(z.minLength(1), z.describe('The shell command, run with `sh -c`.')),
        cwd: z.optional(z.string().check(z.minLength(1))).check(z.describe('The folder to run in, like a path; default the first workspace folder.')),
        timeoutMs: z
          .optional(z.number().check(z.int(), z.minimum(1000), z.maximum(COMMAND_TIMEOUT_MS.max)))
          .check(z.describe('Kill the command after this many milliseconds; default 60000.')),
      }),
    ),
  },
  garuda_readFile: { tool: 'read_file', schema: lazy(() => z.strictObject({ path: path() })) },
  garuda_writeFile: {
    tool: 'write_file',
    schema: lazy(() => z.strictObject({ path: path(), content: z.string().check(z.describe('The whole new content of the file.')) })),
  },
  garuda_editFile: {
    tool: 'edit_file',
    schema: lazy(() =>
      z.strictObject({
        path: path(),
        old_string: z.string().check(z.minLength(1), z.describe('The exact text to replace, including whitespace; it must occur exactly once in the file.')),
        new_string: z.string().check(z.describe('The text to put in its place.')),
      }),
    ),
  },
  garuda_fetch: {
    tool: 'fetch',
    schema: lazy(() => z.strictObject({ url: z.url({ protocol: /^https?$/, error: 'expected an http:// or https:// URL' }).check(z.describe('The http or https URL to GET.')) })),
  },
  garuda_checkDone: {
    tool: undefined,
    schema: lazy(() =>
      z.strictObject({
        summary: z.optional(z.string()).check(z.describe('What you did, for hooks that check the final answer.')),
        folder: z.optional(z.string().check(z.minLength(1))).check(z.describe('The workspace folder whose stop hooks run, like a path; default the first folder.')),
      }),
    ),
  },
} as const;

export type LmToolName = keyof typeof LM_TOOL_INPUTS;
export type LmToolInput<N extends LmToolName> = z.output<ReturnType<(typeof LM_TOOL_INPUTS)[N]['schema']>>;

export type ParsedInput<N extends LmToolName> = { ok: true; input: LmToolInput<N> } | { ok: false; message: string };

/** The input as the tool's type, or a message saying what is wrong and what is expected. */
export function parseToolInput<N extends LmToolName>(name: N, input: unknown): ParsedInput<N> {
  // TypeScript cannot relate a schema picked by a generic key to that key's output type.
  const schema = LM_TOOL_INPUTS[name].schema() as unknown as z.ZodMiniType<LmToolInput<N>>;
  const parsed = schema.safeParse(input, { reportInput: true });
  if (parsed.success) return { ok: true, input: parsed.data };
  return { ok: false, message: `Invalid input for ${name}: ${describeIssues(parsed.error.issues)}. Nothing was done. Expected ${expectedShape(name)}.` };
}

/** The JSON schema VS Code shows the model; package.json must declare the same (a unit test checks). */
export function inputJsonSchema(name: LmToolName): Record<string, unknown> {
  const { $schema: _, ...schema } = z.toJSONSchema(LM_TOOL_INPUTS[name].schema(), { io: 'input' });
  return schema;
}

function expectedShape(name: LmToolName): string {
  const shape = LM_TOOL_INPUTS[name].schema().shape as Record<string, z.ZodMiniType>;
  const fields = Object.entries(shape).map(([key, field]) => `"${key}"${field.safeParse(undefined).success ? '?' : ''}: ${typeName(field)}`);
  return `{${fields.join(', ')}}`;
}

function typeName(field: z.ZodMiniType): string {
  const { type } = z.toJSONSchema(field, { io: 'input' });
  return type === 'integer' ? 'number' : String(type);
}
