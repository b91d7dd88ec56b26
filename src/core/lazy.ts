/**
 * `build` runs on the first call and its result is kept. For what a start should not pay for
 * until it is used: building the zod schemas takes milliseconds of every CLI run and activation.
 */
export function lazy<T>(build: () => T): () => T {
  let built: { readonly value: T } | undefined;
  return () => (built ??= { value: build() }).value;
}
