#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/records/evalrecord.h"

namespace reach {

// Which column (CSV header) or key (JSON object) holds each record field, for datasets in other
// shapes (leaderboards, archives). Saved in the project as a named preset.
struct ColumnMapping {
    std::string name;                           // preset name
    std::map<std::string, std::string> fields;  // record field -> column, see knownFields()
    std::string timeUnit = "us";                // unit of the time columns: us, ms or s

    // problem, problem_name, level, suite, category, dtype, model, backend, sample, compiled,
    // correct, candidate_time, baseline_time, baseline_eager, baseline_compile, speedup,
    // artifact, hardware, date, verification
    static const std::vector<std::string>& knownFields();

    // Checks the mapping itself: known fields, a problem column, and a speedup column or
    // candidate and baseline times. Throws InputError(source, "mapping", ...).
    void validate(const std::string& source) const;

    nlohmann::json toJson() const;
    static ColumnMapping fromJson(const nlohmann::json& j, const std::string& source);
    // "field=column" as given on the command line (--map speedup=x).
    void addFromArgument(const std::string& argument, const std::string& source);
};

// Reads a CSV file (header row, RFC 4180 quoting) or a JSON array of objects (or an object with
// one array of objects) with the mapping. All or nothing: a bad cell throws InputError naming the
// file, "line N" (CSV) or "record N" (JSON, 1-based), and the column.
std::vector<EvalRecord> importMapped(const std::string& path, const ColumnMapping& mapping);

// The columns a mapping can name, read as importMapped reads them: the CSV header in its order,
// or the keys of the JSON list's objects (each object's in name order, as the JSON reader keeps
// them; keys new in a later object after). Throws InputError when the file is neither.
std::vector<std::string> mappableColumns(const std::string& path);

// CSV rows as cells, with the 1-based line each row starts on (quoted cells may span lines).
struct CsvRow {
    int64_t line = 0;
    std::vector<std::string> cells;
};
std::vector<CsvRow> parseCsv(const std::string& text, const std::string& source);

}  // namespace reach
