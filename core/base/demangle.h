#pragma once

#include <string>
#include <string_view>

namespace reach {

// Kernel names in traces are mostly demangled already; some stay mangled ("_ZN..."). Returns the
// demangled form of an Itanium-mangled name, or the name unchanged when it is not mangled or the
// demangler rejects it (a kernel name is data, not a guarantee).
std::string demangle(std::string_view name);

bool looksMangled(std::string_view name);

}  // namespace reach
