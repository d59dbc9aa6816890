#include "core/base/inputerror.h"

namespace reach {

namespace {
std::string oneLine(std::string s) {
    // A user-facing error must stay on one line even when it quotes input.
    for (char& c : s) {
        if (c == '\n' || c == '\r')
            c = ' ';
    }
    return s;
}
}  // namespace

InputError::InputError(std::string file, std::string place, std::string expected)
    : std::runtime_error(oneLine(file + ": " + (place.empty() ? "" : place + ": ") + expected)),
      m_file(std::move(file)),
      m_place(std::move(place)),
      m_expected(std::move(expected)) {}

}  // namespace reach
