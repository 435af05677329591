// SPDX-License-Identifier: MIT
// A tiny static file server for dist/ on the loopback interface (scripts/run.sh, the browser tests and
// scripts/perf-web.mjs). It serves .wasm as application/wasm, which WebAssembly.instantiateStreaming needs.
//   node scripts/serve.mjs [DIR] [PORT]      (PORT 0 = any free port; prints the URL)
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { createServer } from "node:http";
import { extname, join, normalize, resolve, sep } from "node:path";
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

/** Starts serving `dir` on 127.0.0.1:`port`; resolves to {server, url}. */
export function serve(dir, port = 0) {
  const root = resolve(dir);
  // Long queries are fine: a link holds every changed setting, and the tests try hostile ones.
  const server = createServer({ maxHeaderSize: 1 << 20 }, async (request, response) => {
    let file;
    try {
      file = normalize(join(root, decodeURIComponent(new URL(request.url, "http://localhost").pathname)));
    } catch {
      response.writeHead(400, { "Content-Type": "text/plain" }).end("bad request\n");
      return;
    }
    if (file !== root && !file.startsWith(root + sep)) {
      response.writeHead(403).end();
      return;
    }
    try {
      if ((await stat(file)).isDirectory()) file = join(file, "index.html");
      const info = await stat(file);
      // Revalidated on every use (a rebuild shows at once), but with a validator, as static hosts send: an
      // unchanged file is a 304, and Chromium keeps the compiled wasm for a cached response (docs/performance.md).
      const etag = `"${info.size.toString(16)}-${Math.trunc(info.mtimeMs).toString(16)}"`;
      const headers = { "Cache-Control": "no-cache", ETag: etag };
      if (request.headers["if-none-match"] === etag) {
        response.writeHead(304, headers).end();
        return;
      }
      response.writeHead(200, {
        ...headers,
        "Content-Type": TYPES[extname(file)] ?? "application/octet-stream",
        "Content-Length": info.size,
      });
      if (request.method === "HEAD") response.end();
      else createReadStream(file).pipe(response);
    } catch {
      response.writeHead(404, { "Content-Type": "text/plain" }).end("not found\n");
    }
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
