#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

namespace reach {

// Names, paths and messages come from files written by strangers. Printed raw, an ESC or OSC
// sequence in a kernel name retitles or clears the user's terminal and a newline forges an
// output line; a byte that is not UTF-8 makes JSON output impossible. These keep the text
// (every byte stays visible) and make it safe where it goes.

// Every control character as a visible escape: \n \r \t, C0 and DEL as \xNN, C1 controls
// (U+0080..U+009F, which terminals also obey) as \u00NN. Other bytes are unchanged.
std::string escapeControls(std::string_view text);

// True when the text is well-formed UTF-8 (no overlong forms, surrogates or bytes past U+10FFFF).
bool isValidUtf8(std::string_view text);

// Each byte that is not part of well-formed UTF-8 as the four characters \xNN; the rest as is.
std::string escapeInvalidUtf8(std::string_view text);

// The JSON text of a document for output: strings that are not UTF-8 are written with
// escapeInvalidUtf8 (nlohmann refuses them), and C1 controls as \u00NN escapes.
std::string dumpJson(const nlohmann::json& doc, int indent = 2);

}  // namespace reach
