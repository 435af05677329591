// SPDX-License-Identifier: MIT
// A small static file server for dist/ on the loopback interface (scripts/run.sh, the browser tests and
// scripts/perf-web.mjs). It serves .wasm as application/wasm, which WebAssembly.instantiateStreaming needs,
// and sends the headers a static page cannot set itself (frame-ancestors, docs/web.md "Security").
// Why not a server from npm, and what this one refuses: docs/web.md, "Local server".
//   node scripts/serve.mjs [DIR] [PORT]      (PORT 0 = any free port; prints the URL)
import { constants } from "node:fs";
import { open, realpath } from "node:fs/promises";
import { createServer } from "node:http";
import { extname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { pipeline } from "node:stream/promises";
import { fileURLToPath } from "node:url";

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".wasm": "application/wasm",
  ".json": "application/json",
  ".png": "image/png",
  ".svg": "image/svg+xml",
  ".ts": "text/plain; charset=utf-8",
};

/** The only methods a static folder answers; anything else is 405 with this Allow header. */
const METHODS = "GET, HEAD";

/**
 * Headers a <meta> Content-Security-Policy cannot carry (browsers ignore frame-ancestors there), by file:
 * embed.html is made to be framed by any site; every other document may not be framed at all (docs/web.md).
 */
export function frameHeaders(file) {
  return file.endsWith(`${sep}embed.html`) ? {} : { "Content-Security-Policy": "frame-ancestors 'none'", "X-Frame-Options": "DENY" };
}

/** An HTTP status with no body worth more than its reason. */
class Refusal extends Error {
  constructor(status) {
    super(String(status));
    this.status = status;
  }
}

/** True when some segment of a relative path names a dotfile or dot-folder (".git", ".env", ".."). */
const hasDotSegment = (path) => path.split(/[\\/]/).some((segment) => segment.startsWith("."));

/**
 * The open regular file that `path` (a request path, already decoded) names under `real_root`, and its fstat.
 * The real path (symlinks resolved) must stay inside the root and hold no dot segment; a folder means its
 * index.html. The file is opened non-blocking, so a FIFO cannot stall a thread, and checked after opening,
 * so what is sent is what was checked.
 */
async function openInside(real_root, path) {
  if (path.includes("\0") || hasDotSegment(path)) throw new Refusal(404);
  let target = join(real_root, path);
  for (let depth = 0; depth < 2; ++depth) {
    const real = await realpath(target).catch(() => {
      throw new Refusal(404);
    });
    const inside = relative(real_root, real);
    if (inside.startsWith("..") || isAbsolute(inside)) throw new Refusal(403);
    if (hasDotSegment(inside)) throw new Refusal(404);
    const handle = await open(real, constants.O_RDONLY | constants.O_NONBLOCK).catch(() => {
      throw new Refusal(404);
    });
    const info = await handle.stat().catch(() => null);
    if (info?.isFile()) return { handle, info, real };
    await handle.close();
    if (!info?.isDirectory()) break;
    target = join(real, "index.html");
  }
  throw new Refusal(404);
}

/** Answers one request: every error becomes a status, or a cut connection once the body has started. */
async function answer(real_root, request, response) {
  if (request.method !== "GET" && request.method !== "HEAD") {
    response.writeHead(405, { Allow: METHODS, "Content-Type": "text/plain" }).end("method not allowed\n");
    return;
  }
  let path;
  try {
    path = decodeURIComponent(new URL(request.url, "http://localhost").pathname);
  } catch {
    response.writeHead(400, { "Content-Type": "text/plain" }).end("bad request\n");
    return;
  }
  let file;
  try {
    file = await openInside(real_root, path);
  } catch (error) {
    const status = error instanceof Refusal ? error.status : 500;
    response.writeHead(status, { "Content-Type": "text/plain" }).end(status === 403 ? "forbidden\n" : "not found\n");
    return;
  }
  const { handle, info, real } = file;
  try {
    // Revalidated on every use (a rebuild shows at once), but with a validator, as static hosts send: an
    // unchanged file is a 304, and Chromium keeps the compiled wasm for a cached response (docs/performance.md).
    const etag = `"${info.size.toString(16)}-${Math.trunc(info.mtimeMs).toString(16)}"`;
    const headers = { "Cache-Control": "no-cache", ETag: etag, "X-Content-Type-Options": "nosniff", ...frameHeaders(real) };
    if (request.headers["if-none-match"] === etag) {
      response.writeHead(304, headers).end();
      return;
    }
    response.writeHead(200, { ...headers, "Content-Type": TYPES[extname(real)] ?? "application/octet-stream", "Content-Length": info.size });
    if (request.method === "HEAD" || info.size === 0) {
      response.end();
      return;
    }
    const body = handle.createReadStream({ start: 0, end: info.size - 1, autoClose: false });
    await pipeline(body, response, { end: false });
    // A file that shrank after its fstat ends early: cut the connection rather than leave the client
    // waiting for bytes the Content-Length promised.
    if (body.bytesRead === info.size) response.end();
    else response.destroy();
  } catch {
    // A read error or a client that went away: pipeline has destroyed both streams; the fd closes below.
    response.destroy();
  } finally {
    await handle.close().catch(() => {});
  }
}

/** Starts serving `dir` on 127.0.0.1:`port`; resolves to {server, url}. */
export async function serve(dir, port = 0) {
  const real_root = await realpath(resolve(dir));
  // Long queries are fine: a link holds every changed setting, and the tests try hostile ones.
  const server = createServer({ maxHeaderSize: 1 << 20 }, (request, response) => {
    answer(real_root, request, response).catch(() => response.destroy());
  });
  return new Promise((done, fail) => {
    server.once("error", fail);
    server.listen(port, "127.0.0.1", () => done({ server, url: `http://127.0.0.1:${server.address().port}/` }));
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [dir = "dist", port = "8080"] = process.argv.slice(2);
  const { url } = await serve(dir, Number(port));
  console.log(`llm-memory: serving ${dir}/ at ${url}  (single offline file: ${url}llm-memory.html; Ctrl-C stops)`);
}
