#include "core/base/inputerror.h"

#include "core/base/textescape.h"

namespace reach {

namespace {
// A user-facing error must stay on one line and must not steer the terminal, even when it quotes
// input (a file name or kernel name with a newline or an ESC sequence).
std::string oneLine(const std::string& s) {
    return escapeControls(s);
}
}  // namespace

InputError::InputError(std::string file, std::string place, std::string expected)
    : std::runtime_error(oneLine(file + ": " + (place.empty() ? "" : place + ": ") + expected)),
      m_file(std::move(file)),
      m_place(std::move(place)),
      m_expected(std::move(expected)) {}

}  // namespace reach
