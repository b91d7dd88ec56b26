// Zod's findings about an input, in the words our messages use, for callers that are programs
// (a model, another extension) and need to know exactly what to change.
import type * as z from 'zod/mini';
import { describeIssue, jsonPath } from './hookConfig';

/** One clause per problem: `old_string: required string is missing; unknown key "filePath"`. */
export function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .map((issue) => {
      if (issue.code === 'unrecognized_keys') return issue.keys.map((key) => `unknown key "${key}"`).join(', ');
      const where = jsonPath(issue.path.filter((p): p is string | number => typeof p !== 'symbol'));
      return `${where || 'input'}: ${describeIssue(issue)}`;
    })
    .join('; ');
}
