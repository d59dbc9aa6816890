#pragma once

#include <stdexcept>
#include <string>

namespace reach {

// The one kind of error a user sees for bad input. Its message is a single line that names the
// file, the place (byte offset, line, record or key) and what was expected there, e.g.
//   "trace.json.gz: byte 1523: expected ',' or '}' after an object member"
// Front ends print what() and exit with status 2.
class InputError : public std::runtime_error {
public:
    InputError(std::string file, std::string place, std::string expected);

    const std::string& file() const { return m_file; }
    const std::string& place() const { return m_place; }
    const std::string& expected() const { return m_expected; }

private:
    std::string m_file;
    std::string m_place;
    std::string m_expected;
};

}  // namespace reach
