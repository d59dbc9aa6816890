#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace reach {

// The limits every JSON reader of Reach applies (docs/limits.md). Files come from strangers:
// without them a deep document overflows the stack when it is copied or printed, a huge token
// costs its size in memory, and a number a double cannot hold becomes inf, 0 or null.
struct JsonLimits {
    static constexpr size_t kMaxDepth = 512;                  // nesting levels; the top level is 1
    static constexpr size_t kMaxStringBytes = 16u << 20;      // one string a reader keeps
    static constexpr size_t kMaxNumberChars = 4096;           // one number token
    static constexpr uint64_t kMaxDocumentBytes = 64u << 20;  // a file parsed whole (a DOM)
};

// The first place a JSON text breaks a limit: its byte offset and what is wrong there.
struct JsonLimitError {
    uint64_t offset = 0;
    std::string what;
};

// One pass over the text: nesting depth, string and number token sizes, numbers out of a
// double's range. Syntax is left to the parser (an unterminated string simply ends the scan).
std::optional<JsonLimitError> checkJsonLimits(std::string_view text);

// Parses a whole document after checkJsonLimits. Every failure (syntax, a limit, a number out
// of range) is an InputError naming `file` and the place: "byte N", or with `line` set,
// "line L, column C". `expected` says what the file should have been.
nlohmann::json parseJson(std::string_view text, const std::string& file,
                         const std::string& expected, int64_t line = 0);

// The document, or nullopt on any failure: for telling formats apart. Numbers out of range are
// read as 0 here, so a file with one still shows what it is (and parseJson then names the place).
std::optional<nlohmann::json> tryParseJson(std::string_view text);

// tryParseJson of a file no larger than kMaxDocumentBytes; nullopt when unreadable or larger.
std::optional<nlohmann::json> trySniffJsonFile(const std::string& path);

// A file's bytes for parseJson: InputError(path, ...) when it cannot be read or is larger than
// JsonLimits::kMaxDocumentBytes.
std::string readJsonFile(const std::string& path, const std::string& expected);

}  // namespace reach
