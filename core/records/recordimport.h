#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/records/evalrecord.h"

namespace reach {

// Reach's own evaluation-record format: JSON Lines, one record per line (docs/records.md).
// Reading is all or nothing: the first bad line throws InputError naming the file, "line N" and
// the key, and no record of the file is returned.
std::vector<EvalRecord> readReachJsonl(const std::string& path);
std::vector<EvalRecord> parseReachJsonl(std::istream& in, const std::string& sourceName);

// One line's object <-> record. recordFromJson validates types and the cross-field rules and
// computes the speedup from the times when the object gives none.
EvalRecord recordFromJson(const nlohmann::json& object, const std::string& file, int64_t line);
nlohmann::json recordToJson(const EvalRecord& record);
void writeReachJsonl(std::ostream& out, const std::vector<EvalRecord>& records);

// The rules every importer applies before a record leaves it: correct implies compiled, times
// and speedup positive, speedup computed from the effective baseline when absent. Throws
// InputError(file, place, ...) naming the offending field.
void finishRecord(EvalRecord& record, const std::string& file, const std::string& place);

}  // namespace reach
