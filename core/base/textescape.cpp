#include "core/base/textescape.h"

#include <cstdint>
#include <cstdio>

#include <nlohmann/json.hpp>

namespace reach {

namespace {

std::string hexByte(const char* prefix, unsigned v) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%s%02x", prefix, v & 0xffu);
    return buf;
}

// Length of the well-formed UTF-8 sequence at s[i], or 0 when the byte there does not start one
// (RFC 3629 table: no overlong forms, no surrogates, nothing past U+10FFFF).
size_t utf8Length(std::string_view s, size_t i) {
    const auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
    const unsigned char c = b(0);
    const size_t left = s.size() - i;
    auto cont = [&](size_t k) { return k < left && (b(k) & 0xC0) == 0x80; };
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        return cont(1) ? 2 : 0;
    if (c >= 0xE0 && c <= 0xEF) {
        if (!cont(1) || !cont(2))
            return 0;
        if ((c == 0xE0 && b(1) < 0xA0) || (c == 0xED && b(1) > 0x9F))
            return 0;
        return 3;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        if (!cont(1) || !cont(2) || !cont(3))
            return 0;
        if ((c == 0xF0 && b(1) < 0x90) || (c == 0xF4 && b(1) > 0x8F))
            return 0;
        return 4;
    }
    return 0;
}

nlohmann::json withValidStrings(const nlohmann::json& j) {
    // Output documents are Reach's own (a few levels deep), so recursion is bounded.
    switch (j.type()) {
        case nlohmann::json::value_t::string:
            return escapeInvalidUtf8(j.get_ref<const std::string&>());
        case nlohmann::json::value_t::array: {
            nlohmann::json out = nlohmann::json::array();
            for (const auto& v : j)
                out.push_back(withValidStrings(v));
            return out;
        }
        case nlohmann::json::value_t::object: {
            nlohmann::json out = nlohmann::json::object();
            for (const auto& [k, v] : j.items())
                out[escapeInvalidUtf8(k)] = withValidStrings(v);
            return out;
        }
        default:
            return j;
    }
}

}  // namespace

std::string escapeControls(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c == '\n') {
            out += "\\n";
        } else if (c == '\r') {
            out += "\\r";
        } else if (c == '\t') {
            out += "\\t";
        } else if (c < 0x20 || c == 0x7f) {
            out += hexByte("\\x", c);
        } else if (c == 0xC2 && i + 1 < text.size() &&
                   static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
                   static_cast<unsigned char>(text[i + 1]) <= 0x9F) {
            out += hexByte("\\u00", static_cast<unsigned char>(text[++i]));
        } else {
            out += char(c);
        }
    }
    return out;
}

bool isValidUtf8(std::string_view text) {
    for (size_t i = 0; i < text.size();) {
        const size_t n = utf8Length(text, i);
        if (n == 0)
            return false;
        i += n;
    }
    return true;
}

std::string escapeInvalidUtf8(std::string_view text) {
    if (isValidUtf8(text))
        return std::string(text);
    std::string out;
    out.reserve(text.size() + 16);
    for (size_t i = 0; i < text.size();) {
        const size_t n = utf8Length(text, i);
        if (n == 0) {
            out += hexByte("\\x", static_cast<unsigned char>(text[i]));
            ++i;
        } else {
            out.append(text.substr(i, n));
            i += n;
        }
    }
    return out;
}

std::string dumpJson(const nlohmann::json& doc, int indent) {
    std::string text;
    try {
        text = doc.dump(indent);
    } catch (const nlohmann::json::type_error&) {
        text = withValidStrings(doc).dump(indent);  // 316: a string that is not UTF-8
    }
    // C1 controls appear only inside strings, where \u00NN means the same character.
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        const auto next = i + 1 < text.size() ? static_cast<unsigned char>(text[i + 1]) : 0;
        if (c == 0xC2 && next >= 0x80 && next <= 0x9F) {
            out += hexByte("\\u00", next);
            ++i;
        } else {
            out += char(c);
        }
    }
    return out;
}

}  // namespace reach
