import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/**
 * Verification of AWS Signature Version 4 (`Authorization: AWS4-HMAC-SHA256 Credential=…,
 * SignedHeaders=…, Signature=…`), as a Bedrock endpoint checks it: the fake model recomputes the
 * signature of a request from the secret key it was given and compares.
 * The algorithm: https://docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html
 * (for services other than S3 the path of the canonical request is URI-encoded a second time).
 */

/** Static AWS credentials the endpoint accepts. */
export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
}

/** The parts of an `Authorization: AWS4-HMAC-SHA256 …` header. */
export interface SigV4Authorization {
  accessKeyId: string;
  /** `YYYYMMDD` of the credential scope. */
  date: string;
  region: string;
  service: string;
  signedHeaders: string[];
  signature: string;
}

/** Parses an `AWS4-HMAC-SHA256` Authorization header; undefined when it is not one. */
export function parseSigV4Authorization(value: string | undefined): SigV4Authorization | undefined {
  const m =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(
      value ?? '',
    );
  if (!m) return undefined;
  return {
    accessKeyId: m[1] ?? '',
    date: m[2] ?? '',
    region: m[3] ?? '',
    service: m[4] ?? '',
    signedHeaders: (m[5] ?? '').split(';'),
    signature: m[6] ?? '',
  };
}

const sha256Hex = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string): Buffer => createHmac('sha256', key).update(data).digest();

/** RFC 3986 encoding, as SigV4 wants it (unreserved characters kept, everything else %XX upper case). */
function uriEncode(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function canonicalQuery(search: string): string {
  const params = [...new URLSearchParams(search)].map(([k, v]) => [uriEncode(k), uriEncode(v)] as const);
  params.sort((a, b) => (a[0] === b[0] ? (a[1] < b[1] ? -1 : 1) : a[0] < b[0] ? -1 : 1));
  return params.map(([k, v]) => `${k}=${v}`).join('&');
}

/** Outcome of {@link verifySigV4}: ok, or why not (an AWS-style message). */
export type SigV4Result = { ok: true; auth: SigV4Authorization } | { ok: false; message: string };

function headerValue(headers: IncomingHttpHeaders, name: string): string {
  const v = headers[name];
  return Array.isArray(v) ? v.join(',') : (v ?? '');
}

/**
 * The SigV4 signature (hex) of a request for a credential scope.
 *
 * @param url - the request's path and query as sent (e.g. `/model/x%3A0/invoke`)
 */
export function sigV4Signature(
  req: { method: string; url: string; headers: IncomingHttpHeaders; body: Buffer },
  scope: { date: string; region: string; service: string; signedHeaders: readonly string[] },
  secretAccessKey: string,
): string {
  const parsed = new URL(req.url, 'http://host');
  // Non-S3 services: the path as sent is URI-encoded once more (a `%3A` sent becomes `%253A`, a
  // raw `:` becomes `%3A`), as the AWS SDK's signer does with the request path.
  const canonicalUri = parsed.pathname
    .split('/')
    .map((seg) => uriEncode(seg))
    .join('/');
  const canonicalHeaders = scope.signedHeaders
    .map((h) => `${h}:${headerValue(req.headers, h).trim().replace(/\s+/g, ' ')}\n`)
    .join('');
  const payloadHash = headerValue(req.headers, 'x-amz-content-sha256') || sha256Hex(req.body);
  const canonicalRequest = [
    req.method.toUpperCase(),
    canonicalUri,
    canonicalQuery(parsed.search),
    canonicalHeaders,
    scope.signedHeaders.join(';'),
    payloadHash,
  ].join('\n');
  const credentialScope = `${scope.date}/${scope.region}/${scope.service}/aws4_request`;
  const stringToSign = [
    'AWS4-HMAC-SHA256',
    headerValue(req.headers, 'x-amz-date'),
    credentialScope,
    sha256Hex(canonicalRequest),
  ].join('\n');
  const kDate = hmac(`AWS4${secretAccessKey}`, scope.date);
  const kSigning = hmac(hmac(hmac(kDate, scope.region), scope.service), 'aws4_request');
  return createHmac('sha256', kSigning).update(stringToSign).digest('hex');
}

/**
 * Signs a request (for tests of a client of a SigV4 endpoint): returns the `authorization`,
 * `x-amz-date` and `x-amz-content-sha256` headers to add. Signs `host`, the `x-amz-*` headers and
 * any others named in `signedHeaders`.
 */
export function signSigV4(
  req: { method: string; url: string; headers: IncomingHttpHeaders; body: Buffer },
  opts: { credentials: AwsCredentials; region: string; service: string; now?: Date; signedHeaders?: string[] },
): Record<string, string> {
  const amzDate = (opts.now ?? new Date())
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
  const added = { 'x-amz-date': amzDate, 'x-amz-content-sha256': sha256Hex(req.body) };
  const headers = { ...req.headers, ...added };
  const signedHeaders = [
    ...new Set(['host', 'x-amz-content-sha256', 'x-amz-date', ...(opts.signedHeaders ?? [])]),
  ].sort();
  const date = amzDate.slice(0, 8);
  const signature = sigV4Signature(
    { ...req, headers },
    { date, region: opts.region, service: opts.service, signedHeaders },
    opts.credentials.secretAccessKey,
  );
  return {
    ...added,
    authorization:
      `AWS4-HMAC-SHA256 Credential=${opts.credentials.accessKeyId}/${date}/${opts.region}/${opts.service}/aws4_request, ` +
      `SignedHeaders=${signedHeaders.join(';')}, Signature=${signature}`,
  };
}

/**
 * Checks a request's SigV4 signature against `credentials`.
 *
 * @param url - the request's path and query as received (e.g. `/model/x%3A0/invoke`)
 * @param body - the raw body
 */
export function verifySigV4(
  method: string,
  url: string,
  headers: IncomingHttpHeaders,
  body: Buffer,
  credentials: AwsCredentials,
): SigV4Result {
  const auth = parseSigV4Authorization(typeof headers.authorization === 'string' ? headers.authorization : undefined);
  if (!auth) {
    return {
      ok: false,
      message: 'Authorization header requires AWS4-HMAC-SHA256 Credential, SignedHeaders and Signature.',
    };
  }
  if (auth.accessKeyId !== credentials.accessKeyId) {
    return { ok: false, message: 'The security token included in the request is invalid.' };
  }
  const amzDate = headerValue(headers, 'x-amz-date');
  if (!amzDate.startsWith(auth.date)) {
    return { ok: false, message: 'X-Amz-Date is missing or does not match the credential scope date.' };
  }
  const payloadHash = headerValue(headers, 'x-amz-content-sha256');
  if (payloadHash !== '' && payloadHash !== 'UNSIGNED-PAYLOAD' && payloadHash !== sha256Hex(body)) {
    return { ok: false, message: 'The provided x-amz-content-sha256 header does not match what was computed.' };
  }
  const expected = Buffer.from(
    sigV4Signature({ method, url, headers, body }, auth, credentials.secretAccessKey),
    'hex',
  );
  const given = Buffer.from(auth.signature, 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return {
      ok: false,
      message:
        'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method.',
    };
  }
  return { ok: true, auth };
}
