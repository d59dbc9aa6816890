#include "core/base/hmac.h"

#include <algorithm>

#include "core/base/sha256.h"

namespace reach {

namespace {

constexpr size_t kBlockBytes = 64;  // SHA-256's block: the key is padded (or hashed) to it

std::string hex(const std::array<uint8_t, 32>& bytes) {
    static const char* digits = "0123456789abcdef";
    std::string out;
    out.reserve(64);
    for (uint8_t b : bytes) {
        out += digits[b >> 4];
        out += digits[b & 15];
    }
    return out;
}

}  // namespace

std::array<uint8_t, 32> hmacSha256(std::string_view key, std::string_view message) {
    std::array<uint8_t, kBlockBytes> block{};
    if (key.size() > kBlockBytes) {
        Sha256 h;
        h.update(key);
        const auto d = h.digest();
        std::copy(d.begin(), d.end(), block.begin());
    } else {
        std::copy(key.begin(), key.end(), block.begin());
    }
    std::array<uint8_t, kBlockBytes> inner{}, outer{};
    for (size_t i = 0; i < kBlockBytes; ++i) {
        inner[i] = block[i] ^ 0x36;
        outer[i] = block[i] ^ 0x5c;
    }
    Sha256 in;
    in.update(inner.data(), inner.size());
    in.update(message);
    const auto innerDigest = in.digest();
    Sha256 out;
    out.update(outer.data(), outer.size());
    out.update(innerDigest.data(), innerDigest.size());
    return out.digest();
}

std::string hmacSha256Hex(std::string_view key, std::string_view message) {
    return hex(hmacSha256(key, message));
}

bool equalInConstantTime(std::string_view a, std::string_view b) {
    if (a.size() != b.size())
        return false;
    unsigned char diff = 0;
    for (size_t i = 0; i < a.size(); ++i)
        diff |= static_cast<unsigned char>(a[i] ^ b[i]);
    return diff == 0;
}

}  // namespace reach
