#include "core/store/schemacheck.h"

#include <cctype>
#include <map>
#include <set>
#include <string>

#include "core/base/inputerror.h"
#include "core/store/schema.h"
#include "core/store/sqlitedb.h"

namespace reach {

namespace {

struct SchemaObject {
    std::string type;
    std::string name;
    std::string table;
    std::string sql;
    bool hasSql = false;
};

std::string lower(std::string s) {
    for (char& c : s)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// By name, as SQL compares names: without regard to case. Tables, views and indexes share one
// namespace; triggers have their own, so a trigger may bear a table's name.
std::map<std::string, SchemaObject> schemaOf(const SqliteDb& db) {
    std::map<std::string, SchemaObject> out;
    SqliteStatement st = db.prepare("SELECT type, name, tbl_name, sql FROM sqlite_master");
    while (st.step()) {
        SchemaObject o{st.columnText(0), st.columnText(1), st.columnText(2), st.columnText(3),
                       !st.columnIsNull(3)};
        const std::string key = (o.type == "trigger" ? "trigger " : "") + lower(o.name);
        out.emplace(key, std::move(o));
    }
    return out;
}

std::string placeOf(const SchemaObject& o) {
    return o.type + " " + o.name;
}

// The first difference between the file's objects and those of the reference, as an error.
void compare(const SqliteDb& db, const std::map<std::string, SchemaObject>& file,
             const std::map<std::string, SchemaObject>& reference) {
    // Code first: a trigger or a view is the reason this check exists.
    for (const char* type : {"trigger", "view", "table", "index"}) {
        for (const auto& [key, o] : file) {
            if (o.type != type)
                continue;
            const auto ref = reference.find(key);
            if (ref == reference.end()) {
                throw InputError(db.path(), placeOf(o),
                                 "not made by Reach's migrations; expected a project's schema to "
                                 "be exactly theirs (docs/security.md)");
            }
            if (ref->second.type != o.type) {
                throw InputError(db.path(), placeOf(o),
                                 "expected the " + ref->second.type +
                                     " that Reach's migrations make under this name");
            }
            if (lower(ref->second.table) != lower(o.table) || ref->second.hasSql != o.hasSql ||
                ref->second.sql != o.sql) {
                throw InputError(db.path(), placeOf(o),
                                 "differs from the " + o.type +
                                     " that Reach's migrations make; expected exactly theirs");
            }
        }
    }
    for (const auto& [key, o] : reference) {
        if (!file.count(key)) {
            throw InputError(db.path(), placeOf(o),
                             "missing; the migrations recorded in schema_version make it");
        }
    }
}

}  // namespace

bool checkProjectSchema(const SqliteDb& db) {
    const std::map<std::string, SchemaObject> file = schemaOf(db);
    if (file.empty())
        return false;
    const auto version = file.find("schema_version");
    if (version == file.end()) {
        throw InputError(db.path(), "table schema_version",
                         "expected a Reach project, found an SQLite file of another kind");
    }
    SqliteDb reference = SqliteDb::openInMemory(db.path() + " (reference schema)");
    reference.exec(kSchemaVersionTableSql);
    // The version table is read only once it is known to be the real one.
    compare(db, {*version}, schemaOf(reference));
    const std::set<int> applied = appliedVersions(db);
    for (const Migration& m : migrations()) {
        if (!applied.count(m.version))
            continue;
        try {
            reference.exec(m.sql);
        } catch (const SqliteError& e) {
            throw InputError(db.path(), "table schema_version",
                             "records migration " + std::to_string(m.version) +
                                 " without the ones it builds on (" + e.message() + ")");
        }
    }
    compare(db, file, schemaOf(reference));
    return true;
}

}  // namespace reach
