#include <gtest/gtest.h>

#include <string>

#include "core/base/sha256.h"
#include "core/trace/bytesource.h"

using namespace reach;

// FIPS 180-2 appendix B vectors (the same in every SHA-256 test suite).
TEST(Sha256, KnownVectors) {
    EXPECT_EQ(Sha256::hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    EXPECT_EQ(Sha256::hex("abc"),
              "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    EXPECT_EQ(Sha256::hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
              "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    EXPECT_EQ(Sha256::hex(std::string(1000000, 'a')),
              "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, PaddingBoundaries) {
    // Lengths around the one-or-two-block padding cases; values from Python hashlib.sha256.
    EXPECT_EQ(Sha256::hex(std::string(55, 'x')),
              "d5e285683cd4efc02d021a5c62014694958901005d6f71e89e0989fac77e4072");
    EXPECT_EQ(Sha256::hex(std::string(56, 'x')),
              "04c26261370ee7541549d16dee320c723e3fd14671e66a099afe0a377c16888e");
    EXPECT_EQ(Sha256::hex(std::string(63, 'x')),
              "75220b47218278e656f2013bb8f0c455a25eaf01e86c64924e9d48d89776d6f2");
    EXPECT_EQ(Sha256::hex(std::string(64, 'x')),
              "7ce100971f64e7001e8fe5a51973ecdfe1ced42befe7ee8d5fd6219506b5393c");
    EXPECT_EQ(Sha256::hex(std::string(65, 'x')),
              "9537c5fdf120482f7d58d25e9ed583f52c02b4e304ea814db1633ad565aed7e9");
    EXPECT_EQ(Sha256::hex(std::string(119, 'x')),
              "000b48d4edf0fa7bee3c6236ecd2785baa5db4eeb8bb54341b029e0d9fa5fb0c");
    EXPECT_EQ(Sha256::hex(std::string(120, 'x')),
              "13f05a0b594787f5ecd315edc96141bd3243203d1b7d4f0836f37308b276ba98");
}

TEST(Sha256, IncrementalEqualsOneShotForAnySplit) {
    std::string data;
    for (int i = 0; i < 5000; ++i)
        data += char('a' + (i * 7919) % 26);
    std::string whole = Sha256::hex(data);
    for (size_t step : {1u, 3u, 63u, 64u, 65u, 1000u}) {
        Sha256 h;
        for (size_t i = 0; i < data.size(); i += step)
            h.update(data.substr(i, step));
        EXPECT_EQ(h.hexDigest(), whole) << "step " << step;
    }
}

TEST(Sha256, FileHashMatchesSha256sum) {
    // Expected values: `sha256sum datasets/profiles/...` (coreutils).
    struct Case {
        const char* file;
        const char* hash;
    } cases[] = {
        {"/profiles/h200/resnet50_inference.json.gz",
         "c9018080976082427f8684adb86a59950e2860acbcf3832772ec2bf18ab6e1d6"},
        {"/profiles/public/hta_simple_add_a100.json.gz",
         "8866b9c04126fc8fff1256b6e39851166739913c2cebb0016d8a4f863872fc3f"},
        {"/profiles/public/pipit_saxpy_nsys_a100.sqlite",
         "38a44cf4de905da66bd1f73f35b23fc4fa0e7f1979bf6f8468ba41fe8f6cf7c6"},
    };
    for (const Case& c : cases) {
        ByteSource src(std::string(REACH_DATASETS) + c.file);
        while (!src.next().empty()) {
        }
        EXPECT_EQ(src.sha256(), c.hash) << c.file;
    }
}

TEST(Sha256, PortableAndHardwarePathsAgree) {
    std::string data;
    for (int i = 0; i < 100000; ++i)
        data += char((i * 2654435761u) >> 24);
    EXPECT_EQ(Sha256::hexPortable("abc"),
              "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    EXPECT_EQ(Sha256::hexPortable(data), Sha256::hex(data))
        << "SHA extensions in use: " << Sha256::usesShaExtensions();
}

// What a digest read from a file must look like before it is compared or names a folder.
TEST(Sha256, IsHexDigestAcceptsOnlyWhatHexDigestWrites) {
    EXPECT_TRUE(Sha256::isHexDigest(Sha256::hex("abc")));
    EXPECT_FALSE(Sha256::isHexDigest(""));
    EXPECT_FALSE(Sha256::isHexDigest(std::string(63, 'a')));
    EXPECT_FALSE(Sha256::isHexDigest(std::string(65, 'a')));
    EXPECT_FALSE(Sha256::isHexDigest(std::string(64, 'A')));  // upper case is not what it writes
    EXPECT_FALSE(Sha256::isHexDigest(std::string(63, 'a') + "/"));
}
