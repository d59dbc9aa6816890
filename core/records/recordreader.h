#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/records/evalrecord.h"
#include "core/records/recordimportgeneric.h"
#include "core/records/recordimportkernelbench.h"
#include "core/records/recordimportverify.h"

namespace reach {

// How to read a records file, as the CLI and the GUI's import dialog both ask for it.
struct RecordReadOptions {
    std::optional<ColumnMapping> mapping;  // set: the file is a CSV/JSON list read with it
    KernelBenchImportOptions kernelBench;  // used for KernelBench run results
    VerifierImportOptions verifier;        // used for reach-verify results
};

// "reach-jsonl", "kernelbench", "mapped", "reach-verify", or "" when the content does not say.
// Detected from the content (and ".jsonl"), never from the name alone.
std::string detectRecordFormat(const std::string& path, const RecordReadOptions& options);

// Reads one file with the importer its format needs; a directory reads every .json/.jsonl/.csv
// file in it (sorted by name, e.g. a folder of reach-verify outputs) as one all-or-nothing set.
// Throws InputError naming the file when the format cannot be told or the importer needs something
// the options lack (baseline files for KernelBench results, a mapping for other lists).
std::vector<EvalRecord> readRecords(const std::string& path, const RecordReadOptions& options);

}  // namespace reach
