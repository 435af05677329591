// SPDX-License-Identifier: MIT
// Emscripten gives a program a fixed environment of its own, not node's: GoogleTest's sharding variables
// (GTEST_TOTAL_SHARDS, GTEST_SHARD_INDEX, which ctest sets per shard: tests/CMakeLists.txt) are copied in.
Module["preRun"] = (Module["preRun"] || []).concat(() => {
  for (const name of ["GTEST_TOTAL_SHARDS", "GTEST_SHARD_INDEX"]) {
    if (process.env[name] !== undefined) ENV[name] = process.env[name];
  }
});
