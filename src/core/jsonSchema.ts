import * as z from 'zod/mini';
import { hooksFileSchema } from './hookConfig';

/** The JSON schema of hooks.json, generated from the zod schema so the editor and the runner agree. */
export function hooksJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(hooksFileSchema(), { io: 'input', target: 'draft-7', unrepresentable: 'any' }),
    title: 'Garuda Hooks configuration',
    allowComments: true,
    allowTrailingCommas: true,
  };
}
