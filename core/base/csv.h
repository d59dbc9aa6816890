#pragma once

#include <string>

namespace reach {

// One CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break, with quotes
// doubled. Every CSV Reach writes (figure data, exported tables) quotes through here.
inline std::string csvField(const std::string& text) {
    if (text.find_first_of(",\"\n\r") == std::string::npos)
        return text;
    std::string q = "\"";
    for (char c : text) {
        if (c == '"')
            q += '"';
        q += c;
    }
    return q + "\"";
}

}  // namespace reach
