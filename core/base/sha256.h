#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace reach {

// Incremental SHA-256 (FIPS 180-4). Identifies a profile by its bytes, so a store can tell a
// re-import of the same file from a new one. Uses the x86 SHA extensions when the CPU has them
// (hashing then keeps pace with a streaming reader) and portable code otherwise.
class Sha256 {
public:
    Sha256();
    void update(const void* data, size_t size);
    void update(std::string_view s) { update(s.data(), s.size()); }
    std::array<uint8_t, 32> digest();  // finishes; call once
    std::string hexDigest();           // finishes; lower-case hex

    static std::string hex(std::string_view data);
    // Lower-case hex SHA-256 of a file's bytes; throws InputError when it cannot be read.
    static std::string hexOfFile(const std::string& path);
    // Whether s is a digest as hexDigest writes it: 64 lower-case hex digits (a key read from a
    // stranger's file is checked before it names a folder or is compared).
    static bool isHexDigest(std::string_view s);
    // The portable code path alone (tests check it against the hardware path).
    static std::string hexPortable(std::string_view data);
    static bool usesShaExtensions();

private:
    void compress(const uint8_t* blocks, size_t count);

    std::array<uint32_t, 8> m_state;
    std::array<uint8_t, 64> m_block{};
    size_t m_blockLen = 0;
    uint64_t m_totalLen = 0;
};

}  // namespace reach
