/**
 * Fetching a page for WebFetch, as Claude Code 2.1.328 does it (the `web-fetch` recordings): the
 * URL upgraded from `http:` to `https:`, redirects on the same host followed and those to another
 * host handed back to the model, HTML converted to markdown (turndown, the converter whose output
 * Claude Code's matches), other text as it is, and answers cached for 15 minutes per URL on the
 * worker. Hosts without a dot (`localhost`) and link-local addresses (the cloud metadata service,
 * `169.254.0.0/16`, `fe80::/10`) are refused: a model's fetch must not reach a worker's own
 * credentials.
 */
import { isIP } from 'node:net';
import TurndownService from 'turndown';

/** Bytes of a response body read at most (10 MiB); the rest is not fetched. */
export const MAX_PAGE_BYTES = 10 * 1024 * 1024;
/** Redirects on the same host followed at most. */
export const MAX_REDIRECTS = 10;
/** How long a fetched page is reused for the same URL (ms): Claude Code's 15 minutes. */
export const PAGE_CACHE_MS = 15 * 60 * 1000;
/** Pages kept in the cache at most. */
const PAGE_CACHE_ENTRIES = 64;

/** A page as WebFetch uses it. */
export type FetchedPage =
  | {
      kind: 'page';
      /** The URL the content came from (after same-host redirects). */
      url: string;
      code: number;
      codeText: string;
      /** Bytes of the body. */
      bytes: number;
      contentType: string;
      /** Markdown of an HTML page, else the body's text. */
      text: string;
    }
  /** An HTTP error status: the body is not read. */
  | { kind: 'status'; url: string; code: number; codeText: string }
  /** A redirect to another host, for the model to follow with a new call. */
  | { kind: 'redirect'; url: string; location: string; code: number; codeText: string };

/** A URL WebFetch will not fetch, with the reason the model is told. */
export class UnfetchableUrlError extends Error {
  override readonly name = 'UnfetchableUrlError';
}

/**
 * The URL WebFetch fetches for `raw`: `http:` upgraded to `https:`.
 * @throws UnfetchableUrlError for another protocol (`Unsupported protocol ftp:`, Claude Code's
 *   words), a host without a dot, a link-local address, credentials in the URL
 */
export function fetchableUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UnfetchableUrlError(`Invalid URL: ${raw}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UnfetchableUrlError(`Unsupported protocol ${url.protocol}`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new UnfetchableUrlError('URLs with a user name or password are not fetched; use an authenticated tool.');
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) === 0 && !host.includes('.')) {
    throw new UnfetchableUrlError(
      `${host} is not a public host name (it has no dot); for a local server, use curl via Bash instead.`,
    );
  }
  if (isLinkLocal(host)) {
    throw new UnfetchableUrlError(
      `${host} is a link-local address (such as a cloud metadata service); it is not fetched.`,
    );
  }
  if (url.protocol === 'http:') url.protocol = 'https:';
  return url;
}

function isLinkLocal(host: string): boolean {
  if (isIP(host) === 4) return host.startsWith('169.254.');
  if (isIP(host) === 6) return /^fe[89ab][0-9a-f]:/i.test(host);
  return false;
}

/** Same host, counting `www.` as the same (Claude Code follows such redirects). */
function sameHost(a: URL, b: URL): boolean {
  const strip = (h: string): string => h.replace(/^www\./i, '');
  return strip(a.hostname) === strip(b.hostname) && a.port === b.port;
}

const turndown = new TurndownService();
turndown.remove(['script', 'style', 'noscript']);

/** Markdown of an HTML document (turndown's defaults: setext headings, `**` for bold). */
export function htmlToMarkdown(html: string): string {
  return turndown.turndown(html);
}

function isHtml(contentType: string): boolean {
  return /\btext\/html\b|\bapplication\/xhtml\+xml\b/i.test(contentType);
}

function isText(contentType: string): boolean {
  return (
    contentType === '' ||
    /^text\//i.test(contentType) ||
    /\b(json|xml|javascript|ecmascript|yaml|toml|csv|markdown)\b/i.test(contentType)
  );
}

async function readCapped(res: Response, signal: AbortSignal): Promise<Buffer> {
  const reader = res.body?.getReader();
  if (!reader) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for (;;) {
      if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('aborted');
      const { done, value } = await reader.read();
      if (done) break;
      const left = MAX_PAGE_BYTES - total;
      chunks.push(Buffer.from(value.subarray(0, left)));
      total += Math.min(value.length, left);
      if (total >= MAX_PAGE_BYTES) break;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks);
}

function charsetOf(contentType: string): string {
  const m = /charset=["']?([\w-]+)/i.exec(contentType);
  return m?.[1]?.toLowerCase() ?? 'utf-8';
}

function decode(body: Buffer, contentType: string): string {
  try {
    return new TextDecoder(charsetOf(contentType)).decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

const cache = new Map<string, { at: number; page: FetchedPage }>();

/** Empties the page cache (tests). */
export function clearPageCache(): void {
  cache.clear();
}

/**
 * Fetches `url` (already checked by {@link fetchableUrl}), from the cache when it was fetched in
 * the last 15 minutes.
 * @throws UnfetchableUrlError for a body that is not text (an image, a PDF, an archive)
 * @throws the network's errors (unreachable host, TLS) as they are
 */
export async function fetchPage(url: URL, opts: { signal: AbortSignal; now?: number }): Promise<FetchedPage> {
  const now = opts.now ?? Date.now();
  const key = url.href;
  const hit = cache.get(key);
  if (hit && now - hit.at < PAGE_CACHE_MS) return hit.page;
  let current = url;
  for (let hop = 0; ; hop++) {
    const res = await fetch(current, {
      redirect: 'manual',
      signal: opts.signal,
      headers: { accept: 'text/markdown, text/html;q=0.9, */*;q=0.8', 'user-agent': 'agent-runner WebFetch' },
    });
    const codeText = res.statusText;
    if (res.status >= 300 && res.status < 400 && res.headers.get('location')) {
      await res.body?.cancel().catch(() => undefined);
      const next = new URL(res.headers.get('location') ?? '', current);
      if (!sameHost(current, next)) {
        return { kind: 'redirect', url: current.href, location: next.href, code: res.status, codeText };
      }
      if (hop >= MAX_REDIRECTS) throw new UnfetchableUrlError(`Too many redirects (more than ${MAX_REDIRECTS})`);
      current = next;
      continue;
    }
    if (res.status >= 400) {
      await res.body?.cancel().catch(() => undefined);
      return { kind: 'status', url: current.href, code: res.status, codeText };
    }
    const contentType = res.headers.get('content-type') ?? '';
    if (!isText(contentType)) {
      await res.body?.cancel().catch(() => undefined);
      throw new UnfetchableUrlError(
        `The page's content type is ${contentType}, not text; WebFetch reads text and HTML pages.`,
      );
    }
    const body = await readCapped(res, opts.signal);
    const raw = decode(body, contentType);
    const page: FetchedPage = {
      kind: 'page',
      url: current.href,
      code: res.status,
      codeText,
      bytes: body.length,
      contentType,
      text: isHtml(contentType) ? htmlToMarkdown(raw) : raw,
    };
    cache.set(key, { at: now, page });
    while (cache.size > PAGE_CACHE_ENTRIES) cache.delete(cache.keys().next().value as string);
    return page;
  }
}
