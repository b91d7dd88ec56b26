// HTTP GET of text for the guarded fetch tool: bounded in time and size, redirects not followed
// (a guard approved this URL, not wherever it redirects), and the body cleaned like hook output.
import { cleanText } from './clean';
import type { ActionResult } from './toolActions';

export interface FetchOptions {
  readonly timeoutMs?: number;
  readonly maxBytes?: number;
  readonly signal?: AbortSignal;
}

export const FETCH_TIMEOUT_MS = 30_000;
export const FETCH_MAX_BYTES = 512_000;
const FETCH_MAX_CHARS = 100_000;
// Media types whose bodies are text even though they are not text/*.
const TEXT_TYPES = /^text\/|[/+](json|xml|javascript|ecmascript|yaml|x-yaml|toml|csv|x-sh|markdown|graphql)(;|$)/i;

export async function fetchTextAction(url: string, options: FetchOptions = {}): Promise<ActionResult> {
  const timeoutMs = options.timeoutMs ?? FETCH_TIMEOUT_MS;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  try {
    const response = await fetch(url, { redirect: 'manual', signal, headers: { accept: 'text/*, application/json;q=0.9, */*;q=0.1' } });
    const status = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      await response.body?.cancel();
      const target = new URL(location, url).href;
      return { ok: true, text: `${status}: ${url} redirects to ${target}. It was not followed: call garuda_fetch with that URL to fetch it, so that the hooks check it too.`, result: { status: response.status, location: target } };
    }
    const type = response.headers.get('content-type') ?? '';
    if (type && !TEXT_TYPES.test(type)) {
      await response.body?.cancel();
      return { ok: true, text: `${status}: ${url} is ${type}, not text: not shown.`, result: { status: response.status, contentType: type } };
    }
    const body = await readCapped(response, options.maxBytes ?? FETCH_MAX_BYTES);
    const cut = body.truncated ? ` (cut at ${body.bytes.length} bytes)` : '';
    const text = cleanText(new TextDecoder(charsetOf(type)).decode(body.bytes), FETCH_MAX_CHARS);
    return {
      ok: true,
      text: `${status} · ${type || 'no content type'} · ${body.bytes.length} bytes${cut}\n\n${text}`,
      result: { status: response.status, contentType: type, bytes: body.bytes.length, truncated: body.truncated },
    };
  } catch (error) {
    if (options.signal?.aborted) return { ok: false, text: `Fetching ${url} was cancelled.` };
    if (timeout.aborted) return { ok: false, text: `Fetching ${url} timed out after ${timeoutMs} ms.` };
    const cause = (error as Error & { cause?: Error }).cause;
    return { ok: false, text: `Fetching ${url} failed: ${cause?.message ?? (error as Error).message}` };
  }
}

/** Reads at most `max` bytes and stops the download there. */
async function readCapped(response: Response, max: number): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body?.getReader();
  while (reader) {
    const { done, value } = await reader.read();
    if (done) return { bytes: concat(chunks, size), truncated: false };
    const room = max - size;
    chunks.push(value.subarray(0, room));
    size += Math.min(value.length, room);
    if (size >= max) {
      // A body of exactly `max` bytes is whole: only more data means it was cut.
      const more = value.length > room || !(await reader.read()).done;
      await reader.cancel();
      return { bytes: concat(chunks, size), truncated: more };
    }
  }
  return { bytes: new Uint8Array(), truncated: false };
}

function concat(chunks: readonly Uint8Array[], size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return bytes;
}

/** The declared charset when TextDecoder knows it, else UTF-8. */
function charsetOf(type: string): string {
  const declared = /charset=["']?([\w-]+)/i.exec(type)?.[1];
  if (!declared) return 'utf-8';
  try {
    return new TextDecoder(declared).encoding;
  } catch {
    return 'utf-8';
  }
}
