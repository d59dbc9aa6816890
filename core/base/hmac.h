#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace reach {

// HMAC-SHA256 (RFC 2104 with SHA-256, as RFC 4231 tests it) on Reach's own SHA-256: what Reach
// authenticates the evidence it measured with (core/base/evidence.h). Core links no crypto
// library; SHA-256 is already here, and HMAC is two passes of it.
std::array<uint8_t, 32> hmacSha256(std::string_view key, std::string_view message);
// The same as lower-case hex.
std::string hmacSha256Hex(std::string_view key, std::string_view message);

// Whether two strings are equal, in time that depends on their lengths only: comparing a MAC
// byte by byte and stopping at the first difference tells a guesser how much was right.
bool equalInConstantTime(std::string_view a, std::string_view b);

}  // namespace reach
