// SPDX-License-Identifier: MIT
// The CLI's text output for --log: the log's figures beside the estimate's, item by item.
#pragma once

#include "llm_memory/log.hpp"

namespace llm_memory::cli {

/// One row per figure the log printed: its line, the log's value, ours, the signed difference (ours - log) in the
/// log's unit, then the item that diverges most.
void print_reconciliation(const log_read& log, const reconciliation& rec);

}  // namespace llm_memory::cli
