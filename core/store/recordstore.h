#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/records/evalrecord.h"
#include "core/records/recordimportgeneric.h"

namespace reach {

class ProjectStore;

// An imported evaluation set as listed in a project.
struct RecordSetEntry {
    int64_t id = 0;
    std::string name;
    std::string source;              // file(s) it was imported from
    std::string sourceHash;          // SHA-256 of the first source file's bytes, empty when none
    std::string format;              // "reach-jsonl", "kernelbench", "mapped", "reach-verify"
    std::optional<int> denominator;  // the user's win-rate denominator, if set
    std::string importedAt;
    int64_t recordCount = 0;
};

// Stores the records as one new set, in one transaction (a failure leaves the project as it
// was). Returns the set's id.
int64_t importRecordSet(ProjectStore& store, const std::string& name, const std::string& source,
                        const std::string& format, const std::vector<EvalRecord>& records);
std::vector<RecordSetEntry> recordSets(const ProjectStore& store);  // in import order
std::vector<EvalRecord> loadRecordSet(const ProjectStore& store, int64_t setId);
bool removeRecordSet(ProjectStore& store, int64_t setId);
void setRecordSetDenominator(ProjectStore& store, int64_t setId, std::optional<int> denominator);

// Column-mapping presets, by name (saving a name again replaces it).
void saveMappingPreset(ProjectStore& store, const ColumnMapping& mapping);
std::vector<ColumnMapping> mappingPresets(const ProjectStore& store);  // by name

}  // namespace reach
