#include "core/base/jsonparse.h"

#include <sys/stat.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/base/inputerror.h"

namespace reach {

namespace {

bool isDigit(char c) {
    return c >= '0' && c <= '9';
}

bool isNumberChar(char c) {
    return isDigit(c) || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

std::string mib(size_t bytes) {
    return std::to_string(bytes >> 20) + " MiB";
}

// Walks the text once. Calls overflow(offset, size) for every number token a double cannot hold
// (strtod gives inf), and returns the first other limit broken.
template <class Overflow>
std::optional<JsonLimitError> scanLimits(std::string_view t, Overflow&& overflow) {
    const size_t n = t.size();
    size_t depth = 0;
    size_t i = 0;
    while (i < n) {
        const char c = t[i];
        if (c == '"') {
            const size_t start = i++;
            for (;;) {
                const void* q = std::memchr(t.data() + i, '"', n - i);
                if (!q)
                    return std::nullopt;  // unterminated: the parser says so
                size_t at = size_t(static_cast<const char*>(q) - t.data());
                size_t slashes = 0;
                while (at - slashes > start + 1 && t[at - slashes - 1] == '\\')
                    ++slashes;
                i = at + 1;
                if (slashes % 2 == 0)
                    break;
            }
            if (i - start - 2 > JsonLimits::kMaxStringBytes) {
                return JsonLimitError{start, "a string longer than " +
                                                 mib(JsonLimits::kMaxStringBytes) +
                                                 " (the limit for one string)"};
            }
            continue;
        }
        if (c == '{' || c == '[') {
            if (++depth > JsonLimits::kMaxDepth) {
                return JsonLimitError{i, "nesting deeper than " +
                                             std::to_string(JsonLimits::kMaxDepth) +
                                             " levels (the limit)"};
            }
        } else if (c == '}' || c == ']') {
            depth -= depth > 0;
        } else if (c == '-' || isDigit(c)) {
            const size_t start = i;
            while (i < n && isNumberChar(t[i]))
                ++i;
            const size_t size = i - start;
            if (size > JsonLimits::kMaxNumberChars) {
                return JsonLimitError{start, "a number of more than " +
                                                 std::to_string(JsonLimits::kMaxNumberChars) +
                                                 " characters (the limit)"};
            }
            const std::string token(t.substr(start, size));
            errno = 0;
            const double v = std::strtod(token.c_str(), nullptr);
            if (std::isinf(v))
                overflow(start, size);
            continue;
        }
        ++i;
    }
    return std::nullopt;
}

std::string placeOf(uint64_t offset, int64_t line) {
    if (line > 0)
        return "line " + std::to_string(line) + ", column " + std::to_string(offset + 1);
    return "byte " + std::to_string(offset);
}

std::string numberText(std::string_view t, uint64_t offset, size_t size) {
    std::string s(t.substr(offset, std::min<size_t>(size, 40)));
    return size > 40 ? s + "..." : s;
}

}  // namespace

std::optional<JsonLimitError> checkJsonLimits(std::string_view text) {
    std::optional<JsonLimitError> first;
    auto broken = scanLimits(text, [&](size_t offset, size_t size) {
        if (!first) {
            first = JsonLimitError{offset, "number " + numberText(text, offset, size) +
                                               " is out of range (a double holds at most "
                                               "1.8e308)"};
        }
    });
    if (first && (!broken || first->offset < broken->offset))
        return first;
    return broken;
}

nlohmann::json parseJson(std::string_view text, const std::string& file,
                         const std::string& expected, int64_t line) {
    if (auto e = checkJsonLimits(text))
        throw InputError(file, placeOf(e->offset, line), e->what);
    try {
        return nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
        // nlohmann prefixes "[json.exception.parse_error.101] parse error at line 1, column 2: ".
        const std::string what = e.what();
        const auto colon = what.find(": ");
        const std::string detail = colon == std::string::npos ? what : what.substr(colon + 2);
        // nlohmann counts bytes read (from 1), as the messages of Reach always did.
        const std::string place =
            line > 0 ? "line " + std::to_string(line) + ", column " + std::to_string(e.byte)
                     : "byte " + std::to_string(e.byte);
        throw InputError(file, place, expected + " (" + detail + ")");
    } catch (const nlohmann::json::exception& e) {
        // Not reachable after the checks above; still one line naming the file, never exit 3.
        throw InputError(file, placeOf(0, line), expected + " (" + e.what() + ")");
    }
}

std::optional<nlohmann::json> tryParseJson(std::string_view text) {
    std::string patched;
    auto broken = scanLimits(text, [&](size_t offset, size_t size) {
        if (patched.empty())
            patched.assign(text);
        patched.replace(offset, size, "0" + std::string(size - 1, ' '));
    });
    if (broken)
        return std::nullopt;
    nlohmann::json j =
        nlohmann::json::parse(patched.empty() ? text : std::string_view(patched), nullptr, false);
    if (j.is_discarded())
        return std::nullopt;
    return j;
}

std::optional<nlohmann::json> trySniffJsonFile(const std::string& path) {
    try {
        return tryParseJson(readJsonFile(path, ""));
    } catch (const InputError&) {
        return std::nullopt;
    }
}

std::string readJsonFile(const std::string& path, const std::string& expected) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
        throw InputError(path, "",
                         "cannot open (" + std::string(std::strerror(errno)) + "); " + expected);
    if (S_ISDIR(st.st_mode))
        throw InputError(path, "", "is a directory; " + expected);
    if (uint64_t(st.st_size) > JsonLimits::kMaxDocumentBytes) {
        throw InputError(path, "byte " + std::to_string(JsonLimits::kMaxDocumentBytes),
                         "larger than " + mib(JsonLimits::kMaxDocumentBytes) +
                             " (the limit for a JSON file read whole); " + expected);
    }
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw InputError(path, "", "cannot open; " + expected);
    std::ostringstream buf;
    buf << in.rdbuf();
    if (in.bad())
        throw InputError(path, "", "read error; " + expected);
    return buf.str();
}

}  // namespace reach
