#include "core/records/recordimportgeneric.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/base/inputerror.h"
#include "core/base/jsonparse.h"
#include "core/records/recordimport.h"

namespace reach {

namespace {

using nlohmann::json;

std::string lower(std::string s) {
    for (char& c : s)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

std::string trim(const std::string& s) {
    const auto b = s.find_first_not_of(" \t");
    if (b == std::string::npos)
        return {};
    const auto e = s.find_last_not_of(" \t");
    return s.substr(b, e - b + 1);
}

// A cell as text, whichever format it came from; nullopt when empty or null.
using Cell = std::optional<std::string>;

double timeScale(const std::string& unit) {
    if (unit == "us")
        return 1.0;
    if (unit == "ms")
        return 1000.0;
    if (unit == "s")
        return 1e6;
    if (unit == "ns")
        return 1e-3;
    return 0;
}

struct RowReader {
    const std::string& file;
    std::string place;  // "line N" or "record N"
    const ColumnMapping& mapping;
    std::function<Cell(const std::string& column)> get;

    std::string where(const std::string& column) const {
        return place + ", column \"" + column + "\"";
    }
    Cell cell(const std::string& field) const {
        auto it = mapping.fields.find(field);
        if (it == mapping.fields.end())
            return std::nullopt;
        Cell c = get(it->second);
        if (c && trim(*c).empty())
            return std::nullopt;
        return c ? Cell(trim(*c)) : c;
    }
    std::string text(const std::string& field) const { return cell(field).value_or(""); }
    std::optional<double> number(const std::string& field) const {
        Cell c = cell(field);
        if (!c)
            return std::nullopt;
        const std::string& s = *c;
        double v = 0;
        auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        std::string rest(end, s.data() + s.size());
        if (ec != std::errc() || !(rest.empty() || rest == "x" || rest == "X")) {
            throw InputError(file, where(mapping.fields.at(field)),
                             "expected a number for " + field + ", got \"" + s + "\"");
        }
        return v;
    }
    std::optional<bool> boolean(const std::string& field) const {
        Cell c = cell(field);
        if (!c)
            return std::nullopt;
        const std::string s = lower(*c);
        if (s == "true" || s == "1" || s == "yes" || s == "pass" || s == "passed" || s == "y")
            return true;
        if (s == "false" || s == "0" || s == "no" || s == "fail" || s == "failed" || s == "n")
            return false;
        throw InputError(
            file, where(mapping.fields.at(field)),
            "expected true/false, 1/0, yes/no or pass/fail for " + field + ", got \"" + *c + "\"");
    }
};

EvalRecord rowToRecord(const RowReader& row, int64_t line) {
    const double scale = timeScale(row.mapping.timeUnit);
    EvalRecord r;
    r.problemId = row.text("problem");
    r.problemName = row.text("problem_name");
    if (r.problemId.empty() && r.problemName.empty()) {
        throw InputError(row.file, row.where(row.mapping.fields.at("problem")),
                         "expected a problem, the cell is empty");
    }
    if (auto level = row.number("level")) {
        // The range before the cast: casting 5.6e30 to int is undefined (found by fuzzing).
        if (!(*level >= 0 && *level <= 1e9) || *level != static_cast<int>(*level)) {
            throw InputError(row.file, row.where(row.mapping.fields.at("level")),
                             "expected a non-negative integer level");
        }
        r.level = static_cast<int>(*level);
    }
    r.suite = row.text("suite");
    r.category = row.text("category");
    r.dtype = row.text("dtype");
    r.model = row.text("model");
    r.backend = row.text("backend");
    r.sampleId = row.text("sample");
    const auto correct = row.boolean("correct");
    const auto compiled = row.boolean("compiled");
    // A leaderboard usually lists only kernels that passed: no correctness column means correct.
    r.correct = correct.value_or(true);
    r.compiled = compiled.value_or(r.correct);
    // A harness writes -1 for "no time" (KernelBench's runtime of a failed sample): absent. Any
    // other value must be a positive number (core/records/recordimport.cpp checks its bounds): a
    // 0 or a -2 taken as "none" hid a broken row (issue 37).
    auto positive = [&](const char* field, double scale) -> std::optional<double> {
        const auto v = row.number(field);
        if (!v || *v == -1.0)
            return std::nullopt;
        if (!(*v > 0))
            throw InputError(row.file, row.where(row.mapping.fields.at(field)),
                             "expected a positive number, or -1 or an empty cell for none");
        return *v * scale;
    };
    r.candidateTimeUs = positive("candidate_time", scale);
    r.baselineRecordedUs = positive("baseline_time", scale);
    r.baselineEagerUs = positive("baseline_eager", scale);
    r.baselineCompileUs = positive("baseline_compile", scale);
    r.speedup = positive("speedup", 1.0);
    r.artifactPath = row.text("artifact");
    r.hardware = row.text("hardware");
    r.date = row.text("date");
    if (auto v = row.cell("verification")) {
        auto parsed = verificationFromString(lower(*v));
        if (!parsed) {
            throw InputError(row.file, row.where(row.mapping.fields.at("verification")),
                             "expected unverified, passed or failed");
        }
        r.verification = *parsed;
    }
    r.harness =
        row.mapping.name.empty() ? "mapped import" : "mapped import (" + row.mapping.name + ")";
    r.source = row.file;
    r.sourceLine = line;
    finishRecord(r, row.file, row.place);
    return r;
}

std::string readAll(const std::string& path) {
    return readJsonFile(path, "expected a CSV file or a JSON list");  // same size limit
}

std::string columnsList(const std::vector<std::string>& cols) {
    std::string s;
    for (size_t i = 0; i < cols.size() && i < 20; ++i)
        s += (i ? ", " : "") + cols[i];
    if (cols.size() > 20)
        s += ", ...";
    return s;
}

}  // namespace

const std::vector<std::string>& ColumnMapping::knownFields() {
    static const std::vector<std::string> kFields = {
        "problem", "problem_name",   "level",         "suite",          "category",
        "dtype",   "model",          "backend",       "sample",         "compiled",
        "correct", "candidate_time", "baseline_time", "baseline_eager", "baseline_compile",
        "speedup", "artifact",       "hardware",      "date",           "verification"};
    return kFields;
}

void ColumnMapping::validate(const std::string& source) const {
    const auto& known = knownFields();
    for (const auto& [field, column] : fields) {
        if (std::find(known.begin(), known.end(), field) == known.end()) {
            throw InputError(source, "mapping \"" + field + "=" + column + "\"",
                             "unknown field; expected one of problem, model, speedup, "
                             "candidate_time, baseline_time, correct, ...");
        }
    }
    if (!fields.count("problem")) {
        throw InputError(source, "mapping",
                         "expected problem=COLUMN (which column is the problem)");
    }
    const bool times = fields.count("candidate_time") &&
                       (fields.count("baseline_time") || fields.count("baseline_eager") ||
                        fields.count("baseline_compile"));
    if (!fields.count("speedup") && !times) {
        throw InputError(
            source, "mapping",
            "expected speedup=COLUMN or candidate_time=COLUMN with baseline_time=COLUMN");
    }
    if (timeScale(timeUnit) == 0) {
        throw InputError(source, "mapping, time_unit", "expected us, ms, s or ns, got " + timeUnit);
    }
}

json ColumnMapping::toJson() const {
    json f = json::object();
    for (const auto& [k, v] : fields)
        f[k] = v;
    return json{{"name", name}, {"fields", f}, {"time_unit", timeUnit}};
}

ColumnMapping ColumnMapping::fromJson(const json& j, const std::string& source) {
    if (!j.is_object() || !j.contains("fields") || !j["fields"].is_object()) {
        throw InputError(source, "key \"fields\"", "expected an object field -> column");
    }
    ColumnMapping m;
    if (j.contains("name") && j["name"].is_string())
        m.name = j["name"].get<std::string>();
    if (j.contains("time_unit") && j["time_unit"].is_string()) {
        m.timeUnit = j["time_unit"].get<std::string>();
    }
    for (const auto& [k, v] : j["fields"].items()) {
        if (!v.is_string())
            throw InputError(source, "key \"fields." + k + "\"", "expected a string");
        m.fields[k] = v.get<std::string>();
    }
    m.validate(source);
    return m;
}

void ColumnMapping::addFromArgument(const std::string& argument, const std::string& source) {
    const auto eq = argument.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == argument.size()) {
        throw InputError(source, "--map " + argument, "expected FIELD=COLUMN");
    }
    const std::string field = argument.substr(0, eq);
    const std::string column = argument.substr(eq + 1);
    if (field == "time_unit") {
        timeUnit = column;
    } else {
        const auto& known = knownFields();
        if (std::find(known.begin(), known.end(), field) == known.end()) {
            throw InputError(
                source, "--map " + argument,
                "unknown field \"" + field +
                    "\"; expected one of problem, model, "
                    "backend, category, level, speedup, candidate_time, baseline_time, "
                    "correct, compiled, ...");
        }
        fields[field] = column;
    }
}

std::vector<CsvRow> parseCsv(const std::string& text, const std::string& source) {
    std::vector<CsvRow> rows;
    CsvRow row;
    std::string cell;
    int64_t line = 1;
    row.line = 1;
    bool quoted = false, cellStarted = false, any = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quoted) {
            if (c == '"') {
                if (i + 1 < text.size() && text[i + 1] == '"') {
                    cell += '"';
                    ++i;
                } else {
                    quoted = false;
                }
            } else {
                if (c == '\n')
                    ++line;
                cell += c;
            }
            continue;
        }
        if (c == '"' && !cellStarted) {
            quoted = cellStarted = any = true;
        } else if (c == ',') {
            row.cells.push_back(cell);
            cell.clear();
            cellStarted = false;
            any = true;
        } else if (c == '\n' || c == '\r') {
            if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n')
                ++i;
            if (any || !cell.empty()) {
                row.cells.push_back(cell);
                rows.push_back(std::move(row));
            }
            row = CsvRow{};
            cell.clear();
            cellStarted = any = false;
            ++line;
            row.line = line;
        } else {
            cell += c;
            cellStarted = any = true;
        }
    }
    if (quoted)
        throw InputError(source, "line " + std::to_string(row.line), "unterminated quote");
    if (any || !cell.empty()) {
        row.cells.push_back(cell);
        rows.push_back(std::move(row));
    }
    return rows;
}

namespace {

// A mappable file as read: its columns and how to reach its rows. One reading for the import and
// for the GUI's mapping dialog, so the columns the dialog offers are the ones the import accepts.
struct MappedTable {
    json doc;                            // JSON: the document
    std::optional<std::string> listKey;  // JSON: the key of the list in a top-level object
    std::vector<CsvRow> rows;            // CSV: every row, the header first
    std::vector<std::string> columns;    // the CSV header or the keys (mappableColumns)
    bool isJson = false;

    const json& list() const { return listKey ? doc.at(*listKey) : doc; }
};

MappedTable readMappedTable(const std::string& path) {
    const std::string text = readAll(path);
    const auto first = text.find_first_not_of(" \t\r\n\xEF\xBB\xBF");
    MappedTable table;
    const bool startsJson =
        first != std::string::npos && (text[first] == '[' || text[first] == '{');
    // A picture or an archive renamed .json or .csv is no table: named by what it is, it never
    // reaches the column-mapping dialog as a "header" of binary bytes (issue 40).
    const std::string_view name(path);
    if (!startsJson && (name.ends_with(".json") || name.ends_with(".JSON")))
        throw InputError(path, "byte " + std::to_string(first == std::string::npos ? 0 : first),
                         "a JSON list or object (this file is not JSON)");
    if (const auto nul = text.find('\0'); nul != std::string::npos && !startsJson)
        throw InputError(path, "byte " + std::to_string(nul),
                         "text (a CSV table); this file is binary");
    if (startsJson) {
        table.isJson = true;
        table.doc = parseJson(text, path, "expected a JSON list");
        if (table.doc.is_object()) {
            for (const auto& [k, v] : table.doc.items()) {
                if (v.is_array() && !v.empty() && v[0].is_object()) {
                    table.listKey = k;
                    break;
                }
            }
            if (!table.listKey)
                throw InputError(path, "top level", "expected an array of objects");
        }
        if (!table.list().is_array())
            throw InputError(path, "top level", "expected an array of objects");
        std::set<std::string> seen;
        for (const json& o : table.list())
            if (o.is_object())
                for (const auto& [k, v] : o.items())
                    if (seen.insert(k).second)
                        table.columns.push_back(k);
        return table;
    }
    table.rows = parseCsv(text, path);
    if (table.rows.empty())
        throw InputError(path, "line 1", "expected a header row");
    for (const auto& h : table.rows[0].cells)
        table.columns.push_back(trim(h));
    if (!table.columns.empty() && table.columns[0].starts_with("\xEF\xBB\xBF"))
        table.columns[0] = table.columns[0].substr(3);
    return table;
}

std::vector<EvalRecord> readJsonRows(const std::string& path, const MappedTable& table,
                                     const ColumnMapping& mapping) {
    const json& list = table.list();
    // A mapped key no record has is a misspelt mapping, as a missing CSV column is: read
    // as "absent in every row" it would give 0 winners of N and exit 0.
    const std::set<std::string> seen(table.columns.begin(), table.columns.end());
    for (const auto& [field, column] : mapping.fields)
        if (!list.empty() && !seen.count(column))
            throw InputError(path, "record 1",
                             "no key \"" + column + "\" for " + field +
                                 " in any record; keys: " + columnsList(table.columns));
    std::vector<EvalRecord> records;
    for (size_t i = 0; i < list.size(); ++i) {
        const json& o = list[i];
        const std::string place = "record " + std::to_string(i + 1);
        if (!o.is_object())
            throw InputError(path, place, "expected an object");
        RowReader row{path, place, mapping, [&](const std::string& column) -> Cell {
                          auto it = o.find(column);
                          if (it == o.end() || it->is_null())
                              return std::nullopt;
                          if (it->is_string())
                              return it->get<std::string>();
                          if (it->is_boolean())
                              return it->get<bool>() ? "true" : "false";
                          if (it->is_number())
                              return it->dump();
                          throw InputError(path, place + ", key \"" + column + "\"",
                                           "expected a string, number or boolean");
                      }};
        records.push_back(rowToRecord(row, static_cast<int64_t>(i + 1)));
    }
    return records;
}

std::vector<EvalRecord> readCsvRows(const std::string& path, const MappedTable& table,
                                    const ColumnMapping& mapping) {
    const std::vector<std::string>& header = table.columns;
    std::map<std::string, size_t> index;
    for (size_t i = 0; i < header.size(); ++i)
        index.emplace(header[i], i);
    for (const auto& [field, column] : mapping.fields) {
        if (!index.count(column)) {
            throw InputError(
                path, "line 1 (header)",
                "no column \"" + column + "\" for " + field + "; columns: " + columnsList(header));
        }
    }
    std::vector<EvalRecord> records;
    for (size_t r = 1; r < table.rows.size(); ++r) {
        const CsvRow& csv = table.rows[r];
        const std::string place = "line " + std::to_string(csv.line);
        if (csv.cells.size() != header.size()) {
            throw InputError(path, place,
                             "expected " + std::to_string(header.size()) + " cells, found " +
                                 std::to_string(csv.cells.size()));
        }
        RowReader row{path, place, mapping, [&](const std::string& column) -> Cell {
                          return csv.cells[index.at(column)];
                      }};
        records.push_back(rowToRecord(row, csv.line));
    }
    return records;
}

}  // namespace

std::vector<EvalRecord> importMapped(const std::string& path, const ColumnMapping& mapping) {
    mapping.validate(path);
    const MappedTable table = readMappedTable(path);
    return table.isJson ? readJsonRows(path, table, mapping) : readCsvRows(path, table, mapping);
}

std::vector<std::string> mappableColumns(const std::string& path) {
    return readMappedTable(path).columns;
}

}  // namespace reach
