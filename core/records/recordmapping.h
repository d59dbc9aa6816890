#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/records/evalrecord.h"
#include "core/records/recordimportgeneric.h"
#include "core/records/recordstats.h"

namespace reach {

// What the GUI's mapping dialog needs beside importMapped, kept here so that it is tested without
// widgets and so that the dialog only shows what core computes.

// A file's shape: the SHA-256 of its sorted, distinct column names. Two exports
// of the same tool have the same shape whatever their column order or row count, so a mapping
// chosen once is offered again for the next one.
std::string shapeKey(const std::vector<std::string>& columns);

// A first mapping from the column names alone: a column whose name equals a field's name when
// case, '_', '-' and spaces are ignored ("Speedup", "candidate-time"), or a time field's name
// with a unit after it ("candidate_time_ms", which also sets the time unit). Each column is used
// for one field at most; fields without such a column stay unmapped. Not validated: the user
// sees what is missing.
ColumnMapping guessMapping(const std::vector<std::string>& columns);

// What a mapping reads from a file, for a preview before anything is imported: the file read
// with importMapped (all or nothing: it throws InputError naming file, place and what was
// expected) and summarized with computeGroupedStats, as `reach-cli speedups --map` does.
struct MappingPreview {
    std::vector<EvalRecord> firstRecords;  // at most `rows`, in file order
    std::size_t records = 0;               // every record the file gives
    RecordStats stats;                     // of all of them (harness basis, no intervals)
};
MappingPreview previewMapping(const std::string& path, const ColumnMapping& mapping,
                              std::size_t rows = 10);

}  // namespace reach
