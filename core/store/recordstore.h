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

// The one record key of a project: a record's row id (EvalRecord::storeId) when it was loaded
// from the project, else (suite, problem, model, backend, sample, source file). The latest
// matching row; nullopt when the project has none.
std::optional<int64_t> findStoredRecord(const ProjectStore& store, const EvalRecord& record);
// What `reach-cli verify --record KEY` names: "#ID" (the row id), or
// "problem[/model[/backend[/sample]]]" (problem id or name; an empty part matches anything).
bool recordMatchesKey(const EvalRecord& record, const std::string& key);
std::vector<EvalRecord> findStoredRecords(const ProjectStore& store, const std::string& key);
// Writes the record's verification status, reasons and roofline floor into row recordId.
void updateStoredVerification(ProjectStore& store, int64_t recordId, const EvalRecord& record);
void setRecordSetDenominator(ProjectStore& store, int64_t setId, std::optional<int> denominator);

// Column-mapping presets, by name (saving a name again replaces it).
void saveMappingPreset(ProjectStore& store, const ColumnMapping& mapping);
std::vector<ColumnMapping> mappingPresets(const ProjectStore& store);  // by name

}  // namespace reach
