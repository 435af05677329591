// Emscripten 3.1.6 reads __dirname on node, which ES modules do not define; api.js hands node the wasm
// bytes itself (wasmBinary), so the glue never needs the directory.
var __dirname = "";
