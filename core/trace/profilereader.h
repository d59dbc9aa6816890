#pragma once

#include <stop_token>
#include <string>

#include "core/base/progress.h"
#include "core/base/workload.h"
#include "core/trace/kinetoreader.h"

namespace reach {

// Reads one profile into a Workload. The format is detected from the content, never the name:
// gzip magic 1f 8b or '{' -> Kineto / PyTorch profiler Chrome trace (streamed, no DOM);
// "SQLite format 3" -> Nsight Systems `nsys export --type sqlite`.
// Throws InputError (file, byte offset or key, what was expected) on bad input and Cancelled
// when stop is requested.
Workload readProfile(const std::string& path, const ProgressFn& progress = {},
                     std::stop_token stop = {}, const KinetoOptions& kineto = {});

// "resnet50_inference.json.gz" -> "resnet50_inference"; strips .gz, .json, .pt.trace, .sqlite.
std::string workloadNameFromPath(const std::string& path);

}  // namespace reach
