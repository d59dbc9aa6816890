#include "core/records/recordmapping.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "core/base/inputerror.h"
#include "core/base/sha256.h"

namespace reach {

namespace {

std::string normalized(const std::string& name) {
    std::string out;
    for (char c : name) {
        if (std::isalnum(static_cast<unsigned char>(c)))
            out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return out;
}

bool isTimeField(const std::string& field) {
    return field == "candidate_time" || field.starts_with("baseline_");
}

}  // namespace

std::string shapeKey(const std::vector<std::string>& columns) {
    const std::set<std::string> sorted(columns.begin(), columns.end());
    std::string joined;
    // Length-prefixed, so no name can pass for two ("a\nb" is not the columns a and b).
    for (const std::string& c : sorted)
        joined += std::to_string(c.size()) + ':' + c;
    return Sha256::hex(joined);
}

ColumnMapping guessMapping(const std::vector<std::string>& columns) {
    ColumnMapping mapping;
    std::set<std::string> used;
    std::string unit;
    // Exact names first, so "speedup" is not taken by a looser match of another field.
    for (const bool withUnit : {false, true}) {
        for (const std::string& field : ColumnMapping::knownFields()) {
            if (mapping.fields.count(field) || (withUnit && !isTimeField(field)))
                continue;
            for (const std::string& column : columns) {
                if (used.count(column))
                    continue;
                const std::string c = normalized(column), f = normalized(field);
                std::string suffix;
                if (withUnit && c.starts_with(f))
                    suffix = c.substr(f.size());
                const bool unitMatch =
                    suffix == "us" || suffix == "ms" || suffix == "s" || suffix == "ns";
                if (withUnit ? !unitMatch : c != f)
                    continue;
                mapping.fields[field] = column;
                used.insert(column);
                // One unit for every time column (ColumnMapping has one); the first one named.
                if (unitMatch && unit.empty())
                    unit = suffix;
                break;
            }
        }
    }
    if (!unit.empty())
        mapping.timeUnit = unit;
    return mapping;
}

MappingPreview previewMapping(const std::string& path, const ColumnMapping& mapping,
                              std::size_t rows) {
    std::vector<EvalRecord> records = importMapped(path, mapping);
    if (records.empty())
        throw InputError(path, "rows", "expected at least one record after the header");
    MappingPreview preview;
    preview.records = records.size();
    StatsOptions options;
    options.intervals = false;  // the preview shows counts and the median, no intervals
    preview.stats = computeGroupedStats(records, GroupBy::None, options).front();
    records.resize(std::min(rows, records.size()));
    preview.firstRecords = std::move(records);
    return preview;
}

}  // namespace reach
